import { describe, expect, it } from 'vitest';
import { UnknownComponentError } from '../pipeline/errors.js';
import { BACKEND_IDS, createEmbedder, EMBEDDER_IDS, loadBackend } from './index.js';
import { createLexicalEmbedder } from './lexical-embedder.js';
import { createSimExtractionModel } from './sim-extraction-model.js';

describe('backend registry', () => {
  it('lists and lazily loads every backend', async () => {
    expect(BACKEND_IDS).toEqual(['graphiti']);
    const backend = await loadBackend('graphiti', { embedder: createLexicalEmbedder(), runId: 'r', workDir: '/tmp/unused', extraction: createSimExtractionModel() });
    expect(backend.id).toBe('graphiti');
  });

  it('names the available ids for an unknown backend or embedder', async () => {
    const settings = { embedder: createLexicalEmbedder(), runId: 'r', workDir: '/tmp/unused', extraction: createSimExtractionModel() };
    await expect(loadBackend('toString', settings)).rejects.toMatchObject({ kind: 'system', available: ['graphiti'] });
    await expect(loadBackend('neo4j', settings)).rejects.toBeInstanceOf(UnknownComponentError);
    const unknown = { id: 'word2vec' } as unknown as Parameters<typeof createEmbedder>[0];
    await expect(createEmbedder(unknown)).rejects.toMatchObject({ kind: 'embedder', id: 'word2vec', available: ['lexical', 'openai'] });
  });

  it('creates embedders without touching the network', async () => {
    expect(EMBEDDER_IDS).toEqual(['lexical', 'openai']);
    expect((await createEmbedder({ id: 'lexical' })).id).toBe('lexical-hash-v1');
    expect((await createEmbedder({ id: 'lexical', dimensions: 8 })).dimensions).toBe(8);
    expect((await createEmbedder({ id: 'openai', model: 'nomic-embed-text', baseURL: 'http://127.0.0.1:9/v1' })).id).toBe('openai:nomic-embed-text');
  });
});
