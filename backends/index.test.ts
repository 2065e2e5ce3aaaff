import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { UnknownComponentError } from '#core/errors.js';
import { BACKEND_IDS, createEmbedder, DEFAULT_SYSTEM_IDS, EMBEDDER_IDS, loadBackend } from './index.js';
import { createLexicalEmbedder } from './lexical-embedder.js';
import { createSimExtractionModel } from './sim-extraction-model.js';

describe('backend registry', () => {
  it('lists and lazily loads every backend', async () => {
    expect(BACKEND_IDS).toEqual([
      'graphiti',
      'zep-ce',
      'mem0',
      'mem0-exp',
      'langmem',
      'cognee',
      'inspeximus',
      'inspeximus-keyed',
      'inspeximus-hist',
      'mem0-py',
      'mem0-py-exp',
      'graphiti-py',
      'langmem-py',
      'cognee-py',
    ]);
    // `pnpm eval` without --systems runs the paper's six (the Python rows are named to run), so its run id is unchanged.
    expect(DEFAULT_SYSTEM_IDS).toEqual(['graphiti', 'zep-ce', 'mem0', 'mem0-exp', 'langmem', 'cognee']);
    const backend = await loadBackend('graphiti', {
      embedder: createLexicalEmbedder(),
      runId: 'r',
      workDir: '/tmp/unused',
      extraction: createSimExtractionModel(),
    });
    expect(backend.id).toBe('graphiti');
  });

  it('names the available ids for an unknown backend or embedder', async () => {
    const settings = {
      embedder: createLexicalEmbedder(),
      runId: 'r',
      workDir: '/tmp/unused',
      extraction: createSimExtractionModel(),
    };
    await expect(loadBackend('toString', settings)).rejects.toMatchObject({ kind: 'system', available: BACKEND_IDS });
    await expect(loadBackend('neo4j', settings)).rejects.toBeInstanceOf(UnknownComponentError);
    const unknown = { id: 'word2vec' } as unknown as Parameters<typeof createEmbedder>[0];
    await expect(createEmbedder(unknown)).rejects.toMatchObject({
      kind: 'embedder',
      id: 'word2vec',
      available: ['lexical', 'openai'],
    });
  });

  it('creates embedders without touching the network', async () => {
    expect(EMBEDDER_IDS).toEqual(['lexical', 'openai']);
    expect((await createEmbedder({ id: 'lexical' })).id).toBe('lexical-hash-v1');
    expect((await createEmbedder({ id: 'lexical', dimensions: 8 })).dimensions).toBe(8);
    expect(
      (await createEmbedder({ id: 'openai', model: 'nomic-embed-text', baseURL: 'http://127.0.0.1:9/v1' })).id,
    ).toBe('openai:nomic-embed-text');
  });
});

describe('registry hygiene', () => {
  const root = join(import.meta.dirname, '..');
  const source = (dir: string) =>
    readdirSync(join(root, dir), { recursive: true, encoding: 'utf8' })
      .filter((file) => file.endsWith('.ts') && !file.endsWith('.test.ts'))
      .map((file) => ({ file: join(dir, file), text: readFileSync(join(root, dir, file), 'utf8') }));

  it('registers every backend file with a lazy loader line', () => {
    const index = readFileSync(join(root, 'backends', 'index.ts'), 'utf8');
    const backendFiles = readdirSync(join(root, 'backends')).filter(
      (f) => f.endsWith('-backend.ts') && f !== 'memory-backend.ts',
    );
    expect(backendFiles.length).toBeGreaterThan(0);
    for (const file of backendFiles)
      expect(index, `${file} is not registered`).toContain(`import('./${file.replace(/\.ts$/, '.js')}')`);
  });

  it('asks no backend id outside backends/', () => {
    const ids = BACKEND_IDS.map((id) => id.replace(/[-]/g, '\\-')).join('|');
    const comparison = new RegExp(
      `(===|!==|==|!=|case)\\s*['"](${ids}|zep-ce)['"]|['"](${ids}|zep-ce)['"]\\s*(===|!==|==|!=)`,
    );
    for (const dir of ['pipeline', 'analysis', 'guard', 'scenarios']) {
      for (const { file, text } of source(dir))
        expect(comparison.test(text), `${file} compares a backend id`).toBe(false);
    }
  });
});
