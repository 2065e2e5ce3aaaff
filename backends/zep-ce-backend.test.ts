import { describe, expect, it } from 'vitest';
import { UnsupportedFeatureError } from '#core/errors.js';
import { loadScenarios } from '../scenarios/index.js';
import { PAPER_SCENARIO_IDS } from '../scenarios/test-support/paper-scenarios.js';
import { createEmbeddedGraphStore } from './embedded-graph-store.js';
import type { ExtractionModel } from './extraction-model.js';
import { groupId } from './graphiti-ids.js';
import { createMockExtractionModel, naturalRevocations, withFullRangeContradictions } from './test-support/graphiti.js';
import { createLexicalEmbedder } from './lexical-embedder.js';
import { runBackendConformance } from './memory-backend.conformance.js';
import type { Episode } from './memory-backend.js';
import { createSimExtractionModel } from './sim-extraction-model.js';
import { createZepCeBackend } from './zep-ce-backend.js';

const NOW = new Date('2026-09-01T12:00:00.000Z');
// Measured per scenario: the paper's nine (stale-retrieval.md §4), whatever else is registered.
const SCENARIOS = await loadScenarios({ ids: PAPER_SCENARIO_IDS });
const zep = (extraction: ExtractionModel = createSimExtractionModel(), settleMs?: number) => {
  const store = createEmbeddedGraphStore();
  const backend = createZepCeBackend({
    embedder: createLexicalEmbedder(),
    runId: 'zep',
    workDir: '/tmp/unused',
    extraction,
    store,
    ...(settleMs === undefined ? {} : { settleMs }),
  });
  return { backend, store };
};
const NO_DIRECT =
  "direct seeding is not supported: Zep CE's API cannot write a pre-revoked fact (stale-retrieval.md §3.5)";

runBackendConformance({
  name: 'zep-ce (embedded store)',
  create: () => zep().backend,
  skip: [
    {
      reason: NO_DIRECT,
      tests: [
        'default search returns revoked and current facts',
        'reset empties a namespace',
        'namespaces are isolated',
        'run ids isolate backends sharing one engine',
        'search honours limit',
      ],
    },
    {
      reason: 'Zep CE has no store-level filter (MemoryFilterOptions is an empty struct)',
      tests: ['store filter excludes the revoked fact'],
    },
  ],
});

const V1 = 'Deployment approval requires only ONE reviewer.';
const V2 = 'Deployment approval requires TWO independent reviewers.';
const EPISODES: Episode[] = [
  {
    name: 's_ep0',
    text: `Doc A governs the Pipeline. It states: ${V1}`,
    referenceTime: new Date(NOW.getTime() - 90 * 86_400_000),
    sourceDescription: 'policy feed',
  },
  {
    name: 's_ep1',
    text: `Doc A was revised. For the Pipeline it states: ${V2}`,
    referenceTime: NOW,
    sourceDescription: 'policy feed',
  },
];
const stub = () =>
  createMockExtractionModel({
    extractEdges: ({ episode, referenceTime }) => [
      {
        source: 'Doc A',
        target: 'the Pipeline',
        relation: 'STATES',
        fact: episode.includes(V1) ? V1 : V2,
        validAt: referenceTime,
        invalidAt: null,
      },
    ],
    resolveEdge: { duplicates: [], contradicted: ['0'] },
  });

describe('zep-ce backend', () => {
  it('posts each episode as a user message dated by the sidecar clock, 45 s apart, and v2 retires v1', async () => {
    const extraction = stub();
    const { backend, store } = zep(extraction);
    await backend.open();
    const report = await backend.insert({ namespace: 'ns', now: NOW, writes: { mode: 'natural', episodes: EPISODES } });
    expect(report).toEqual({ stored: 2, extractor: 'mock-extractor', warnings: [] });
    const later = new Date(NOW.getTime() + 45_000);
    expect(extraction.calls.extractEdges).toEqual([
      { episode: `user(user): ${EPISODES[0]?.text}`, referenceTime: NOW, previousEpisodes: [] },
      {
        episode: `user(user): ${EPISODES[1]?.text}`,
        referenceTime: later,
        previousEpisodes: [`user(user): ${EPISODES[0]?.text}`],
      },
    ]);
    const episodes = await store.retrieveEpisodes({
      groupIds: [groupId('zep', 'ns')],
      referenceTime: later,
      lastN: 10,
    });
    expect(episodes.map(({ name, source, source_description }) => ({ name, source, source_description }))).toEqual([
      { name: '', source: 'message', source_description: '' },
      { name: '', source: 'message', source_description: '' },
    ]);
    const v1 = (await store.getEdgesByGroup(groupId('zep', 'ns'))).find((edge) => edge.fact === V1);
    expect(v1).toMatchObject({ fact: V1, valid_at: NOW, invalid_at: later, expired_at: later, reference_time: NOW });
  });

  it('returns only fact, uuid and created_at (= valid_at), never the status fields', async () => {
    const { backend, store } = zep(stub());
    await backend.open();
    await backend.insert({ namespace: 'ns', now: NOW, writes: { mode: 'natural', episodes: EPISODES } });
    const { records } = await backend.search({ namespace: 'ns', query: 'deployment approval reviewers', limit: 10 });
    const edges = new Map((await store.getEdgesByGroup(groupId('zep', 'ns'))).map((edge) => [edge.uuid, edge]));
    expect(records.map((record) => record.text).sort()).toEqual([V1, V2].sort());
    for (const record of records) {
      expect(Object.keys(record.fields).sort()).toEqual(['created_at', 'fact', 'uuid']);
      for (const hidden of ['expired_at', 'invalid_at', 'valid_at', 'expiration_date'])
        expect(record.fields).not.toHaveProperty(hidden);
      expect(record.fields).toEqual({
        fact: record.text,
        uuid: record.id,
        created_at: edges.get(record.id)?.valid_at?.toISOString(),
      });
    }
    expect(backend.description).toMatchObject({
      storeFilter: null,
      statusFields: [],
      exposure: { rule: 'oracle', fields: ['expired_at', 'invalid_at'] },
    });
  });

  it('revocationOracle agrees with the graph, by uuid and by fact text', async () => {
    const { backend, store } = zep(stub());
    await backend.open();
    await backend.insert({ namespace: 'ns', now: NOW, writes: { mode: 'natural', episodes: EPISODES } });
    const { records } = await backend.search({ namespace: 'ns', query: 'deployment approval reviewers', limit: 10 });
    const edges = new Map((await store.getEdgesByGroup(groupId('zep', 'ns'))).map((edge) => [edge.uuid, edge]));
    const truth = records.map((record) => {
      const edge = edges.get(record.id);
      return edge?.expired_at !== null || edge.invalid_at !== null;
    });
    expect(await backend.revocationOracle?.('ns', records)).toEqual(truth);
    expect(truth.filter(Boolean)).toHaveLength(1);
    const byText = [
      { id: 'not-an-edge', text: V1, fields: {} },
      { id: 'not-an-edge', text: V2, fields: {} },
    ];
    expect(await backend.revocationOracle?.('ns', byText)).toEqual([true, false]);
    expect(await backend.revocationOracle?.('other', records)).toEqual(records.map(() => false));
  });

  it('with messages posted at the same instant, the date arithmetic keeps v1 valid', async () => {
    const { backend, store } = zep(stub(), 0);
    await backend.open();
    await backend.insert({ namespace: 'ns', now: NOW, writes: { mode: 'natural', episodes: EPISODES } });
    const edges = (await store.getEdgesByGroup(groupId('zep', 'ns'))).map((edge) => [
      edge.fact,
      edge.expired_at,
      edge.invalid_at,
    ]);
    expect(edges.sort(([a], [b]) => String(a).localeCompare(String(b)))).toEqual([
      [V1, null, null],
      [V2, null, null],
    ]);
  });

  it('refuses direct seeding and filters as typed errors; reset and namespaces work on natural seeding', async () => {
    const { backend } = zep(stub());
    await backend.open();
    await expect(
      backend.insert({ namespace: 'ns', now: NOW, writes: { mode: 'direct', revoked: [V1], current: [V2] } }),
    ).rejects.toBeInstanceOf(UnsupportedFeatureError);
    await backend.insert({ namespace: 'ns', now: NOW, writes: { mode: 'natural', episodes: EPISODES } });
    const read = (namespace: string, limit = 10) => backend.search({ namespace, query: 'deployment approval', limit });
    await expect(
      backend.search({ namespace: 'ns', query: 'q', limit: 10, filter: { expired_at: [[{ operator: 'IS NULL' }]] } }),
    ).rejects.toBeInstanceOf(UnsupportedFeatureError);
    expect((await read('ns', 1)).records).toHaveLength(1);
    expect((await read('second')).records).toEqual([]);
    await backend.reset('ns');
    expect((await read('ns')).records).toEqual([]);
    await backend.close();
  });

  it('nine scenarios with the sim extractor: revocation recorded in the graph and exposed through the oracle', async () => {
    const count = async (extraction: ExtractionModel) => {
      const { backend, store } = zep(extraction);
      await backend.open();
      const rows = await naturalRevocations(backend, store, 'zep', SCENARIOS, NOW);
      let exposed = 0;
      // naturalRevocations leaves every namespace seeded: label each default read with the oracle.
      for (const scenario of SCENARIOS) {
        const { records } = await backend.search({ namespace: scenario.id, query: scenario.query, limit: 10 });
        if ((await backend.revocationOracle?.(scenario.id, records))?.some(Boolean)) exposed += 1;
      }
      const revoked = rows.filter((row) => row.revoked.length > 0).length;
      const partial = rows.filter((row) => row.v1Revoked.length > 0 && row.v1Valid.length > 0).length;
      console.log(
        `zep-ce natural, ${extraction.id}: revoked edge in the graph in ${revoked}/9 (paper: 6/9), partial in ${partial}; oracle-labelled exposure in the default read in ${exposed}/9`,
      );
      return { revoked, partial, exposed };
    };
    const fullRange = await count(withFullRangeContradictions(createSimExtractionModel()));
    // sim-extractor-v3 also finds instruction_injection_in_memory's contradiction (v2: revoked 8, exposed 6).
    expect(fullRange).toEqual({ revoked: 9, partial: 8, exposed: 7 });
    // The sim's own resolveEdge judges both candidate lists (as Graphiti's prompt does): the same counts without the wrapper.
    expect(await count(createSimExtractionModel())).toEqual({ revoked: 9, partial: 8, exposed: 7 });
  });
});
