import { describe, expect, it } from 'vitest';
import { EvalError, UnsupportedFeatureError } from '#core/errors.js';
import { createEmbeddedGraphStore } from './embedded-graph-store.js';
import type { Embedder } from './embedder.js';
import type { GraphStore } from './graph-store.js';
import { createGraphitiBackend, groupId } from './graphiti-backend.js';
import { createLexicalEmbedder } from './lexical-embedder.js';
import { runBackendConformance } from './memory-backend.conformance.js';
import type { MemoryBackend } from './memory-backend.js';
import { createSimExtractionModel } from './sim-extraction-model.js';

const NOW = new Date('2026-09-01T12:00:00.000Z');
const lexical = createLexicalEmbedder();
const graphiti = (runId: string, store?: GraphStore, embedder: Embedder = lexical) =>
  createGraphitiBackend({ embedder, runId, workDir: '/tmp/unused', extraction: createSimExtractionModel(), store });

runBackendConformance({
  name: 'graphiti (embedded store)',
  create: () => graphiti('conformance'),
  createSharedPair: () => {
    const store = createEmbeddedGraphStore();
    return [graphiti('run_a', store), graphiti('run_b', store)];
  },
});

/** Maps chosen texts to fixed vectors; everything else is orthogonal to the query vector [1, 0, 0, 0]. */
const stubEmbedder = (vectors: Record<string, number[]>): Embedder => ({
  id: 'stub',
  dimensions: 4,
  embed: async (texts) => texts.map((text) => vectors[text] ?? [0, 0, 0, 1]),
});

/** A store that records the search calls it receives. */
function recordingStore(): GraphStore & {
  calls: { method: string; limit: number; minScore?: number; filter?: unknown }[];
  nodeSaves: number;
} {
  const inner = createEmbeddedGraphStore();
  const calls: { method: string; limit: number; minScore?: number; filter?: unknown }[] = [];
  const store = {
    ...inner,
    calls,
    nodeSaves: 0,
    saveNodes: async (nodes: Parameters<GraphStore['saveNodes']>[0]) => {
      store.nodeSaves += 1;
      await inner.saveNodes(nodes);
    },
    searchEdgesFulltext: async (search: Parameters<GraphStore['searchEdgesFulltext']>[0]) => {
      calls.push({ method: 'fulltext', limit: search.limit, filter: search.filter });
      return inner.searchEdgesFulltext(search);
    },
    searchEdgesBySimilarity: async (search: Parameters<GraphStore['searchEdgesBySimilarity']>[0]) => {
      calls.push({ method: 'similarity', limit: search.limit, minScore: search.minScore, filter: search.filter });
      return inner.searchEdgesBySimilarity(search);
    },
  };
  return store;
}

async function opened(backend: MemoryBackend): Promise<MemoryBackend> {
  await backend.open();
  return backend;
}

describe('graphiti backend', () => {
  it('seeds v1 pre-revoked 90 days back and v2 current, and exposes the status fields', async () => {
    const backend = await opened(graphiti('r1'));
    await backend.insert({
      namespace: 'ns',
      now: NOW,
      writes: { mode: 'direct', revoked: ['MFA may be waived.'], current: ['MFA is always required.'] },
    });
    const { records } = await backend.search({ namespace: 'ns', query: 'MFA waived required', limit: 10 });
    const byText = new Map(records.map((record) => [record.text, record.fields]));
    expect(byText.get('MFA may be waived.')).toMatchObject({
      fact: 'MFA may be waived.',
      name: 'POLICY',
      group_id: 'r1__ns',
      created_at: '2026-06-03T12:00:00.000Z',
      valid_at: '2026-06-03T12:00:00.000Z',
      invalid_at: '2026-08-31T12:00:00.000Z',
      expired_at: '2026-08-31T12:00:00.000Z',
    });
    expect(byText.get('MFA is always required.')).toMatchObject({
      created_at: NOW.toISOString(),
      valid_at: NOW.toISOString(),
      invalid_at: null,
      expired_at: null,
    });
  });

  it('ranks by RRF of BM25 and the strict cosine gate on Neo4j scores (1 + cos) / 2', async () => {
    const embedder = stubEmbedder({
      alpha: [1, 0, 0, 0],
      'alpha alpha beta': [0, 1, 0, 0], // BM25 rank 1; cosine score 0.5, gated out
      'alpha gamma delta epsilon zeta': [2, 0, 0, 0], // BM25 rank 2; cosine score 1 (rank 1)
      'unrelated words here': [1, 4, 2, 2], // cos 1/5: score exactly 0.6, gated out (strict >)
      'other unrelated text': [3, 4, 0, 0], // cos 3/5: score 0.8 (rank 2)
      'just above the gate': [1.01, 4, 2, 2], // score 0.60096 (rank 3)
    });
    const backend = await opened(graphiti('r1', undefined, embedder));
    const current = [
      'alpha alpha beta',
      'alpha gamma delta epsilon zeta',
      'unrelated words here',
      'other unrelated text',
      'just above the gate',
    ];
    await backend.insert({ namespace: 'ns', now: NOW, writes: { mode: 'direct', revoked: [], current } });
    const { records } = await backend.search({ namespace: 'ns', query: 'alpha', limit: 10 });
    // RRF: gamma 1/2 + 1/1 = 1.5; alpha-beta 1/1 = 1; other 1/2; above 1/3.
    expect(records.map((record) => record.text)).toEqual([
      'alpha gamma delta epsilon zeta',
      'alpha alpha beta',
      'other unrelated text',
      'just above the gate',
    ]);
    // Ties keep first-seen order, BM25 list first: alpha-beta (BM25 rank 1) and gamma (cosine rank 1) tie at 1.
    const tie = await opened(
      graphiti('r2', undefined, stubEmbedder({ alpha: [1, 0, 0, 0], 'cosine only': [1, 0, 0, 0] })),
    );
    await tie.insert({
      namespace: 'ns',
      now: NOW,
      writes: { mode: 'direct', revoked: [], current: ['cosine only', 'alpha text'] },
    });
    expect(
      (await tie.search({ namespace: 'ns', query: 'alpha', limit: 10 })).records.map((record) => record.text),
    ).toEqual(['alpha text', 'cosine only']);
  });

  it('asks each branch for 2 × limit candidates with min score 0.6 and the same filter', async () => {
    const store = recordingStore();
    const backend = await opened(graphiti('r1', store));
    const filter = { expired_at: [[{ operator: 'IS NULL' as const }]] };
    await backend.search({ namespace: 'ns', query: 'anything', limit: 3, filter });
    expect(store.calls).toEqual([
      { method: 'fulltext', limit: 6, filter },
      { method: 'similarity', limit: 6, minScore: 0.6, filter },
    ]);
  });

  it('applies expired_at filters and refuses expiration_date', async () => {
    const backend = await opened(graphiti('r1'));
    await backend.insert({
      namespace: 'ns',
      now: NOW,
      writes: { mode: 'direct', revoked: ['old rule text'], current: ['new rule text'] },
    });
    const read = async (filter: Parameters<MemoryBackend['search']>[0]['filter']) =>
      (await backend.search({ namespace: 'ns', query: 'rule', limit: 10, filter })).records.map(
        (record) => record.text,
      );
    expect(await read(backend.description.storeFilter ?? undefined)).toEqual(['new rule text']);
    expect(await read({ expired_at: [[{ operator: 'IS NOT NULL' }]] })).toEqual(['old rule text']);
    expect(await read({ valid_at: [[{ operator: '>', date: new Date(NOW.getTime() - 86_400_000) }]] })).toEqual([
      'new rule text',
    ]);
    await expect(read({ expiration_date: [[{ operator: 'IS NULL' }]] })).rejects.toBeInstanceOf(
      UnsupportedFeatureError,
    );
  });

  it('reuses the two policy nodes for later inserts (write-back journals) and names DECISION edges', async () => {
    const store = recordingStore();
    const backend = await opened(graphiti('r1', store));
    await backend.insert({
      namespace: 'ns',
      now: NOW,
      writes: { mode: 'direct', revoked: ['v1 rule'], current: ['v2 rule'] },
    });
    const journal = 'Decision record: for mfa waiver access, the approved action is REQUIRE_MFA. Rationale: rule';
    await backend.insert({
      namespace: 'ns',
      now: NOW,
      writes: { mode: 'direct', revoked: [], current: [journal], relation: 'DECISION' },
    });
    expect(store.nodeSaves).toBe(1);
    const { records } = await backend.search({ namespace: 'ns', query: 'rule', limit: 10 });
    expect(records.find((record) => record.text === journal)?.fields).toMatchObject({
      name: 'DECISION',
      expired_at: null,
    });
    expect(new Set(records.map((record) => record.fields.source_node_uuid)).size).toBe(1);
  });

  it('lists every edge of a namespace with its revocation state, for measurement only', async () => {
    const backend = await opened(graphiti('r1'));
    await backend.insert({
      namespace: 'ns',
      now: NOW,
      writes: { mode: 'direct', revoked: ['v1 rule'], current: ['v2 rule'] },
    });
    await backend.insert({
      namespace: 'other',
      now: NOW,
      writes: { mode: 'direct', revoked: [], current: ['elsewhere'] },
    });
    const listed = await backend.listRecords!('ns');
    expect(listed.map(({ record, revoked }) => [record.text, revoked]).sort()).toEqual([
      ['v1 rule', true],
      ['v2 rule', false],
    ]);
  });

  it('derives ids from run, namespace, relation, fact and sequence', async () => {
    const ids = async (runId: string) => {
      const backend = await opened(graphiti(runId));
      await backend.insert({
        namespace: 'ns',
        now: NOW,
        writes: { mode: 'direct', revoked: ['same'], current: ['same'] },
      });
      return (await backend.search({ namespace: 'ns', query: 'same', limit: 10 })).records
        .map((record) => record.id)
        .sort();
    };
    const first = await ids('r1');
    expect(first).toHaveLength(2);
    expect(first[0]).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-8[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(await ids('r1')).toEqual(first);
    expect(await ids('r2')).not.toEqual(first);
  });

  it('puts a per-namespace write counter at the head of edge uuids, so identical facts tie in write order in every run', async () => {
    const order = async (runId: string) => {
      const backend = await opened(graphiti(runId));
      for (const fact of ['same rule', 'other rule', 'same rule', 'same rule'])
        await backend.insert({ namespace: 'ns', now: NOW, writes: { mode: 'direct', revoked: [], current: [fact] } });
      const { records } = await backend.search({ namespace: 'ns', query: 'same rule', limit: 10 });
      return records.map((record) => `${record.text}#${Number.parseInt(record.id.slice(0, 8), 16)}`);
    };
    // Both branches tie the three copies (same BM25 score, same embedding); the fused order must not depend on the run id.
    const first = await order('r1');
    expect(
      first
        .filter((entry) => entry.startsWith('same'))
        .map((entry) => entry.split('#')[1])
        .sort(),
    ).toEqual(['0', '2', '3']);
    expect(await order('a_much_longer_run_id_2')).toEqual(first);
  });

  it('describes itself, supports both modes and refuses use before open', async () => {
    const backend = graphiti('r1');
    expect(backend.description).toMatchObject({
      exposure: { rule: 'status', field: 'expired_at' },
      storeFilter: { expired_at: [[{ operator: 'IS NULL' }]] },
      statusFields: ['expired_at', 'invalid_at', 'valid_at'],
      modes: { direct: { supported: true }, natural: { supported: true } },
    });
    await expect(backend.search({ namespace: 'ns', query: 'q', limit: 1 })).rejects.toBeInstanceOf(EvalError);
    const episode = { name: 'x_ep0', text: 'text', referenceTime: NOW, sourceDescription: 'policy feed' };
    await expect(
      backend.insert({ namespace: 'ns', now: NOW, writes: { mode: 'natural', episodes: [episode] } }),
    ).rejects.toBeInstanceOf(EvalError);
  });

  it('builds valid single-token group ids from any run id', () => {
    expect(groupId('r1', 'mfa_waiver_access')).toBe('r1__mfa_waiver_access');
    expect(groupId('2026-09-01.run', 'ns')).toMatch(/^2026_09_01_run_[0-9a-f]{8}__ns$/);
    expect(groupId('a__b', 'c')).not.toBe(groupId('a', 'b__c'));
  });
});
