// Graphiti's EDGE_HYBRID_SEARCH_RRF on a GraphStore: BM25 + cosine (> 0.6), each asked for 2 × limit, fused by RRF.
import type { Embedder } from './embedder.js';
import type { EntityEdge, GraphStore } from './graph-store.js';
import type { MemoryFilter } from './memory-filter.js';
import { reciprocalRankFusion } from './rank-fusion.js';

// graphiti_core/search/search_utils.py: DEFAULT_MIN_SCORE = 0.6, the EdgeSearchConfig.sim_min_score default.
const SIMILARITY_MIN_SCORE = 0.6;

/** Arguments of `hybridEdgeSearch`. */
export interface HybridEdgeSearch {
  /** Query text (a user query, or a new edge's fact during resolution). */
  query: string;
  /** Partitions to read. */
  groupIds: readonly string[];
  /** Number of fused results (Graphiti `num_results`; `DEFAULT_SEARCH_LIMIT = 10` inside add_episode). */
  limit: number;
  /** Validity filter, passed to both branches. */
  filter?: MemoryFilter;
  /**
   * Graphiti `SearchFilters.edge_uuids`: only these edges. As in Graphiti's Cypher, the fulltext branch applies it
   * after the index returned its top 2 × limit hits, the cosine branch before ranking and LIMIT.
   */
  edgeUuids?: readonly string[];
  /** The query's embedding, when the caller already has it (Graphiti embeds the new edge's fact once). */
  vector?: readonly number[];
}

/**
 * Runs the hybrid edge search and returns the fused edges, best first.
 *
 * @example
 * const edges = await hybridEdgeSearch(store, embedder, { query: 'deployment approval', groupIds: [group], limit: 10 });
 */
export async function hybridEdgeSearch(
  store: GraphStore,
  embedder: Embedder,
  search: HybridEdgeSearch,
): Promise<EntityEdge[]> {
  const { query, groupIds, limit, filter } = search;
  // Graphiti's search() returns nothing for a blank query; LIMIT 0 returns nothing on Neo4j.
  if (query.trim() === '' || limit <= 0 || search.edgeUuids?.length === 0) return [];
  const allowed = search.edgeUuids ? new Set(search.edgeUuids) : null;
  const keep = (edge: EntityEdge): boolean => allowed === null || allowed.has(edge.uuid);
  const vector = search.vector ?? (await embedder.embed([query.replace(/\n/g, ' ')]))[0] ?? [];
  const candidates = 2 * limit;
  const [fulltext, similar] = await Promise.all([
    store.searchEdgesFulltext({ query, groupIds, filter, limit: candidates }),
    store.searchEdgesBySimilarity({
      vector,
      groupIds,
      filter,
      limit: allowed === null ? candidates : Number.MAX_SAFE_INTEGER,
      minScore: SIMILARITY_MIN_SCORE,
    }),
  ]);
  const bm25 = fulltext.map((hit) => hit.edge).filter(keep);
  const cosine = similar
    .map((hit) => hit.edge)
    .filter(keep)
    .slice(0, candidates);
  const byUuid = new Map([...bm25, ...cosine].map((edge) => [edge.uuid, edge]));
  const fused = reciprocalRankFusion([bm25.map((edge) => edge.uuid), cosine.map((edge) => edge.uuid)]);
  return fused.slice(0, limit).flatMap(({ id }) => byUuid.get(id) ?? []);
}
