import { describe, expect, it } from 'vitest';
import { createEmbeddedGraphStore } from './embedded-graph-store.js';
import type { ExtractedEdge, ExtractionModel } from './extraction-model.js';
import { createGraphitiBackend } from './graphiti-backend.js';
import { groupId } from './graphiti-ids.js';
import { createMockExtractionModel } from './test-support/graphiti.js';
import { createLexicalEmbedder } from './lexical-embedder.js';
import type { Episode } from './memory-backend.js';

const NOW = new Date('2026-09-01T12:00:00.000Z');
const EP0_TIME = new Date(NOW.getTime() - 90 * 86_400_000);
const V1 = 'Deployment approval requires only ONE reviewer.';
const V2 = 'Deployment approval requires TWO independent reviewers.';
const episode = (name: string, text: string, referenceTime: Date): Episode => ({
  name,
  text,
  referenceTime,
  sourceDescription: 'policy feed',
});
const EPISODES = [
  episode('s_ep0', `Doc A governs the Pipeline. It states: ${V1}`, EP0_TIME),
  episode('s_ep1', `Doc A was revised. For the Pipeline it states: ${V2}`, NOW),
];
const stated = (fact: string, validAt: Date | null, more: Partial<ExtractedEdge> = {}): ExtractedEdge => ({
  source: 'Doc A',
  target: 'the Pipeline',
  relation: 'STATES_POLICY',
  fact,
  validAt,
  invalidAt: null,
  ...more,
});

function setup(extraction: ExtractionModel) {
  const store = createEmbeddedGraphStore();
  const backend = createGraphitiBackend({
    embedder: createLexicalEmbedder(),
    runId: 'nat',
    workDir: '/tmp/unused',
    extraction,
    store,
  });
  // The engine lists a group's edges by uuid (as Graphiti's get_by_group_ids); the tests read them in fact order.
  const edges = async () =>
    (await store.getEdgesByGroup(groupId('nat', 'ns'))).sort((a, b) => a.fact.localeCompare(b.fact));
  return { store, backend, edges };
}

describe('graphiti natural mode (add_episode)', () => {
  it('invalidates v1 when ep1 is strictly later, and stores episodes verbatim with their reference times', async () => {
    const extraction = createMockExtractionModel({
      extractEdges: [[stated(V1, EP0_TIME)], [stated(V2, NOW)]],
      resolveEdge: { duplicates: [], contradicted: ['0'] },
    });
    const { store, backend, edges } = setup(extraction);
    await backend.open();
    const report = await backend.insert({ namespace: 'ns', now: NOW, writes: { mode: 'natural', episodes: EPISODES } });
    expect(report).toEqual({ stored: 2, extractor: 'mock-extractor', warnings: [] });
    expect(extraction.calls.extractEdges).toEqual([
      { episode: EPISODES[0]?.text, referenceTime: EP0_TIME, previousEpisodes: [] },
      { episode: EPISODES[1]?.text, referenceTime: NOW, previousEpisodes: [EPISODES[0]?.text] },
    ]);
    // v1 and v2 link the same two entities, so v1 is a duplicate candidate, not an invalidation candidate.
    expect(extraction.calls.resolveEdge).toEqual([
      { fact: V2, duplicateCandidates: [{ id: '0', content: V1 }], invalidationCandidates: [] },
    ]);
    const { records } = await backend.search({ namespace: 'ns', query: 'deployment approval reviewers', limit: 10 });
    const byText = new Map(records.map((record) => [record.text, record.fields]));
    expect(byText.get(V1)).toMatchObject({
      valid_at: EP0_TIME.toISOString(),
      invalid_at: NOW.toISOString(),
      expired_at: NOW.toISOString(),
      created_at: NOW.toISOString(),
    });
    expect(byText.get(V2)).toMatchObject({ valid_at: NOW.toISOString(), invalid_at: null, expired_at: null });
    expect(new Set(records.map((record) => record.fields.source_node_uuid)).size).toBe(1);
    const episodes = await store.retrieveEpisodes({ groupIds: [groupId('nat', 'ns')], referenceTime: NOW, lastN: 10 });
    expect(
      episodes.map(({ name, content, valid_at, source, source_description }) => ({
        name,
        content,
        valid_at,
        source,
        source_description,
      })),
    ).toEqual(
      EPISODES.map((e) => ({
        name: e.name,
        content: e.text,
        valid_at: e.referenceTime,
        source: 'text',
        source_description: 'policy feed',
      })),
    );
    const [ep0, ep1] = episodes;
    const [v1, v2] = await edges();
    expect([v1?.fact, v1?.episodes, v1?.reference_time, v2?.fact, v2?.episodes, v2?.reference_time]).toEqual([
      V1,
      [ep0?.uuid],
      EP0_TIME,
      V2,
      [ep1?.uuid],
      NOW,
    ]);
    expect(ep1?.entity_edges).toEqual([v2?.uuid, v1?.uuid]);
    // Graphiti's shape: one node per entity, one MENTIONS edge per episode and entity it names.
    expect((await store.getNodesByGroup(groupId('nat', 'ns'))).map((node) => node.name).sort()).toEqual([
      'Doc A',
      'the Pipeline',
    ]);
    const mentions = await store.getMentionsByGroup(groupId('nat', 'ns'));
    expect(
      mentions
        .map(
          (m) =>
            `${m.source_node_uuid === ep0?.uuid ? 'ep0' : 'ep1'}->${m.target_node_uuid === v1?.source_node_uuid ? 'Doc A' : 'the Pipeline'}`,
        )
        .sort(),
    ).toEqual(['ep0->Doc A', 'ep0->the Pipeline', 'ep1->Doc A', 'ep1->the Pipeline']);
    expect(
      (
        await backend.search({
          namespace: 'ns',
          query: 'deployment approval',
          limit: 10,
          filter: backend.description.storeFilter ?? {},
        })
      ).records.map((r) => r.text),
    ).toEqual([V2]);
  });

  it('keeps v1 valid when both episodes share a reference time', async () => {
    const extraction = createMockExtractionModel({
      extractEdges: [[stated(V1, NOW)], [stated(V2, NOW)]],
      resolveEdge: { duplicates: [], contradicted: ['0'] },
    });
    const { backend, edges } = setup(extraction);
    await backend.open();
    await backend.insert({
      namespace: 'ns',
      now: NOW,
      writes: { mode: 'natural', episodes: EPISODES.map((e) => ({ ...e, referenceTime: NOW })) },
    });
    expect(extraction.calls.resolveEdge).toHaveLength(1);
    expect((await edges()).map((edge) => [edge.fact, edge.expired_at, edge.invalid_at])).toEqual(
      [
        [V1, null, null],
        [V2, null, null],
      ].sort(([a], [b]) => String(a).localeCompare(String(b))),
    );
  });

  it('merges a duplicate into the existing edge instead of creating a second one', async () => {
    const extraction = createMockExtractionModel({
      extractEdges: [[stated(V1, EP0_TIME)], [stated('Only one reviewer approves deployments.', NOW)]],
      resolveEdge: { duplicates: ['0'], contradicted: [] },
    });
    const { backend, edges } = setup(extraction);
    await backend.open();
    const report = await backend.insert({ namespace: 'ns', now: NOW, writes: { mode: 'natural', episodes: EPISODES } });
    expect(report.stored).toBe(1);
    const [only] = await edges();
    expect(only).toMatchObject({ fact: V1, valid_at: EP0_TIME, expired_at: null });
    expect(only?.episodes).toHaveLength(2);
  });

  it('resolves entities by normalised name, splits duplicate from invalidation candidates, keeps self-edges (0.31)', async () => {
    const other = stated('The Pipeline deploys approval changes hourly.', EP0_TIME, {
      source: 'the  pipeline',
      target: 'Ops Team',
    });
    const extraction = createMockExtractionModel({
      extractEdges: [
        [stated(V1, EP0_TIME), other, stated('Doc A is Doc A.', NOW, { target: 'doc a' })],
        [stated(V2, NOW, { source: 'DOC A' })],
      ],
      resolveEdge: { duplicates: [], contradicted: ['0', '1'] },
    });
    const { store, backend, edges } = setup(extraction);
    await backend.open();
    await backend.insert({ namespace: 'ns', now: NOW, writes: { mode: 'natural', episodes: EPISODES } });
    expect(extraction.calls.resolveEdge[0]).toMatchObject({
      duplicateCandidates: [{ id: '0', content: V1 }],
      invalidationCandidates: [{ id: '1', content: other.fact }],
    });
    const saved = await edges();
    // graphiti-core 0.31 no longer drops an edge whose two names resolve to one entity.
    expect(saved.map((edge) => edge.fact)).toEqual([V1, V2, 'Doc A is Doc A.', other.fact]);
    const [v1, v2, self, moved] = saved;
    expect(self?.source_node_uuid).toBe(self?.target_node_uuid);
    expect(v2?.source_node_uuid).toBe(v1?.source_node_uuid);
    expect(moved?.source_node_uuid).toBe(v1?.target_node_uuid);
    expect((await store.getNodesByUuids([moved?.source_node_uuid ?? ''])).map((node) => node.name)).toEqual([
      'the Pipeline',
    ]);
    expect(saved.filter((edge) => edge.expired_at !== null).map((edge) => edge.fact)).toEqual([V1, other.fact]);
  });

  it('writes direct and natural into one namespace (write-back journals) and records unusable ids as warnings', async () => {
    const extraction = createMockExtractionModel({
      extractEdges: [stated(V2, NOW, { source: 'Policy subject', target: 'Policy rule' })],
      resolveEdge: { duplicates: ['5'], contradicted: ['0', '1'] },
    });
    const { backend, edges } = setup(extraction);
    await backend.open();
    await backend.insert({
      namespace: 'ns',
      now: NOW,
      writes: { mode: 'direct', revoked: [V1], current: ['Releases need a ticket.'] },
    });
    const report = await backend.insert({
      namespace: 'ns',
      now: NOW,
      writes: { mode: 'natural', episodes: [EPISODES[1] as Episode] },
    });
    expect(report.stored).toBe(3);
    // The only candidate the hybrid search finds for v2 is v1 (id 0): ids 5 and 1 are out of range.
    expect(report.warnings.map((warning) => [warning.feature, warning.message])).toEqual([
      ['resolve_edge', expect.stringContaining('duplicate ids outside 0..0: 5')],
      ['resolve_edge', expect.stringContaining('contradicted ids outside 0..0: 1')],
    ]);
    const saved = await edges();
    expect(new Set(saved.map((edge) => edge.source_node_uuid)).size).toBe(1);
    // v1 was seeded with invalid_at = now − 1 d, before v2's valid_at: no overlap, untouched. The ticket rule has valid_at = now: not earlier.
    expect(saved.map((edge) => [edge.fact, edge.invalid_at?.toISOString() ?? null])).toEqual([
      [V1, '2026-08-31T12:00:00.000Z'],
      [V2, null],
      ['Releases need a ticket.', null],
    ]);
  });

  it("searches ingestion candidates with the limit of the last search() (Graphiti.search overwrites the shared recipe's limit)", async () => {
    const others = ['one', 'two', 'three', 'four'].map((word) =>
      stated(`Deployment approval note ${word}.`, EP0_TIME, { target: `Team ${word}` }),
    );
    const candidates = async (readFirst: number | null) => {
      const extraction = createMockExtractionModel({ extractEdges: [others, [stated(V2, NOW)]] });
      const { backend } = setup(extraction);
      await backend.open();
      await backend.insert({ namespace: 'ns', now: NOW, writes: { mode: 'natural', episodes: [EPISODES[0]!] } });
      if (readFirst !== null) await backend.search({ namespace: 'ns', query: 'deployment approval', limit: readFirst });
      await backend.insert({ namespace: 'ns', now: NOW, writes: { mode: 'natural', episodes: [EPISODES[1]!] } });
      return extraction.calls.resolveEdge[0]?.invalidationCandidates.length;
    };
    expect(await candidates(null)).toBe(4);
    expect(await candidates(10)).toBe(4);
    expect(await candidates(2)).toBe(2);
  });
});
