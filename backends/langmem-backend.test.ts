import { describe, expect, it } from 'vitest';
import { EvalError, UnsupportedFeatureError } from '#core/errors.js';
import { createEmbeddedVectorStore } from './embedded-vector-store.js';
import type { Consolidation, ExistingMemory, ExtractionModel } from './extraction-model.js';
import { createLangmemBackend } from './langmem-backend.js';
import { humanMessageRepr } from './langmem-manager.js';
import { fromJsonLike, pythonJsonDumps, pythonStr } from '#python-compat/index.js';
import { createLexicalEmbedder } from './lexical-embedder.js';
import { runBackendConformance } from './memory-backend.conformance.js';
import type { Episode, MemoryBackend } from './memory-backend.js';
import { createSimExtractionModel } from './sim-extraction-model.js';
import type { VectorStore } from './vector-store.js';

const NOW = new Date('2026-09-01T12:00:00.000Z');
const lexical = createLexicalEmbedder();
const langmem = (runId: string, vectors?: VectorStore, extraction: ExtractionModel = createSimExtractionModel()) =>
  createLangmemBackend({ embedder: lexical, runId, workDir: '/tmp/unused', extraction, vectors });

runBackendConformance({
  name: 'langmem (embedded vector store)',
  create: () => langmem('conformance'),
  createSharedPair: () => {
    const vectors = createEmbeddedVectorStore();
    return [langmem('run_a', vectors), langmem('run_b', vectors)];
  },
  skip: [
    {
      reason: 'direct seeding hard-deletes the revoked fact (langmem has no soft revocation)',
      tests: ['default search returns revoked and current facts'],
    },
    {
      reason: 'filtered read is the default read: no status marker exists',
      tests: ['store filter excludes the revoked fact'],
    },
  ],
});

/** An extraction model whose consolidate answers are scripted (one per call) and whose calls are recorded. */
function scriptedExtraction(answers: ((existing: readonly ExistingMemory[]) => Consolidation)[]) {
  const calls: { existing: ExistingMemory[]; message: string }[] = [];
  const model: ExtractionModel = {
    ...createSimExtractionModel(),
    id: 'scripted',
    consolidate: async ({ existing, message }) => {
      calls.push({ existing: [...existing], message });
      const answer = answers[calls.length - 1];
      if (!answer) throw new Error('unexpected consolidate call');
      return answer(existing);
    },
  };
  return { model, calls };
}

const episode = (text: string): Episode => ({ name: 'ep', text, referenceTime: NOW, sourceDescription: 'policy feed' });

async function opened<T extends MemoryBackend>(backend: T): Promise<T> {
  await backend.open();
  return backend;
}

describe('langmem backend', () => {
  it('direct: puts v1, distractors, v2 as {content}, then hard-deletes v1; records carry timestamps and score only', async () => {
    const vectors = createEmbeddedVectorStore();
    const backend = await opened(langmem('r1', vectors));
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
    const points = await vectors.scroll('langmem_store');
    expect(points.map((point) => point.payload.value)).toEqual([
      { content: 'VPN is required.' },
      { content: 'MFA is always required.' },
    ]);
    expect(points[0]?.payload.namespace).toEqual(['r1', 'ns', 'rebirth', 'policies']);
    const { records } = await backend.search({ namespace: 'ns', query: 'MFA waived required', limit: 10 });
    expect(records.map((record) => record.text)).toEqual(['MFA is always required.', 'VPN is required.']);
    const [v2] = records;
    expect(Object.keys(v2?.fields ?? {})).toEqual(['created_at', 'updated_at', 'score']);
    // One 1 ms store tick per put: v1 at NOW, the distractor at +1 ms, v2 at +2 ms.
    expect(v2?.fields).toMatchObject({
      created_at: '2026-09-01T12:00:00.002Z',
      updated_at: '2026-09-01T12:00:00.002Z',
    });
    expect(typeof v2?.fields.score).toBe('number');
  });

  it('natural: the manager searches with the message repr, rewrites in place and inserts {kind, content: {content}}', async () => {
    const vectors = createEmbeddedVectorStore();
    const { model, calls } = scriptedExtraction([
      () => ({ updates: [], inserts: ['Old rule: one reviewer.', 'Logs live in eu-west.'] }),
      (existing) => ({
        updates: [
          { id: existing.find((m) => m.content.startsWith('Old'))?.id ?? '', content: 'New rule: two reviewers.' },
        ],
        inserts: [],
      }),
    ]);
    const backend = await opened(langmem('r1', vectors, model));
    const report = await backend.insert({
      namespace: 'ns',
      now: NOW,
      writes: { mode: 'natural', episodes: [episode('first'), episode('second')] },
    });
    expect(report).toEqual({ stored: 2, extractor: 'scripted', warnings: [] });
    expect(calls.map((call) => call.message)).toEqual(['first', 'second']);
    expect(calls[1]?.existing.map((memory) => memory.content).sort()).toEqual([
      'Logs live in eu-west.',
      'Old rule: one reviewer.',
    ]);
    const points = await vectors.scroll('langmem_store');
    expect(points.map((point) => point.payload.value)).toEqual([
      { kind: 'Memory', content: { content: 'New rule: two reviewers.' } },
      { kind: 'Memory', content: { content: 'Logs live in eu-west.' } },
    ]);
    // InMemoryStore re-creates an item on put, so the rewrite resets created_at as well (second episode: +1 ms).
    expect(points[0]?.payload).toMatchObject({
      created_at: '2026-09-01T12:00:00.001Z',
      updated_at: '2026-09-01T12:00:00.001Z',
    });
    expect(points[1]?.payload).toMatchObject({ created_at: NOW.toISOString() });
    const { records } = await backend.search({ namespace: 'ns', query: 'reviewers rule', limit: 10 });
    expect(records[0]?.text).toBe("{'content': 'New rule: two reviewers.'}");
  });

  it('offers the model at most query_limit memories, best first', async () => {
    const { model, calls } = scriptedExtraction([
      () => ({ updates: [], inserts: ['alpha one', 'alpha two', 'beta three', 'gamma four'] }),
      () => ({ updates: [], inserts: [] }),
    ]);
    const backend = await opened(
      createLangmemBackend({
        embedder: lexical,
        runId: 'r1',
        workDir: '/tmp/unused',
        extraction: model,
        queryLimit: 2,
      }),
    );
    await backend.insert({
      namespace: 'ns',
      now: NOW,
      writes: { mode: 'natural', episodes: [episode('x'), episode('alpha')] },
    });
    expect(calls[1]?.existing.map((memory) => memory.content).sort()).toEqual(['alpha one', 'alpha two']);
  });

  it('fails like langmem when the manager meets a value without kind, and refuses filters and use before open', async () => {
    const backend = langmem('r1');
    await expect(backend.search({ namespace: 'ns', query: 'q', limit: 1 })).rejects.toBeInstanceOf(EvalError);
    await backend.open();
    await backend.insert({
      namespace: 'ns',
      now: NOW,
      writes: { mode: 'direct', revoked: [], current: ['plain memory'] },
    });
    await expect(
      backend.insert({ namespace: 'ns', now: NOW, writes: { mode: 'natural', episodes: [episode('plain memory')] } }),
    ).rejects.toMatchObject({ code: 'langmem-manager-value' });
    await expect(
      backend.search({ namespace: 'ns', query: 'q', limit: 1, filter: { expired_at: [[{ operator: 'IS NULL' }]] } }),
    ).rejects.toBeInstanceOf(UnsupportedFeatureError);
    expect(backend.description).toMatchObject({
      exposure: { rule: 'lexical' },
      storeFilter: null,
      statusFields: [],
      modes: { natural: { supported: true } },
    });
    expect(backend.description.summary).toContain('enable_deletes=True');
  });

  it('lists in stored order without scores for an empty query, as InMemoryStore does', async () => {
    const backend = await opened(langmem('r1'));
    await backend.insert({
      namespace: 'ns',
      now: NOW,
      writes: { mode: 'direct', revoked: [], current: ['b text', 'a text', 'c text'] },
    });
    const { records } = await backend.search({ namespace: 'ns', query: '', limit: 2 });
    expect(records.map((record) => [record.text, record.fields.score])).toEqual([
      ['a text', null],
      ['c text', null],
    ]);
  });
});

describe('python text forms (python-compat, as langmem-store and toRecord call it)', () => {
  const dumps = (value: unknown) => pythonJsonDumps(fromJsonLike(value), { sortKeys: true });
  const str = (value: unknown) => pythonStr(fromJsonLike(value));
  it('dumps JSON with sorted keys and Python separators, and reprs dicts with Python quoting', () => {
    expect(dumps({ kind: 'Memory', content: { content: 'A "q"\n é' }, n: [1, null, true] })).toBe(
      '{"content": {"content": "A \\"q\\"\\n é"}, "kind": "Memory", "n": [1, null, true]}',
    );
    expect(str('plain')).toBe('plain');
    expect(str({ content: "don't" })).toBe(`{'content': "don't"}`);
    expect(str({ content: `it's "x"` })).toBe(`{'content': 'it\\'s "x"'}`);
    expect(str({ a: [1, null, true] })).toBe("{'a': [1, None, True]}");
  });

  it('prints what the old langmem copy printed wrong, as CPython 3.11 does', () => {
    // python3 -c "print(str({'s': 1e-07, 'x': float('nan'), 'c': '\x85'}))" → {'s': 1e-07, 'x': nan, 'c': '\x85'}
    expect(str({ s: 1e-7, x: Number.NaN, c: '\x85' })).toBe("{'s': 1e-07, 'x': nan, 'c': '\\x85'}"); // old: 1e-7, NaN, raw U+0085
    // python3 -c "import json; print(json.dumps({'\uffff': 1, '\U0001f600': 2, 'a': 1e-07}, sort_keys=True, ensure_ascii=False))"
    expect(dumps({ '\uffff': 1, '\u{1F600}': 2, a: 1e-7 })).toBe('{"a": 1e-07, "\uffff": 1, "\u{1F600}": 2}'); // old: UTF-16 key order, 1e-7
  });

  it('renders a human message as langchain-core pretty_repr', () => {
    expect(humanMessageRepr('hi')).toBe(`${'='.repeat(32)} Human Message ${'='.repeat(33)}\n\nhi`);
  });
});
