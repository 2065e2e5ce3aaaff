// In-process GraphStore that scores and orders edge searches as Neo4j 5 does with Graphiti's indexes.
import { InvalidInputError } from '../core/errors.js';
import { compileFilterPredicate, type FilterPredicate } from './filter-predicate.js';
import type { EntityEdge, EntityNode, FulltextSearch, GraphStore, ScoredEdge, SimilaritySearch } from './graph-store.js';
import {
  bm25Idf,
  bm25TermFrequency,
  fieldStatistics,
  fulltextQueryTerms,
  standardAnalyze,
  type FieldStatistics,
} from './lucene-bm25.js';
import type { MemoryFilter } from './memory-filter.js';

/** The embedded store has no settings yet; the type exists so callers keep the factory shape. */
export type EmbeddedGraphStoreSettings = Record<string, never>;

// The properties of Graphiti's `edge_name_and_fact` index, each its own Lucene field with its own statistics.
const INDEXED_FIELDS = ['name', 'fact', 'group_id'] as const;
const GROUP_ID = /^[a-zA-Z0-9_-]+$/;

/**
 * Creates an empty in-memory graph store. Fulltext scoring follows the `GraphStore` contract with one
 * deliberate scope: BM25 statistics (N, document frequencies, average lengths) are taken over the searched
 * groups, not the whole store. That equals Neo4j's index-wide statistics when the index holds only the
 * searched group, as in the paper (it wiped its single group per scenario), and keeps one namespace's scores
 * independent of whatever else shares the store. Score ties keep the order edges were first saved (Lucene
 * breaks ties by doc id, Neo4j scans relationships in id order); overwriting an edge keeps its place.
 *
 * @example
 * const store = createEmbeddedGraphStore();
 * await store.open();
 */
export function createEmbeddedGraphStore(_settings: EmbeddedGraphStoreSettings = {}): GraphStore {
  const nodes = new Map<string, EntityNode>();
  const edges = new Map<string, EntityEdge>();
  let sections: Promise<unknown> = Promise.resolve();

  const edgesIn = (groupIds: readonly string[]): EntityEdge[] => {
    validateGroupIds(groupIds);
    const groups = new Set(groupIds);
    return [...edges.values()].filter((edge) => groups.has(edge.group_id));
  };

  return {
    id: 'embedded',
    statisticsScope: 'group',
    async open() {},
    async saveNodes(batch) {
      for (const node of batch) nodes.set(node.uuid, structuredClone(node));
    },
    async getNodesByUuids(uuids) {
      return uuids.flatMap((uuid) => {
        const node = nodes.get(uuid);
        return node ? [structuredClone(node)] : [];
      });
    },
    async saveEdges(batch) {
      for (const edge of batch) {
        for (const end of [edge.source_node_uuid, edge.target_node_uuid]) {
          // Graphiti's save query MATCHes both end nodes and silently writes nothing without them.
          if (!nodes.has(end)) throw new Error(`edge ${edge.uuid}: end node ${end} has not been saved`);
        }
        edges.set(edge.uuid, structuredClone(edge));
      }
    },
    async searchEdgesFulltext(search) {
      const candidates = edgesIn(search.groupIds);
      if (search.limit <= 0 || search.query.trim() === '') return [];
      const terms = fulltextQueryTerms(search.query, search.groupIds.length);
      if (terms === null) return [];
      const hits = rankFulltext(candidates, terms).slice(0, search.limit);
      // Neo4j's `queryRelationships(..., {limit})` caps index hits before Graphiti's Cypher WHERE filters them.
      const passes = predicateOf(search.filter);
      return hits.filter((hit) => passes(hit.edge)).map(cloneHit);
    },
    async searchEdgesBySimilarity(search: SimilaritySearch) {
      const passes = predicateOf(search.filter);
      const hits: ScoredEdge[] = [];
      for (const edge of edgesIn(search.groupIds)) {
        if (!edge.fact_embedding || !passes(edge)) continue;
        const score = neo4jCosine(edge.fact_embedding, search.vector);
        if (score !== null && score > search.minScore) hits.push({ edge, score });
      }
      return hits.sort((a, b) => b.score - a.score).slice(0, Math.max(0, search.limit)).map(cloneHit);
    },
    async deleteGroup(groupId) {
      validateGroupIds([groupId]);
      for (const [uuid, edge] of edges) if (edge.group_id === groupId) edges.delete(uuid);
      for (const [uuid, node] of nodes) if (node.group_id === groupId) nodes.delete(uuid);
    },
    async listGroups(prefix) {
      const groups = new Set([...nodes.values(), ...edges.values()].map((item) => item.group_id).filter((group) => group.startsWith(prefix)));
      return [...groups].sort();
    },
    async deleteGroupsByPrefix(prefix) {
      checkPrefix(prefix);
      const removed = { nodes: 0, edges: 0 };
      for (const [uuid, edge] of edges) if (edge.group_id.startsWith(prefix) && edges.delete(uuid)) removed.edges += 1;
      for (const [uuid, node] of nodes) if (node.group_id.startsWith(prefix) && nodes.delete(uuid)) removed.nodes += 1;
      return removed;
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
export function checkPrefix(prefix: string): void {
  if (!GROUP_ID.test(prefix)) throw new InvalidInputError('graph store', [{ path: 'prefix', message: `"${prefix}" is not a non-empty group-id prefix ([a-zA-Z0-9_-]+)` }]);
}

/** BM25 over the three fields for every query term, plus the required `group_id:"<g>"` clause. */
function rankFulltext(candidates: readonly EntityEdge[], terms: readonly string[]): ScoredEdge[] {
  const tokenized = candidates.map((edge) => INDEXED_FIELDS.map((field) => standardAnalyze(edge[field])));
  const statistics = INDEXED_FIELDS.map((_, field) => fieldStatistics(tokenized.map((fields) => fields[field] ?? [])));
  const hits: ScoredEdge[] = [];
  candidates.forEach((edge, index) => {
    const fields = tokenized[index] ?? [];
    let score = 0;
    let matched = terms.length === 0; // no analysable term: the group clause alone matches the whole group
    for (const term of terms) {
      fields.forEach((tokens, field) => {
        const freq = tokens.filter((token) => token === term).length;
        const fieldStats = statistics[field];
        if (freq === 0 || !fieldStats) return;
        matched = true;
        score += bm25Idf(fieldStats, term) * bm25TermFrequency(freq, tokens.length, fieldStats);
      });
    }
    if (matched) hits.push({ edge, score: score + groupClauseScore(fields[2] ?? [], statistics[2]) });
  });
  return hits.sort((a, b) => b.score - a.score);
}

/** A phrase query on the edge's own group id: summed idf of its tokens, phrase frequency 1. */
function groupClauseScore(tokens: readonly string[], statistics: FieldStatistics | undefined): number {
  if (!statistics || tokens.length === 0) return 0;
  const idf = tokens.reduce((sum, token) => sum + bm25Idf(statistics, token), 0);
  return idf * bm25TermFrequency(1, tokens.length, statistics);
}

/** Neo4j's `vector.similarity.cosine`: (1 + cos) / 2, or null (no match) when a vector has zero norm. */
function neo4jCosine(stored: readonly number[], query: readonly number[]): number | null {
  if (stored.length !== query.length) {
    throw new Error(`vector length ${query.length} does not match stored embedding length ${stored.length}`);
  }
  let dot = 0;
  let storedNorm = 0;
  let queryNorm = 0;
  stored.forEach((value, index) => {
    const other = query[index] ?? 0;
    dot += value * other;
    storedNorm += value * value;
    queryNorm += other * other;
  });
  if (storedNorm === 0 || queryNorm === 0) return null;
  return (1 + dot / (Math.sqrt(storedNorm) * Math.sqrt(queryNorm))) / 2;
}

function predicateOf(filter: MemoryFilter | undefined): (edge: EntityEdge) => boolean {
  if (!filter) return () => true;
  const predicate: FilterPredicate = compileFilterPredicate(filter);
  return (edge) =>
    predicate({ valid_at: edge.valid_at, invalid_at: edge.invalid_at, expired_at: edge.expired_at, created_at: edge.created_at });
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
