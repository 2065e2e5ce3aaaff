// GraphStore contract, part two: Graphiti's whole graph (episodes, MENTIONS, reads from the engine) and tie order.
import { describe, expect, it } from 'vitest';
import { neo4jFulltextOrder } from './fulltext-result-order.js';
import type { EntityEdge, EntityNode, EpisodicNode } from './graph-model.js';
import type { GraphStore } from './graph-store.js';

const T0 = new Date('2026-01-01T00:00:00.000Z');
const day = (n: number) => new Date(T0.getTime() + n * 86_400_000);
const node = (uuid: string, group = 'g1'): EntityNode => ({
  uuid,
  name: uuid,
  group_id: group,
  created_at: T0,
  summary: '',
  name_embedding: null,
});
const edge = (uuid: string, fact: string, extra: Partial<EntityEdge> = {}): EntityEdge => ({
  uuid,
  group_id: 'g1',
  source_node_uuid: 's',
  target_node_uuid: 't',
  name: 'R',
  fact,
  fact_embedding: null,
  episodes: [],
  created_at: T0,
  valid_at: T0,
  invalid_at: null,
  expired_at: null,
  reference_time: null,
  ...extra,
});
const episode = (uuid: string, validAt: Date, extra: Partial<EpisodicNode> = {}): EpisodicNode => ({
  uuid,
  name: uuid,
  group_id: 'g1',
  source: 'text',
  source_description: 'policy feed',
  content: `content of ${uuid}`,
  entity_edges: [],
  created_at: T0,
  valid_at: validAt,
  ...extra,
});

// A small seeded generator, so every engine sees the same random corpora.
function corpus(seed: number): { facts: string[]; limits: number[] } {
  let state = seed;
  const next = (n: number) => {
    state = (state * 1103515245 + 12345) % 2 ** 31;
    return state % n;
  };
  const words = ['alpha beta', 'alpha gamma', 'alpha', 'alpha beta gamma', 'alpha alpha', 'beta alpha'];
  return {
    facts: Array.from({ length: 3 + next(20) }, () => words[next(words.length)] ?? 'alpha'),
    limits: [1, 2, 3 + next(5), 7, 40],
  };
}

/**
 * Registers the graph checks on a store factory (a new, unopened store over an EMPTY engine each call).
 *
 * @example
 * runGraphConformance('embedded', () => createEmbeddedGraphStore(), (store) => opened.push(store));
 */
export function runGraphConformance(name: string, create: () => GraphStore): void {
  const opened = async (): Promise<GraphStore> => {
    const store = create();
    await store.open();
    await store.saveNodes([node('s'), node('t')]);
    return store;
  };

  describe(`${name} graph store: fulltext ties as graphiti-core sees them on Neo4j`, () => {
    it('returns random tied corpora in the order of the result heap over save order, for every limit', async () => {
      for (const seed of [1, 2, 3, 4]) {
        const store = await opened();
        const { facts, limits } = corpus(seed);
        const edges = facts.map((fact, index) => edge(`e${String(index).padStart(2, '0')}`, fact));
        await store.saveEdges(edges);
        await store.saveEdges([{ ...edges[0]!, fact: `${edges[0]!.fact} delta` }]); // an indexed change: indexed again, last
        const order = [...edges.slice(1), edges[0]!];
        const all = await store.searchEdgesFulltext({ query: 'alpha', groupIds: ['g1'], limit: 100 });
        const score = new Map(all.map((hit) => [hit.edge.uuid, hit.score]));
        for (const limit of limits) {
          const expected = neo4jFulltextOrder(
            order.map((item) => ({ uuid: item.uuid, score: score.get(item.uuid) ?? 0 })),
            limit,
          ).map((hit) => hit.uuid);
          const actual = (await store.searchEdgesFulltext({ query: 'alpha', groupIds: ['g1'], limit })).map(
            (hit) => hit.edge.uuid,
          );
          expect({ seed, limit, actual }).toEqual({ seed, limit, actual: expected });
        }
        await store.deleteGroup('g1');
        await store.close();
      }
    });
  });

  describe(`${name} graph store: reads come from the engine`, () => {
    it('lists nodes, edges and edges between two nodes (directed) by uuid descending', async () => {
      const store = await opened();
      await store.saveNodes([node('u'), node('other', 'g2')]);
      await store.saveEdges([
        edge('e1', 'one'),
        edge('e3', 'three', { source_node_uuid: 't', target_node_uuid: 's' }),
        edge('e2', 'two', { reference_time: day(1) }),
      ]);
      expect((await store.getNodesByGroup('g1')).map((item) => item.uuid)).toEqual(['u', 't', 's']);
      expect((await store.getEdgesByGroup('g1')).map((item) => item.uuid)).toEqual(['e3', 'e2', 'e1']);
      expect((await store.getEdgesByGroup('g1'))[1]).toEqual(edge('e2', 'two', { reference_time: day(1) }));
      expect((await store.getEdgesBetweenNodes('s', 't')).map((item) => item.uuid)).toEqual(['e2', 'e1']);
      expect((await store.getEdgesBetweenNodes('t', 's')).map((item) => item.uuid)).toEqual(['e3']);
      expect(await store.getEdgesBetweenNodes('s', 'u')).toEqual([]);
      await store.close();
    });

    it('saves an episode with its nodes, MENTIONS and edges in one call, and deleteGroup removes all of it', async () => {
      const store = await opened();
      const ep = episode('ep0', day(0), { entity_edges: ['n1'] });
      const mention = { uuid: 'm1', group_id: 'g1', source_node_uuid: 'ep0', target_node_uuid: 'new', created_at: T0 };
      await store.saveEpisodeData({
        episodes: [ep],
        nodes: [node('new')],
        mentions: [mention],
        edges: [edge('n1', 'new fact', { source_node_uuid: 'new', episodes: ['ep0'] })],
      });
      expect(await store.getEpisodesByGroup('g1')).toEqual([ep]);
      expect(await store.getMentionsByGroup('g1')).toEqual([mention]);
      expect((await store.getEdgesBetweenNodes('new', 't')).map((item) => item.episodes)).toEqual([['ep0']]);
      const orphan = { ...mention, uuid: 'm2', source_node_uuid: 'missing-episode' };
      await expect(store.saveEpisodeData({ episodes: [], nodes: [], mentions: [orphan], edges: [] })).rejects.toThrow(
        /missing-episode/,
      );
      expect(await store.listGroups('')).toEqual(['g1']);
      await store.deleteGroup('g1');
      expect([
        await store.getEpisodesByGroup('g1'),
        await store.getMentionsByGroup('g1'),
        await store.getNodesByGroup('g1'),
      ]).toEqual([[], [], []]);
      await store.close();
    });

    it('retrieves the last n episodes up to a reference time, by valid_at then created_at, oldest first, by source', async () => {
      const store = await opened();
      await store.saveEpisodeData({
        episodes: [
          episode('a', day(1)),
          episode('b', day(3)),
          episode('c', day(2)),
          episode('d', day(2), { created_at: day(9) }),
          episode('m', day(1), { source: 'message' }),
          episode('x', day(1), { group_id: 'g2' }),
        ],
        nodes: [],
        mentions: [],
        edges: [],
      });
      const uuids = async (window: Parameters<GraphStore['retrieveEpisodes']>[0]) =>
        (await store.retrieveEpisodes(window)).map((item) => item.uuid);
      expect(await uuids({ groupIds: ['g1'], referenceTime: day(2), lastN: 10, source: 'text' })).toEqual([
        'a',
        'c',
        'd',
      ]);
      expect(await uuids({ groupIds: ['g1'], referenceTime: day(5), lastN: 2, source: 'text' })).toEqual(['d', 'b']);
      expect(await uuids({ groupIds: ['g1'], referenceTime: day(1), lastN: 10, source: 'message' })).toEqual(['m']);
      expect(await uuids({ groupIds: ['g2'], referenceTime: day(1), lastN: 10 })).toEqual(['x']);
      expect(await uuids({ groupIds: ['g1'], referenceTime: day(0), lastN: 10 })).toEqual([]);
      await store.close();
    });
  });
}
