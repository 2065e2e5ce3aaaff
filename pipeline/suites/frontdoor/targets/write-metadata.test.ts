import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { UnsupportedFeatureError } from '#core/errors.js';
import { DEFAULT_SYSTEM_IDS } from '../../../../backends/index.js';
import { createLexicalEmbedder } from '../../../../backends/lexical-embedder.js';
import { createSimExtractionModel } from '../../../../backends/sim-extraction-model.js';
import { FRONTDOOR_TARGET_IDS, frontdoorTarget } from './targets.js';

const workDir = mkdtempSync(join(tmpdir(), 'write-metadata-'));
afterAll(() => rmSync(workDir, { recursive: true, force: true }));
const now = new Date();
// The targets in Python processes (main venv, store environments) are measured in python-targets.stores.test.ts.
const IN_PROCESS = (await Promise.all(FRONTDOOR_TARGET_IDS.map(frontdoorTarget)))
  .filter((target) => !target.python)
  .map((target) => target.id);

describe('front-door targets', () => {
  it('cover the six grid systems, the real LangGraph store and the two reference models, each file registered', () => {
    expect(IN_PROCESS).toEqual([...DEFAULT_SYSTEM_IDS, 'langgraph-store', 'reference', 'reference-defended']);
    const registry = readFileSync(join(import.meta.dirname, 'targets.ts'), 'utf8');
    const files = readdirSync(import.meta.dirname).filter((file) => file.endsWith('-backend.ts'));
    expect(files.length).toBeGreaterThan(0);
    for (const file of files)
      expect(registry, `${file} is not registered`).toContain(`import('./${file.replace(/\.ts$/, '.js')}')`);
  });

  // No silent drop: every target either stores writer metadata and filters on it, or says it cannot. (zep-ce writes
  // naturally, below; reference-defended refuses these unsigned writes by design, see reference-backend.test.ts.)
  it.each(IN_PROCESS.filter((id) => id !== 'zep-ce' && id !== 'reference-defended'))(
    '%s stores writer metadata or warns, and filters on it or refuses',
    async (id) => {
      const target = await frontdoorTarget(id);
      const backend = await target.load({
        embedder: createLexicalEmbedder(),
        runId: 'wm',
        workDir: join(workDir, id),
        extraction: createSimExtractionModel(),
        trustedKeys: [],
      });
      await backend.open();
      try {
        const tagged = await backend.insert({
          namespace: 'n',
          now,
          writes: { mode: 'direct', revoked: [], current: ['Refunds take 14 days.'] },
          metadata: { source: 'user', verified: true },
        });
        await backend.insert({
          namespace: 'n',
          now,
          writes: { mode: 'direct', revoked: [], current: ['Refunds take 60 days.'] },
          metadata: { source: 'user' },
        });
        const warned = tagged.warnings.some((w) => w.type === 'unsupported' && w.feature === 'write metadata');
        const all = await backend.search({ namespace: 'n', query: 'How long do refunds take?', limit: 5 });
        const stored = all.records.some((record) => record.fields.verified === true);
        expect(warned !== stored, `${id}: stored ${stored}, warned ${warned}`).toBe(true);
        let filtered: string[] | 'refused';
        try {
          filtered = (
            await backend.search({
              namespace: 'n',
              query: 'How long do refunds take?',
              limit: 5,
              metadataFilter: { verified: true },
            })
          ).records.map((r) => r.text);
        } catch (error) {
          expect(error).toBeInstanceOf(UnsupportedFeatureError);
          filtered = 'refused';
        }
        expect(filtered).toEqual(stored ? ['Refunds take 14 days.'] : 'refused');
      } finally {
        await backend.close();
      }
    },
  );

  it('zep-ce (natural writes only) warns on metadata and refuses a metadata filter', async () => {
    const backend = await (await frontdoorTarget('zep-ce')).load({
      embedder: createLexicalEmbedder(),
      runId: 'wm',
      workDir,
      extraction: createSimExtractionModel(),
      trustedKeys: [],
    });
    await backend.open();
    const report = await backend.insert({
      namespace: 'n',
      now,
      writes: {
        mode: 'natural',
        episodes: [{ name: 'e', text: 'Refunds take 14 days.', referenceTime: now, sourceDescription: 'user' }],
      },
      metadata: { source: 'user' },
    });
    expect(report.warnings.map((w) => w.feature)).toContain('write metadata');
    await expect(
      backend.search({ namespace: 'n', query: 'refunds', limit: 5, metadataFilter: { source: 'user' } }),
    ).rejects.toBeInstanceOf(UnsupportedFeatureError);
    await backend.close();
  });

  it('langgraph-store is the real InMemoryStore: namespace isolation by the caller, no floor, its version named', async () => {
    const target = await frontdoorTarget('langgraph-store');
    expect(target.version()).toMatch(
      /^@langchain\/langgraph-checkpoint \d+\.\d+\.\d+ InMemoryStore \(the real library\)$/,
    );
    const backend = await target.load({
      embedder: createLexicalEmbedder(),
      runId: 'r:1',
      workDir,
      extraction: createSimExtractionModel(),
      trustedKeys: [],
    });
    await backend.open();
    await backend.insert({
      namespace: 'alice',
      now,
      writes: { mode: 'direct', revoked: [], current: ['My door code is 4490#.'] },
    });
    await backend.insert({
      namespace: 'bob',
      now,
      writes: { mode: 'direct', revoked: [], current: ['Bob likes tea.'] },
    });
    expect(
      (await backend.search({ namespace: 'bob', query: 'door code', limit: 5 })).records.map((r) => r.text),
    ).toEqual(['Bob likes tea.']);
    await backend.reset('bob');
    expect((await backend.search({ namespace: 'bob', query: 'tea', limit: 5 })).records).toEqual([]);
    await backend.close();
  });
});
