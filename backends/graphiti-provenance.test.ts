// Taint-carrying write-back on graphiti (issue #19 item 1): provenance through the backend, resolved at read time.
import { describe, expect, it } from 'vitest';
import { applyStaleRetrievalGuard, memoryRecordToGuardInput } from '../guard/stale-retrieval-guard.js';
import { UnsupportedFeatureError } from '#core/errors.js';
import { createEmbeddedGraphStore } from './embedded-graph-store.js';
import type { GraphStore } from './graph-store.js';
import { createGraphitiBackend, groupId } from './graphiti-backend.js';
import { createLexicalEmbedder } from './lexical-embedder.js';
import type { MemoryBackend, MemoryRecord } from './memory-backend.js';
import { createSimExtractionModel } from './sim-extraction-model.js';

const NOW = new Date('2026-09-01T12:00:00.000Z');
const NS = 'deploy';
const V1 = 'Deployments may skip approval when the change is urgent.';
const V2 = 'Every deployment needs a second approval before it ships.';
const DISTRACTOR = 'Deployment windows are announced a week ahead.';
const QUERY = 'deployment approval policy';
const FILTER = { expired_at: [[{ operator: 'IS NULL' as const }]] };
const journal = (n: number) => `Decision record: for deployment approval policy, the approved action is skip (${n}).`;

async function seeded(): Promise<{ backend: MemoryBackend; store: GraphStore; ids: Record<string, string> }> {
  const store = createEmbeddedGraphStore();
  const backend = createGraphitiBackend({
    embedder: createLexicalEmbedder(),
    runId: 'taint',
    workDir: '/tmp/unused',
    extraction: createSimExtractionModel(),
    store,
  });
  await backend.open();
  await backend.insert({
    namespace: NS,
    now: NOW,
    writes: { mode: 'direct', revoked: [V1], current: [V2, DISTRACTOR], relation: 'POLICY' },
  });
  return { backend, store, ids: await idsByText(backend) };
}

async function idsByText(backend: MemoryBackend): Promise<Record<string, string>> {
  const listed = await backend.listRecords!(NS);
  return Object.fromEntries(listed.map(({ record }) => [record.text, record.id]));
}

const writeJournal = (backend: MemoryBackend, text: string, derivedFrom?: readonly string[]) =>
  backend.insert({
    namespace: NS,
    now: NOW,
    writes: { mode: 'direct', revoked: [], current: [text], relation: 'DECISION' },
    ...(derivedFrom ? { derivedFrom } : {}),
  });

const read = async (backend: MemoryBackend, options: { filtered?: boolean; taint?: boolean } = {}) =>
  (
    await backend.search({
      namespace: NS,
      query: QUERY,
      limit: 10,
      ...(options.filtered ? { filter: FILTER } : {}),
      ...(options.taint ? { taint: true } : {}),
    })
  ).records;

const byText = (records: readonly MemoryRecord[], text: string) => records.find((r) => r.text === text);
const guardReasons = (records: readonly MemoryRecord[]) =>
  Object.fromEntries(
    applyStaleRetrievalGuard(records.map(memoryRecordToGuardInput), {}, NOW).withheld.map((w) => [w.text, w.reason]),
  );

describe('graphiti: taint-carrying write-back', () => {
  it('a journal derived from a revoked record is left out of the filtered read and withheld by stage 1 as derived_from_revoked', async () => {
    const { backend, ids } = await seeded();
    await writeJournal(backend, journal(1), [ids[V1]!, ids[V2]!]);
    // Without taint nothing changes: the active DECISION edge is in the filtered read (the paper's leak).
    const plain = byText(await read(backend, { filtered: true }), journal(1));
    expect(plain).toBeDefined();
    expect(plain!.fields).not.toHaveProperty('derived_from_status');
    const filtered = await read(backend, { filtered: true, taint: true });
    expect(filtered.map((r) => r.text)).not.toContain(journal(1));
    expect(filtered.map((r) => r.text)).toEqual(expect.arrayContaining([V2, DISTRACTOR]));
    // The default read still returns it (as it returns v1), marked, and the guard's stage 1 withholds it.
    const defaults = await read(backend, { taint: true });
    expect(byText(defaults, journal(1))!.fields).toMatchObject({
      derived_from: JSON.stringify([ids[V1], ids[V2]]),
      derived_from_status: 'revoked',
      expired_at: null,
    });
    expect(byText(defaults, V2)!.fields).not.toHaveProperty('derived_from_status');
    expect(guardReasons(defaults)).toEqual({ [V1]: 'backend marked expired_at', [journal(1)]: 'derived_from_revoked' });
  });

  it('a journal whose source is revoked after the journal was written reads as revoked from then on', async () => {
    const { backend, store, ids } = await seeded();
    await writeJournal(backend, journal(1), [ids[V2]!]);
    expect(byText(await read(backend, { filtered: true, taint: true }), journal(1))?.fields).toMatchObject({
      derived_from_status: 'clean',
    });
    // Later, the store retires v2 (as Graphiti's edge resolution expires a contradicted edge).
    const group = groupId('taint', NS);
    const v2 = (await store.getEdgesByGroup(group)).find((edge) => edge.uuid === ids[V2])!;
    await store.saveEdges([{ ...v2, expired_at: NOW, invalid_at: NOW }]);
    const filtered = await read(backend, { filtered: true, taint: true });
    expect(filtered.map((r) => r.text)).not.toContain(journal(1));
    expect(guardReasons(await read(backend, { taint: true }))[journal(1)]).toBe('derived_from_revoked');
  });

  it('taint passes through journals: one derived only from a tainted journal is tainted too', async () => {
    const { backend, ids } = await seeded();
    await writeJournal(backend, journal(1), [ids[V1]!]);
    const first = (await idsByText(backend))[journal(1)]!;
    await writeJournal(backend, journal(2), [first, ids[DISTRACTOR]!]);
    await writeJournal(backend, journal(3), [ids[V2]!]);
    const untainted = (await read(backend, { filtered: true })).map((r) => r.text);
    expect(untainted).toEqual(expect.arrayContaining([journal(1), journal(2), journal(3)]));
    const filtered = (await read(backend, { filtered: true, taint: true })).map((r) => r.text);
    expect(filtered).not.toContain(journal(1));
    expect(filtered).not.toContain(journal(2));
    expect(filtered).toContain(journal(3));
  });

  it('a journal with no provenance list (old data) is not clean: unknown, left out of the filtered read, withheld as derived_from_unknown', async () => {
    const { backend, ids } = await seeded();
    await writeJournal(backend, journal(1)); // a writer without taint, e.g. an earlier run
    await writeJournal(backend, journal(2), [ids[V2]!, 'no-such-record']); // names a record the store does not hold
    const defaults = await read(backend, { taint: true });
    expect(byText(defaults, journal(1))!.fields).toMatchObject({ derived_from: null, derived_from_status: 'unknown' });
    expect(byText(defaults, journal(2))!.fields).toMatchObject({ derived_from_status: 'unknown' });
    const reasons = guardReasons(defaults);
    expect(reasons[journal(1)]).toBe('derived_from_unknown');
    expect(reasons[journal(2)]).toBe('derived_from_unknown');
    const filtered = (await read(backend, { filtered: true, taint: true })).map((r) => r.text);
    expect(filtered).not.toContain(journal(1));
    expect(filtered).not.toContain(journal(2));
    // Without taint the read is exactly today's: the same records, no provenance fields.
    const plain = await read(backend, { filtered: true });
    expect(plain.map((r) => r.text)).toEqual(expect.arrayContaining([journal(1), journal(2)]));
    expect(plain.every((r) => !('derived_from_status' in r.fields))).toBe(true);
  });

  it('reset drops the provenance with the group; a natural write with provenance is refused, never dropped', async () => {
    const { backend, ids } = await seeded();
    await writeJournal(backend, journal(1), [ids[V2]!]);
    await backend.reset(NS);
    await backend.insert({
      namespace: NS,
      now: NOW,
      writes: { mode: 'direct', revoked: [], current: [journal(1)], relation: 'DECISION' },
    });
    expect(byText(await read(backend, { taint: true }), journal(1))!.fields).toMatchObject({
      derived_from_status: 'unknown',
    });
    await expect(
      backend.insert({
        namespace: NS,
        now: NOW,
        writes: {
          mode: 'natural',
          episodes: [{ name: 'j', text: journal(2), referenceTime: NOW, sourceDescription: 'x' }],
        },
        derivedFrom: [ids[V2]!],
      }),
    ).rejects.toThrow(UnsupportedFeatureError);
    expect(backend.description.provenance).toMatchObject({
      direct: { supported: true },
      natural: { supported: false },
    });
  });
});
