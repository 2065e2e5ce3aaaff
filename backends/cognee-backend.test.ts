import { describe, expect, it } from 'vitest';
import { EvalError, UnsupportedFeatureError } from '#core/errors.js';
import { createCogneeBackend } from './cognee-backend.js';
import { entityId } from './cognee-graph.js';
import { createEmbeddedVectorStore } from './embedded-vector-store.js';
import type { Embedder } from './embedder.js';
import { createLexicalEmbedder } from './lexical-embedder.js';
import { runBackendConformance } from './memory-backend.conformance.js';
import type { Episode } from './memory-backend.js';
import { createSimExtractionModel } from './sim-extraction-model.js';
import type { VectorStore } from './vector-store.js';

const NOW = new Date('2026-09-01T12:00:00.000Z');
const cognee = (runId: string, options: { vectors?: VectorStore; embedder?: Embedder; topK?: number } = {}) =>
  createCogneeBackend({
    embedder: options.embedder ?? createLexicalEmbedder(),
    runId,
    workDir: '/tmp/unused',
    extraction: createSimExtractionModel(),
    vectors: options.vectors,
    topK: options.topK,
  });

runBackendConformance({
  name: 'cognee (embedded vector store)',
  create: () => cognee('conformance'),
  createSharedPair: () => {
    const vectors = createEmbeddedVectorStore();
    return [cognee('run_a', { vectors }), cognee('run_b', { vectors })];
  },
  skip: [
    {
      reason: 'direct seeding never adds the revoked fact (delete-then-reingest is the primitive)',
      tests: ['default search returns revoked and current facts'],
    },
    {
      reason: 'filtered read is the default read: no status marker exists',
      tests: ['store filter excludes the revoked fact'],
    },
  ],
});

const episode = (name: string, text: string): Episode => ({
  name,
  text,
  referenceTime: NOW,
  sourceDescription: 'policy feed',
});

describe('cognee backend', () => {
  it('direct: adds the distractors then v2, never v1; chunks carry only created_at / updated_at in epoch ms', async () => {
    const vectors = createEmbeddedVectorStore();
    const backend = cognee('r1', { vectors });
    await backend.open();
    const report = await backend.insert({
      namespace: 'ns',
      now: NOW,
      writes: {
        mode: 'direct',
        revoked: ['MFA may be waived.'],
        current: ['MFA is always required.', 'VPN is required.'],
      },
    });
    expect(report).toEqual({ stored: 2, extractor: 'none', warnings: [] });
    expect((await vectors.scroll('DocumentChunk_text')).map((point) => point.payload.text)).toEqual([
      'VPN is required.',
      'MFA is always required.',
    ]);
    const { records } = await backend.search({ namespace: 'ns', query: 'MFA waived', limit: 10 });
    expect(records.map((record) => record.text)).toEqual(['MFA is always required.', 'VPN is required.']);
    expect(records[0]?.fields).toEqual({ created_at: NOW.getTime(), updated_at: NOW.getTime() });
  });

  it('natural: one chunk per episode; the graph links documents, chunks and the shared entities', async () => {
    const backend = cognee('r1');
    await backend.open();
    const ep0 = 'Standard A-1, issued in 2024, governs the Gateway. It states: One reviewer suffices.';
    const ep1 =
      'Standard A-1 has been revised and now supersedes the 2024 issue. For the Gateway it states: Two reviewers are required.';
    const report = await backend.insert({
      namespace: 'ns',
      now: NOW,
      writes: { mode: 'natural', episodes: [episode('x_ep0', ep0), episode('x_ep1', ep1)] },
    });
    expect(report).toMatchObject({ stored: 2, extractor: 'sim-extractor-v3' });
    const { records } = await backend.search({ namespace: 'ns', query: 'reviewers Gateway', limit: 10 });
    expect(records.map((record) => record.text).sort()).toEqual([ep0, ep1].sort());
    const graph = backend.graph('ns');
    const types = [...graph.nodes.values()].map((node) => node.type);
    expect(types.filter((type) => type === 'TextDocument')).toHaveLength(2);
    expect(types.filter((type) => type === 'DocumentChunk')).toHaveLength(2);
    // Both documents re-attach to the same two entities (deterministic Entity ids).
    expect(
      [...graph.nodes.values()]
        .filter((node) => node.type === 'Entity')
        .map((node) => node.name)
        .sort(),
    ).toEqual(['Standard A-1', 'the Gateway']);
    expect(
      graph.edges.filter((edge) => edge.relationship_name === 'contains' && edge.target === entityId('Standard A-1')),
    ).toHaveLength(2);
    expect(graph.edges).toContainEqual({
      source: entityId('Standard A-1'),
      target: entityId('the Gateway'),
      relationship_name: 'states_policy',
    });
  });

  it('searches top_k chunks then keeps the first limit non-empty ones; re-adding a text adds nothing', async () => {
    const backend = cognee('r1', { topK: 3 });
    await backend.open();
    const current = ['alpha one', 'alpha two', 'alpha three', 'alpha four'];
    await backend.insert({ namespace: 'ns', now: NOW, writes: { mode: 'direct', revoked: [], current } });
    expect((await backend.search({ namespace: 'ns', query: 'alpha', limit: 10 })).records).toHaveLength(3);
    expect((await backend.search({ namespace: 'ns', query: 'alpha', limit: 2 })).records).toHaveLength(2);
    expect(
      await backend.insert({
        namespace: 'ns',
        now: NOW,
        writes: { mode: 'direct', revoked: [], current: ['alpha one'] },
      }),
    ).toMatchObject({ stored: 0 });
  });

  it('refuses filters and use before open; reset drops chunks and graph', async () => {
    const backend = cognee('r1');
    await expect(backend.search({ namespace: 'ns', query: 'q', limit: 1 })).rejects.toBeInstanceOf(EvalError);
    await backend.open();
    await expect(
      backend.search({ namespace: 'ns', query: 'q', limit: 1, filter: { expired_at: [[{ operator: 'IS NULL' }]] } }),
    ).rejects.toBeInstanceOf(UnsupportedFeatureError);
    await backend.insert({
      namespace: 'ns',
      now: NOW,
      writes: { mode: 'natural', episodes: [episode('e', 'Some text here.')] },
    });
    await backend.reset('ns');
    expect((await backend.search({ namespace: 'ns', query: 'text', limit: 10 })).records).toEqual([]);
    expect(backend.graph('ns').nodes.size).toBe(0);
    expect(backend.description).toMatchObject({ exposure: { rule: 'lexical' }, storeFilter: null, statusFields: [] });
  });
});
