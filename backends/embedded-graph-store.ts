// In-process GraphStore holding Graphiti's graph; edge searches score and order as Neo4j 5 does with Graphiti's queries.
import { InvalidInputError } from '#core/errors.js';
import { INDEXED_FIELDS, neo4jCosine, rankFulltext } from './embedded-edge-scoring.js';
import { compileFilterPredicate, type FilterPredicate } from './filter-predicate.js';
import { neo4jFulltextOrder } from './fulltext-result-order.js';
import type { EntityEdge, EntityNode, EpisodicEdge, EpisodicNode, ScoredEdge } from './graph-model.js';
import type { GraphStore } from './graph-store.js';
import { fulltextQueryTerms } from './lucene-bm25.js';
import type { MemoryFilter } from './memory-filter.js';

/** The embedded store has no settings yet; the type exists so callers keep the factory shape. */
export type EmbeddedGraphStoreSettings = Record<string, never>;

const GROUP_ID = /^[a-zA-Z0-9_-]+$/;
const byUuidDescending = <T extends { uuid: string }>(a: T, b: T): number =>
  a.uuid < b.uuid ? 1 : a.uuid > b.uuid ? -1 : 0;
const copies = <T>(items: Iterable<T>): T[] => [...items].map((item) => structuredClone(item));

/**
 * Creates an empty in-memory graph store. Fulltext scoring follows the `GraphStore` contract with one
 * deliberate scope: BM25 statistics (N, document frequencies, average lengths) are taken over the searched
 * groups, not the whole store. That equals Neo4j's index-wide statistics when the index holds only the
 * searched group, as in the paper (it wiped its single group per scenario), and keeps one namespace's scores
 * independent of whatever else shares the store. Lucene numbers documents in the order edges are created (the
 * Neo4j store commits each new edge on its own); an update keeps the number unless it changes an indexed property
 * (name, fact, group id), which re-indexes the edge last, as Neo4j does. Fulltext ties then come back in Neo4j's
 * result-heap order (fulltext-result-order.ts), cosine ties by uuid.
 *
 * @example
 * const store = createEmbeddedGraphStore();
 * await store.open();
 */
export function createEmbeddedGraphStore(_settings: EmbeddedGraphStoreSettings = {}): GraphStore {
  const nodes = new Map<string, EntityNode>();
  const edges = new Map<string, EntityEdge>(); // insertion order = Lucene document order
  const episodes = new Map<string, EpisodicNode>();
  const mentions = new Map<string, EpisodicEdge>();
  let sections: Promise<unknown> = Promise.resolve();

  const edgesIn = (groupIds: readonly string[]): EntityEdge[] => {
    validateGroupIds(groupIds);
    const groups = new Set(groupIds);
    return [...edges.values()].filter((edge) => groups.has(edge.group_id));
  };
  const requireNodes = (owner: string, ends: readonly [string, string], episodeEnd = false): void => {
    const [first, second] = ends;
    if (episodeEnd ? !episodes.has(first) : !nodes.has(first))
      throw new Error(`${owner}: end node ${first} has not been saved`);
    if (!nodes.has(second)) throw new Error(`${owner}: end node ${second} has not been saved`);
  };
  const putEdges = (batch: readonly EntityEdge[]): void => {
    // Graphiti's save query MATCHes both end nodes and silently writes nothing without them; here it is an error.
    for (const edge of batch) requireNodes(`edge ${edge.uuid}`, [edge.source_node_uuid, edge.target_node_uuid]);
    for (const edge of batch) {
      const before = edges.get(edge.uuid);
      if (before && INDEXED_FIELDS.some((field) => before[field] !== edge[field])) edges.delete(edge.uuid);
      edges.set(edge.uuid, structuredClone(edge));
    }
  };
  const inGroup = <T extends { uuid: string; group_id: string }>(items: Map<string, T>, groupId: string): T[] =>
    copies([...items.values()].filter((item) => item.group_id === groupId)).sort(byUuidDescending);
  const removeWhere = (test: (group: string) => boolean): { nodes: number; edges: number } => {
    const removed = { nodes: 0, edges: 0 };
    for (const map of [edges, mentions])
      for (const [uuid, item] of map) if (test(item.group_id) && map.delete(uuid)) removed.edges += 1;
    for (const map of [nodes, episodes])
      for (const [uuid, item] of map) if (test(item.group_id) && map.delete(uuid)) removed.nodes += 1;
    return removed;
  };

  return {
    id: 'embedded',
    statisticsScope: 'group',
    async open() {},
    async saveNodes(batch) {
      for (const node of batch) nodes.set(node.uuid, structuredClone(node));
    },
    async saveEdges(batch) {
      putEdges(batch);
    },
    async saveEpisodeData(data) {
      for (const episode of data.episodes) episodes.set(episode.uuid, structuredClone(episode));
      for (const node of data.nodes) nodes.set(node.uuid, structuredClone(node));
      for (const mention of data.mentions)
        requireNodes(`MENTIONS ${mention.uuid}`, [mention.source_node_uuid, mention.target_node_uuid], true);
      for (const mention of data.mentions) mentions.set(mention.uuid, structuredClone(mention));
      putEdges(data.edges);
    },
    async getNodesByUuids(uuids) {
      return copies(uuids.flatMap((uuid) => nodes.get(uuid) ?? []));
    },
    getNodesByGroup: async (groupId) => inGroup(nodes, groupId),
    getEdgesByGroup: async (groupId) => inGroup(edges, groupId),
    async getEdgesBetweenNodes(sourceUuid, targetUuid) {
      const between = [...edges.values()].filter(
        (edge) => edge.source_node_uuid === sourceUuid && edge.target_node_uuid === targetUuid,
      );
      return copies(between).sort(byUuidDescending);
    },
    getEpisodesByGroup: async (groupId) => inGroup(episodes, groupId),
    getMentionsByGroup: async (groupId) => inGroup(mentions, groupId),
    async retrieveEpisodes({ groupIds, referenceTime, lastN, source }) {
      const window = [...episodes.values()]
        .filter((episode) => groupIds.includes(episode.group_id) && episode.valid_at <= referenceTime)
        .filter((episode) => source === undefined || episode.source === source)
        .sort((a, b) => b.valid_at.getTime() - a.valid_at.getTime() || b.created_at.getTime() - a.created_at.getTime())
        .slice(0, Math.max(0, lastN));
      return copies(window.reverse());
    },
    async searchEdgesFulltext(search) {
      const candidates = edgesIn(search.groupIds);
      if (search.limit <= 0 || search.query.trim() === '') return [];
      const terms = fulltextQueryTerms(search.query, search.groupIds.length);
      if (terms === null) return [];
      const hits = neo4jFulltextOrder(rankFulltext(candidates, terms), search.limit);
      // Neo4j's `queryRelationships(..., {limit})` caps index hits before Graphiti's Cypher WHERE filters them.
      const passes = predicateOf(search.filter);
      return hits.filter((hit) => passes(hit.edge)).map(cloneHit);
    },
    async searchEdgesBySimilarity(search) {
      const passes = predicateOf(search.filter);
      const hits: ScoredEdge[] = [];
      for (const edge of edgesIn(search.groupIds)) {
        if (!edge.fact_embedding || !passes(edge)) continue;
        const score = neo4jCosine(edge.fact_embedding, search.vector);
        if (score !== null && score > search.minScore) hits.push({ edge, score });
      }
      // Cosine ties by uuid, as the Neo4j store breaks them (neo4j-graphiti-queries.ts).
      return hits
        .sort((a, b) => b.score - a.score || (a.edge.uuid < b.edge.uuid ? -1 : a.edge.uuid > b.edge.uuid ? 1 : 0))
        .slice(0, Math.max(0, search.limit))
        .map(cloneHit);
    },
    async deleteGroup(groupId) {
      validateGroupIds([groupId]);
      removeWhere((group) => group === groupId);
    },
    async listGroups(prefix) {
      const all = [...nodes.values(), ...edges.values(), ...episodes.values(), ...mentions.values()];
      return [...new Set(all.map((item) => item.group_id).filter((group) => group.startsWith(prefix)))].sort();
    },
    async deleteGroupsByPrefix(prefix) {
      checkPrefix(prefix);
      return removeWhere((group) => group.startsWith(prefix));
    },
    // In process: sections only queue behind each other (statistics are per group, so nothing else could disturb them).
    exclusive(work) {
      const run = sections.then(work);
      sections = run.catch(() => undefined);
      return run;
    },
    async close() {},
  };
}

/** A group-id prefix for bulk deletion: non-empty and made of group-id characters, so it can never mean "everything". */
function checkPrefix(prefix: string): void {
  if (!GROUP_ID.test(prefix))
    throw new InvalidInputError('graph store', [
      { path: 'prefix', message: `"${prefix}" is not a non-empty group-id prefix ([a-zA-Z0-9_-]+)` },
    ]);
}

function predicateOf(filter: MemoryFilter | undefined): (edge: EntityEdge) => boolean {
  if (!filter) return () => true;
  const predicate: FilterPredicate = compileFilterPredicate(filter);
  return (edge) =>
    predicate({
      valid_at: edge.valid_at,
      invalid_at: edge.invalid_at,
      expired_at: edge.expired_at,
      created_at: edge.created_at,
    });
}

function validateGroupIds(groupIds: readonly string[]): void {
  const issues = groupIds.flatMap((groupId, index) =>
    GROUP_ID.test(groupId) ? [] : [{ path: `groupIds[${index}]`, message: `"${groupId}" is not [a-zA-Z0-9_-]+` }],
  );
  if (groupIds.length === 0) issues.push({ path: 'groupIds', message: 'at least one group id is required' });
  if (issues.length > 0) throw new InvalidInputError('graph store group ids', issues);
}

function cloneHit(hit: ScoredEdge): ScoredEdge {
  return { edge: structuredClone(hit.edge), score: hit.score };
}
