// Interop (b): stalebench writes direct and natural scenarios on the test Neo4j; graphiti-core 0.31.2 itself reads them.
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { episodesFor } from '../pipeline/suites/grid/episodes.js';
import { loadScenarios } from '../scenarios/index.js';
import type { Scenario } from '../scenarios/scenario.js';
import type { EntityEdge } from './graph-model.js';
import { createGraphitiBackend, groupId } from './graphiti-backend.js';
import { createLexicalEmbedder } from './lexical-embedder.js';
import type { MemoryBackend, SeedMode } from './memory-backend.js';
import { createNeo4jGraphStore, type Neo4jGraphStore } from './neo4j-graph-store.js';
import { createSimExtractionModel } from './sim-extraction-model.js';
import {
  embeddingTable,
  rawGroup,
  setupGraphitiInterop,
  stalebenchProperties,
  type InteropRead,
  type InteropSearch,
} from './test-support/graphiti-interop.js';
import type { ProvidedNeo4jServer } from './test-support/neo4j-global-setup.js';
import { createZepCeBackend } from './zep-ce-backend.js';

const provided: ProvidedNeo4jServer | undefined = inject('neo4j');
const server = provided ? { uri: provided.uri, user: provided.user, password: provided.password } : undefined;
const interop = server ? await setupGraphitiInterop() : { skip: 'no Neo4j server (run pnpm run test:neo4j)' };
if ('skip' in interop) console.log(`[graphiti interop (b)] skipped: ${interop.skip}`);

const NOW = new Date('2026-09-01T12:00:00.000Z');
const RUN = 'interop_write';
const embedder = createLexicalEmbedder();
const time = (value: Date | string | null) => (value === null ? null : new Date(value).getTime());
const comparable = (
  edge: Pick<EntityEdge, 'uuid' | 'fact' | 'name' | 'source_node_uuid' | 'target_node_uuid' | 'episodes'> &
    Record<'created_at' | 'valid_at' | 'invalid_at' | 'expired_at' | 'reference_time', Date | string | null>,
) => ({
  uuid: edge.uuid,
  fact: edge.fact,
  name: edge.name,
  source: edge.source_node_uuid,
  target: edge.target_node_uuid,
  episodes: edge.episodes,
  created_at: time(edge.created_at),
  valid_at: time(edge.valid_at),
  invalid_at: time(edge.invalid_at),
  expired_at: time(edge.expired_at),
  reference_time: time(edge.reference_time),
});

describe.skipIf('skip' in interop)('stalebench writes, graphiti-core reads (issue #17, interop b)', () => {
  let store: Neo4jGraphStore;
  let graphiti: MemoryBackend;
  let zep: MemoryBackend;
  beforeAll(async () => {
    store = createNeo4jGraphStore(server!);
    const settings = { embedder, runId: RUN, workDir: '/tmp/unused', extraction: createSimExtractionModel(), store };
    [graphiti, zep] = [createGraphitiBackend(settings), createZepCeBackend(settings)];
    await Promise.all([graphiti.open(), zep.open()]);
  });
  afterAll(async () => {
    await Promise.all([graphiti?.close(), zep?.close()]);
    await store?.close();
  });

  const seed = (backend: MemoryBackend, scenario: Scenario, mode: SeedMode, namespace: string) =>
    backend.insert({
      namespace,
      now: NOW,
      writes:
        mode === 'natural'
          ? { mode, episodes: episodesFor(scenario, NOW) }
          : { mode, revoked: [scenario.v1], current: [scenario.v2, ...scenario.distractors] },
    });

  it("loads every node, edge, episode and MENTIONS edge without a validation error, and searches in stalebench's order", async () => {
    if ('skip' in interop) return;
    const summary: string[] = [];
    for (const scenario of await loadScenarios()) {
      for (const [backend, mode] of [
        [graphiti, 'direct'],
        [graphiti, 'natural'],
        [zep, 'natural'],
      ] as const) {
        const namespace = `${scenario.id}_${backend.id.replace('-', '')}_${mode}`;
        const group = groupId(RUN, namespace);
        await seed(backend, scenario, mode, namespace);
        const edges = await store.getEdgesByGroup(group);
        const texts = [scenario.query, ...edges.map((edge) => edge.fact)];
        const steps = [
          { op: 'read', group },
          ...[false, true].map((filtered) => ({ op: 'search', group, query: scenario.query, limit: 10, filtered })),
        ];
        const [read, ...searches] = await interop.run({
          neo4j: server!,
          embeddings: await embeddingTable(embedder, texts),
          steps,
        });
        const label = `${scenario.id} ${backend.id} ${mode}`;
        expect({ label, read }).not.toHaveProperty('read.error');
        const loaded = read as InteropRead;
        // graphiti-core's EntityEdge.get_by_group_ids: the same edges in the same order (uuid descending), same fields.
        expect({ label, edges: loaded.edges.map(comparable) }).toEqual({ label, edges: edges.map(comparable) });
        expect(loaded.edges.every((edge) => edge.attributes.every((name) => !name.startsWith('stalebench')))).toBe(
          true,
        );
        expect(loaded.nodes.map((node) => node.uuid)).toEqual(
          (await store.getNodesByGroup(group)).map((node) => node.uuid),
        );
        if (mode === 'natural') {
          const episodes = await store.getEpisodesByGroup(group);
          expect(
            loaded.episodes.map((episode) => [
              episode.uuid,
              episode.content,
              episode.source,
              time(episode.valid_at),
              episode.entity_edges,
            ]),
          ).toEqual(
            episodes.map((episode) => [
              episode.uuid,
              episode.content,
              episode.source,
              time(episode.valid_at),
              episode.entity_edges,
            ]),
          );
          expect(loaded.episodes).toHaveLength(2);
          // Every edge's episodes exist, and each episode mentions the entities its edges join.
          expect(
            loaded.edges
              .flatMap((edge) => edge.episodes)
              .every((uuid) => loaded.episodes.some((episode) => episode.uuid === uuid)),
          ).toBe(true);
          expect(loaded.mentions.length).toBeGreaterThanOrEqual(loaded.episodes.length);
          for (const edge of loaded.edges) {
            for (const uuid of edge.episodes)
              expect(loaded.mentions.filter((m) => m.source_node_uuid === uuid).map((m) => m.target_node_uuid)).toEqual(
                expect.arrayContaining([edge.source_node_uuid, edge.target_node_uuid]),
              );
          }
          // Graphiti's bulk shape: source_node_uuid / target_node_uuid and reference_time on edges, a labels list on nodes.
          const raw = await rawGroup(server!, group);
          for (const edge of edges)
            expect(raw.relationships.get(edge.uuid)?.properties).toMatchObject({
              source_node_uuid: edge.source_node_uuid,
              target_node_uuid: edge.target_node_uuid,
              reference_time: expect.anything(),
            });
          for (const node of loaded.nodes)
            expect(raw.nodes.get(node.uuid)?.properties).toMatchObject({ labels: ['Entity'] });
        } else {
          const raw = await rawGroup(server!, group);
          // EntityEdge.save's shape: the end uuids as source_uuid / target_uuid, no reference_time.
          for (const edge of edges)
            expect(Object.keys(raw.relationships.get(edge.uuid)?.properties ?? {}).sort()).toEqual(
              [
                'created_at',
                'episodes',
                'fact',
                'fact_embedding',
                'group_id',
                'name',
                'source_uuid',
                'target_uuid',
                'uuid',
                'valid_at',
                ...(edge.expired_at ? ['expired_at', 'invalid_at'] : []),
              ].sort(),
            );
        }
        // Graphiti.search and its two search utilities return stalebench's order on the same graph.
        for (const [index, filtered] of [false, true].entries()) {
          const theirs = searches[index] as InteropSearch;
          expect({ label, filtered, theirs }).not.toHaveProperty('theirs.error');
          const filter = filtered ? { expired_at: [[{ operator: 'IS NULL' as const }]] } : undefined;
          const [vector = []] = await embedder.embed([scenario.query]);
          const fulltext = await store.searchEdgesFulltext({
            query: scenario.query,
            groupIds: [group],
            limit: 20,
            filter,
          });
          const similar = await store.searchEdgesBySimilarity({
            vector,
            groupIds: [group],
            limit: 20,
            minScore: 0.6,
            filter,
          });
          expect({ label, filtered, fulltext: theirs.fulltext, similarity: theirs.similarity }).toEqual({
            label,
            filtered,
            fulltext: fulltext.map((hit) => hit.edge.uuid),
            similarity: similar.map((hit) => hit.edge.uuid),
          });
          if (backend === graphiti) {
            const ours = await graphiti.search({ namespace, query: scenario.query, limit: 10, filter });
            expect({ label, filtered, ids: theirs.edges.map((edge) => edge.uuid) }).toEqual({
              label,
              filtered,
              ids: ours.records.map((record) => record.id),
            });
          }
        }
        summary.push(
          `${label}: ${loaded.edges.length} edges, ${loaded.nodes.length} nodes, ${loaded.episodes.length} episodes, ${loaded.mentions.length} mentions`,
        );
        await backend.reset(namespace);
      }
    }
    console.log(
      `[graphiti interop (b)] ${summary.length} graphs loaded by graphiti-core; e.g. ${summary.slice(0, 3).join('; ')}`,
    );
    expect(await stalebenchProperties(server!)).toEqual([]);
  }, 600_000);
});
