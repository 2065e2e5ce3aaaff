// Interop (a): graphiti-core 0.31.2 itself writes the paper's direct scenarios on the test Neo4j; stalebench reads them.
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { loadScenarios } from '../scenarios/index.js';
import type { Scenario } from '../scenarios/scenario.js';
import { createGraphitiBackend, groupId } from './graphiti-backend.js';
import { createLexicalEmbedder } from './lexical-embedder.js';
import type { MemoryBackend, MemoryRecord } from './memory-backend.js';
import { createNeo4jGraphStore, type Neo4jGraphStore } from './neo4j-graph-store.js';
import { createSimExtractionModel } from './sim-extraction-model.js';
import {
  embeddingTable,
  setupGraphitiInterop,
  stalebenchProperties,
  type InteropEdge,
  type InteropSearch,
} from './test-support/graphiti-interop.js';
import type { ProvidedNeo4jServer } from './test-support/neo4j-global-setup.js';

const provided: ProvidedNeo4jServer | undefined = inject('neo4j');
const server = provided ? { uri: provided.uri, user: provided.user, password: provided.password } : undefined;
const interop = server ? await setupGraphitiInterop() : { skip: 'no Neo4j server (run pnpm run test:neo4j)' };
if ('skip' in interop) console.log(`[graphiti interop (a)] skipped: ${interop.skip}`);

const NOW = new Date('2026-09-01T12:00:00.000Z');
const PAST = new Date(NOW.getTime() - 90 * 86_400_000);
const YESTERDAY = new Date(NOW.getTime() - 86_400_000);
const RUN = 'interop_read';
const embedder = createLexicalEmbedder();

/** What a reader needs to decide exposure: per returned fact, its status fields, and the rank of the first revoked one. */
const view = (
  rows: {
    text: string;
    expired_at: string | null;
    invalid_at: string | null;
    valid_at: string | null;
    created_at: string | null;
  }[],
) => {
  const time = (value: string | null) => (value === null ? null : Date.parse(value));
  const facts = rows.map((row) => ({
    fact: row.text,
    expired_at: time(row.expired_at),
    invalid_at: time(row.invalid_at),
    valid_at: time(row.valid_at),
    created_at: time(row.created_at),
  }));
  const rank = facts.findIndex((fact) => fact.expired_at !== null) + 1;
  return { facts, exposed: rank > 0, revokedRank: rank > 0 ? rank : null };
};
const fromGraphiti = (edges: InteropEdge[]) => view(edges.map((edge) => ({ text: edge.fact, ...edge })));
const fromStalebench = (records: MemoryRecord[]) =>
  view(
    records.map((record) => ({
      text: record.text,
      ...(record.fields as Record<'expired_at' | 'invalid_at' | 'valid_at' | 'created_at', string | null>),
    })),
  );

describe.skipIf('skip' in interop)(
  'graphiti-core writes the paper direct scenarios, stalebench reads them (issue #17, interop a)',
  () => {
    let store: Neo4jGraphStore;
    let backend: MemoryBackend;
    beforeAll(async () => {
      store = createNeo4jGraphStore(server!);
      backend = createGraphitiBackend({
        embedder,
        runId: RUN,
        workDir: '/tmp/unused',
        extraction: createSimExtractionModel(),
        store,
      });
      await backend.open();
    });
    afterAll(async () => {
      await backend?.close();
      await store?.close();
    });

    const graphitiWrites = (scenario: Scenario, namespace: string) => ({
      op: 'write_direct',
      group: groupId(RUN, namespace),
      nodes: ['Policy subject', 'Policy rule'].map((name, index) => ({
        key: `n${index}`,
        name,
        created_at: PAST.toISOString(),
      })),
      edges: [scenario.v1, scenario.v2, ...scenario.distractors].map((fact, index) => ({
        key: `e${index}`,
        source: 'n0',
        target: 'n1',
        name: 'POLICY',
        fact,
        created_at: (index === 0 ? PAST : NOW).toISOString(),
        valid_at: (index === 0 ? PAST : NOW).toISOString(),
        invalid_at: index === 0 ? YESTERDAY.toISOString() : null,
        expired_at: index === 0 ? YESTERDAY.toISOString() : null,
      })),
    });

    it('reads every scenario with the records, status fields, exposure and revoked rank graphiti-core gives, and as if stalebench had written it', async () => {
      if ('skip' in interop) return;
      const run = interop.run;
      const rows: string[] = [];
      for (const scenario of await loadScenarios()) {
        const [theirs, ours] = [`${scenario.id}_by_graphiti`, `${scenario.id}_by_stalebench`];
        const texts = [
          scenario.query,
          scenario.v1,
          scenario.v2,
          ...scenario.distractors,
          'Policy subject',
          'Policy rule',
        ];
        const searches = [false, true].map((filtered) => ({
          op: 'search',
          group: groupId(RUN, theirs),
          query: scenario.query,
          limit: 10,
          filtered,
        }));
        const [written, ...graphitiReads] = await run({
          neo4j: server!,
          embeddings: await embeddingTable(embedder, texts),
          steps: [graphitiWrites(scenario, theirs), ...searches],
        });
        expect(written).not.toHaveProperty('error');
        await backend.insert({
          namespace: ours,
          now: NOW,
          writes: { mode: 'direct', revoked: [scenario.v1], current: [scenario.v2, ...scenario.distractors] },
        });
        for (const [index, filtered] of [false, true].entries()) {
          const graphiti = graphitiReads[index] as InteropSearch;
          expect(graphiti).not.toHaveProperty('error');
          const filter = filtered ? (backend.description.storeFilter ?? undefined) : undefined;
          const read = await backend.search({ namespace: theirs, query: scenario.query, limit: 10, filter });
          // The same edges (Graphiti's own uuids), in Graphiti's order, with the same status fields.
          expect({ scenario: scenario.id, filtered, ids: read.records.map((record) => record.id) }).toEqual({
            scenario: scenario.id,
            filtered,
            ids: graphiti.edges.map((edge) => edge.uuid),
          });
          expect(fromStalebench(read.records)).toEqual(fromGraphiti(graphiti.edges));
          // And what a stalebench-written copy of the scenario gives: same facts, statuses, exposure and rank.
          const own = await backend.search({ namespace: ours, query: scenario.query, limit: 10, filter });
          const strip = (v: ReturnType<typeof view>) => ({
            ...v,
            facts: v.facts.map(({ created_at: _created, ...fact }) => fact),
          });
          expect(strip(fromStalebench(own.records))).toEqual(strip(fromGraphiti(graphiti.edges)));
        }
        const listed = await backend.listRecords!(theirs);
        expect(listed.map((item) => [item.record.text, item.revoked]).sort()).toEqual(
          [[scenario.v1, true], ...[scenario.v2, ...scenario.distractors].map((fact) => [fact, false])].sort(),
        );
        rows.push(
          `${scenario.id}: revoked rank ${fromGraphiti((graphitiReads[0] as InteropSearch).edges).revokedRank}`,
        );
        await Promise.all([backend.reset(theirs), backend.reset(ours)]);
      }
      console.log(`[graphiti interop (a)] ${rows.join('; ')}`);
      expect(await stalebenchProperties(server!)).toEqual([]);
    }, 300_000);
  },
);
