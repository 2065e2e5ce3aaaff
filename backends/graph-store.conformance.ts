// The GraphStore contract checks every store calls from its own test file (embedded, Neo4j).
import { afterEach, describe, expect, it } from 'vitest';
import { InvalidInputError } from '#core/errors.js';
import { runGraphConformance } from './graph-store-graph.conformance.js';
import type { EntityEdge, GraphStore } from './graph-store.js';

/** Options of `runGraphStoreConformance`. */
export interface GraphStoreConformanceOptions {
  /** Suite title, usually the store id. */
  name: string;
  /** A new, unopened store over an EMPTY engine (a server store wipes its database first). */
  create: () => GraphStore;
}

const T0 = new Date('2026-01-01T00:00:00.000Z');
const near = (value: number) => expect.closeTo(value, 6); // Neo4j scores are 32-bit floats

function edge(uuid: string, name: string, fact: string, extra: Partial<EntityEdge> = {}): EntityEdge {
  return {
    uuid,
    group_id: 'g1',
    source_node_uuid: 's',
    target_node_uuid: 't',
    name,
    fact,
    fact_embedding: null,
    episodes: [],
    created_at: T0,
    valid_at: T0,
    invalid_at: null,
    expired_at: null,
    reference_time: null,
    ...extra,
  };
}

// Three documents in one group. Per field (name, fact, group_id) N = 3; fact lengths 4, 7, 2 (avgdl 13/3);
// name and group_id have length 1 everywhere. idf(n) = ln(1 + (3 − n + 0.5) / (n + 0.5)).
const CORPUS = [
  edge('e1', 'POLICY', 'deploy needs one reviewer'),
  edge('e2', 'POLICY', 'deploy needs two reviewers and a lead'),
  edge('e3', 'NOTE', 'support hours'),
];

/**
 * Registers the contract checks: BM25 scores and orders as Neo4j 5 with Graphiti's index and queries, the filter
 * after the index limit, the normalised cosine with a strict gate, deleteGroup, and (graph-store-graph.conformance.ts)
 * Graphiti's whole graph read back from the engine.
 *
 * @example
 * runGraphStoreConformance({ name: 'embedded', create: () => createEmbeddedGraphStore() });
 */
export function runGraphStoreConformance(options: GraphStoreConformanceOptions): void {
  const opened: GraphStore[] = [];
  afterEach(async () => {
    await Promise.all(opened.splice(0).map((store) => store.close()));
  });
  const storeWith = async (edges: EntityEdge[]): Promise<GraphStore> => {
    const store = options.create();
    opened.push(store);
    await store.open();
    const node = { name: 'n', group_id: 'g1', created_at: T0, summary: '', name_embedding: null };
    await store.saveNodes([
      { uuid: 's', ...node },
      { uuid: 't', ...node },
    ]);
    await store.saveEdges(edges);
    return store;
  };
  runGraphConformance(options.name, () => {
    const store = options.create();
    opened.push(store);
    return store;
  });
  const fulltext = (store: GraphStore, query: string, limit = 10) =>
    store.searchEdgesFulltext({ query, groupIds: ['g1'], limit });
  const scores = async (store: GraphStore, query: string) =>
    (await fulltext(store, query)).map((hit) => [hit.edge.uuid, hit.score]);

  describe(`${options.name} graph store: fulltext (BM25 as Neo4j / Lucene)`, () => {
    // The required group_id:"g1" clause adds idf(3) · 1/(1 + 1.2) = ln(8/7) / 2.2 = 0.060696 to every hit.
    it('scores "one reviewer": two fact terms with n = 1 in a 4-token fact', async () => {
      // 2 · ln(8/3) · 1/(1 + 1.2 · (0.25 + 0.75 · 4 / (13/3))) + 0.060696 = 2 · 0.980829 · 0.469314 + 0.060696
      expect(await scores(await storeWith(CORPUS), 'one reviewer')).toEqual([['e1', near(0.98133)]]);
    });

    it('scores the edge name as its own field ("policy" matches two names, "reviewers" one fact)', async () => {
      // policy: ln(1 + 1.5/2.5) / 2.2 = 0.213638; reviewers in e2 (7 tokens): ln(8/3) · 0.363128 = 0.356166
      expect(await scores(await storeWith(CORPUS), 'Policy reviewers?')).toEqual([
        ['e2', near(0.630501)],
        ['e1', near(0.274334)],
      ]);
    });

    it('treats query syntax as text: AND is a term, specials are separators', async () => {
      const store = await storeWith(CORPUS);
      expect((await fulltext(store, 'AND')).map((hit) => hit.edge.uuid)).toEqual(['e2']);
      expect((await fulltext(store, 'support:(hours)* OR "x"')).map((hit) => hit.edge.uuid)).toEqual(['e3']);
    });

    it('matches the whole group through the group clause when no query token survives analysis', async () => {
      const hits = await scores(await storeWith(CORPUS), '?? --');
      // Three ties, saved e1, e2, e3: Neo4j's result heap returns them e2, e3, e1 (fulltext-result-order.ts).
      expect(hits).toEqual([
        ['e2', near(0.060696)],
        ['e3', near(0.060696)],
        ['e1', near(0.060696)],
      ]);
    });

    it("orders ties as Graphiti gets them from Neo4j, keeps an edge's place on an update, and skips other groups", async () => {
      const store = await storeWith([edge('b', 'R', 'same fact'), edge('a', 'R', 'same fact')]);
      await store.saveNodes([
        { uuid: 'x', name: 'x', group_id: 'g2', created_at: T0, summary: '', name_embedding: null },
      ]);
      await store.saveEdges([
        edge('b', 'R', 'same fact', { expired_at: T0 }),
        edge('c', 'R', 'same fact', { group_id: 'g2', source_node_uuid: 'x', target_node_uuid: 'x' }),
      ]);
      // Two ties come back last-saved first (not by uuid, not by first save).
      expect((await fulltext(store, 'fact')).map((hit) => hit.edge.uuid)).toEqual(['a', 'b']);
    });

    it("applies the filter after the index limit, as Graphiti's Cypher does after queryRelationships", async () => {
      const store = await storeWith([
        edge('old', 'R', 'reviewer reviewer', { expired_at: T0 }),
        edge('new', 'R', 'reviewer rule'),
      ]);
      const filter = { expired_at: [[{ operator: 'IS NULL' as const }]] };
      expect(await store.searchEdgesFulltext({ query: 'reviewer', groupIds: ['g1'], filter, limit: 1 })).toEqual([]);
      const two = await store.searchEdgesFulltext({ query: 'reviewer', groupIds: ['g1'], filter, limit: 2 });
      expect(two.map((hit) => hit.edge.uuid)).toEqual(['new']);
    });

    it('rejects invalid group ids and edges whose nodes are missing', async () => {
      const store = await storeWith([]);
      await expect(store.searchEdgesFulltext({ query: 'x', groupIds: ['bad id'], limit: 1 })).rejects.toBeInstanceOf(
        InvalidInputError,
      );
      await expect(store.searchEdgesFulltext({ query: 'x', groupIds: [], limit: 1 })).rejects.toBeInstanceOf(
        InvalidInputError,
      );
      await expect(store.saveEdges([edge('e', 'R', 'f', { target_node_uuid: 'missing' })])).rejects.toThrow(/missing/);
    });
  });

  describe(`${options.name} graph store: similarity (Neo4j vector.similarity.cosine)`, () => {
    const vectors = (...pairs: [string, number[]][]) =>
      pairs.map(([uuid, vector]) => edge(uuid, 'R', uuid, { fact_embedding: vector }));
    const similar = (store: GraphStore, minScore: number, extra: { limit?: number; filter?: object } = {}) =>
      store.searchEdgesBySimilarity({
        vector: [1, 0, 0, 0],
        groupIds: ['g1'],
        limit: extra.limit ?? 10,
        minScore,
        ...extra,
      });

    it('scores (1 + cos) / 2 with a strict gate, best first, ties by uuid', async () => {
      const store = await storeWith(
        vectors(
          ['low', [1, 4, 2, 2]],
          ['tie2', [3, 4, 0, 0]],
          ['best', [2, 0, 0, 0]],
          ['tie1', [3, -4, 0, 0]],
          ['zero', [0, 0, 0, 0]],
        ),
      );
      // cos: low 1/5 → 0.6; tie1, tie2 3/5 → 0.8; best 1 → 1; the zero vector never matches.
      const all = await similar(store, 0.5);
      expect(all.map((hit) => [hit.edge.uuid, hit.score])).toEqual([
        ['best', near(1)],
        ['tie1', near(0.8)],
        ['tie2', near(0.8)],
        ['low', near(0.6)],
      ]);
      // Strict: a gate equal to the score the engine itself reports excludes that score.
      const tieScore = all[1]?.score ?? Number.NaN;
      expect((await similar(store, tieScore)).map((hit) => hit.edge.uuid)).toEqual(['best']);
      expect((await similar(store, 0.7)).map((hit) => hit.edge.uuid)).toEqual(['best', 'tie1', 'tie2']);
    });

    it('filters before the limit and rejects a vector of the wrong length', async () => {
      const store = await storeWith(vectors(['best', [1, 0, 0, 0]], ['next', [1, 1, 0, 0]]));
      await store.saveEdges([{ ...(vectors(['best', [1, 0, 0, 0]])[0] as EntityEdge), expired_at: T0 }]);
      const filter = { expired_at: [[{ operator: 'IS NULL' as const }]] };
      expect((await similar(store, 0, { limit: 1, filter })).map((hit) => hit.edge.uuid)).toEqual(['next']);
      await expect(
        store.searchEdgesBySimilarity({ vector: [1], groupIds: ['g1'], limit: 1, minScore: 0 }),
      ).rejects.toThrow(/length/);
    });

    it("round-trips nodes and edges, and deleteGroup removes the group's edges and nodes only", async () => {
      const store = await storeWith(vectors(['kept', [0.1, 0.2, 0.3, 0.4]]));
      const [hit] = await similar(store, 0);
      expect(hit?.edge).toEqual(vectors(['kept', [0.1, 0.2, 0.3, 0.4]])[0]);
      await store.deleteGroup('g2');
      expect(await similar(store, 0)).toHaveLength(1);
      await store.deleteGroup('g1');
      expect(await similar(store, 0)).toEqual([]);
      expect(await store.getNodesByUuids(['s', 't'])).toEqual([]);
    });
  });

  describe(`${options.name} graph store: run namespaces by prefix, and the exclusive section`, () => {
    const inGroup = async (store: GraphStore, group: string, facts: string[]) => {
      const node = { name: 'n', group_id: group, created_at: T0, summary: '', name_embedding: null };
      await store.saveNodes([
        { uuid: `${group}-s`, ...node },
        { uuid: `${group}-t`, ...node },
      ]);
      await store.saveEdges(
        facts.map((fact) =>
          edge(`${group}-${fact}`, 'R', fact, {
            group_id: group,
            source_node_uuid: `${group}-s`,
            target_node_uuid: `${group}-t`,
          }),
        ),
      );
    };

    it('lists and deletes the groups of one prefix only, and counts what went', async () => {
      const store = await storeWith([]);
      await inGroup(store, 'sb0000000a_run__x', ['one', 'two']);
      await inGroup(store, 'sb0000000a_run__y', ['three']);
      await inGroup(store, 'sb0000000b_run__x', ['four']);
      expect(await store.listGroups('sb0000000a_')).toEqual(['sb0000000a_run__x', 'sb0000000a_run__y']);
      expect(await store.listGroups('')).toEqual(['g1', 'sb0000000a_run__x', 'sb0000000a_run__y', 'sb0000000b_run__x']);
      expect(await store.deleteGroupsByPrefix('sb0000000a_')).toEqual({ nodes: 4, edges: 3 });
      expect(await store.listGroups('sb')).toEqual(['sb0000000b_run__x']);
      expect(await store.deleteGroupsByPrefix('sb0000000a_')).toEqual({ nodes: 0, edges: 0 });
      const left = await store.searchEdgesFulltext({ query: 'four', groupIds: ['sb0000000b_run__x'], limit: 5 });
      expect(left.map((hit) => hit.edge.fact)).toEqual(['four']);
    });

    it('refuses a prefix that could mean every group', async () => {
      const store = await storeWith([]);
      await expect(store.deleteGroupsByPrefix('')).rejects.toThrow(/prefix|group/);
      await expect(store.deleteGroupsByPrefix('a b')).rejects.toThrow();
      expect(await store.listGroups('')).toEqual(['g1']);
    });

    it('runs exclusive sections one at a time, returns their results, and frees the section after a failure', async () => {
      const store = await storeWith([]);
      const timeline: string[] = [];
      const section = (name: string, ms: number) =>
        store.exclusive(async () => {
          timeline.push(`${name}+`);
          await new Promise((resolve) => setTimeout(resolve, ms));
          timeline.push(`${name}-`);
          return name;
        });
      await expect(
        store.exclusive(async () => {
          throw new Error('inside');
        }),
      ).rejects.toThrow('inside');
      expect(await Promise.all([section('a', 150), section('b', 10), section('c', 10)])).toEqual(['a', 'b', 'c']);
      for (let index = 0; index < timeline.length; index += 2)
        expect(timeline[index + 1]).toBe(timeline[index]!.replace('+', '-'));
    });
  });
}
