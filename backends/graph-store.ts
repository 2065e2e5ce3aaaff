// The graph storage engine under the Graphiti backend (types only), shaped like Graphiti's driver operations
// (graphiti_core/driver/operations/*.py) so a Neo4j store and the embedded store honour the same contract.
import type {
  EntityEdge,
  EntityNode,
  EpisodeData,
  EpisodeWindow,
  EpisodicEdge,
  EpisodicNode,
  ScoredEdge,
} from './graph-model.js';
import type { MemoryFilter } from './memory-filter.js';

export type {
  EntityEdge,
  EntityNode,
  EpisodeData,
  EpisodeWindow,
  EpisodicEdge,
  EpisodicNode,
  ScoredEdge,
} from './graph-model.js';

/** Arguments of `searchEdgesFulltext` (Graphiti `edge_fulltext_search`). */
export interface FulltextSearch {
  /** Raw query text; the store sanitises it as Graphiti does before Lucene. */
  query: string;
  /** Partitions to read; must be non-empty, each matching `^[a-zA-Z0-9_-]+$` (Graphiti `validate_group_id`). */
  groupIds: readonly string[];
  /** Validity filter (outer OR, inner AND), applied after the index returned its top `limit` hits. */
  filter?: MemoryFilter;
  /** Maximum number of index hits (Graphiti asks for 2 × num_results). */
  limit: number;
}

/** Arguments of `searchEdgesBySimilarity` (Graphiti `edge_similarity_search`). */
export interface SimilaritySearch {
  /** Query embedding; must have the stored embeddings' length. */
  vector: readonly number[];
  /** Partitions to read, as in `FulltextSearch.groupIds`. */
  groupIds: readonly string[];
  /** Validity filter, applied before ranking and `limit` (a Cypher `WHERE` before `ORDER BY ... LIMIT`). */
  filter?: MemoryFilter;
  /** Maximum number of results. */
  limit: number;
  /** Strict gate: only edges with `score > minScore` are returned (Graphiti `DEFAULT_MIN_SCORE = 0.6`). */
  minScore: number;
}

/**
 * Graphiti's write paths. A save merges on uuid: an item new to the graph gets Graphiti's whole property map,
 * an existing item gets only the properties whose value changed, so properties the contract does not name
 * (Graphiti's `attributes`, `labels`, `source_uuid`) are kept and nothing of stalebench's is ever added.
 */
export interface GraphWrites {
  /** `EntityNode.save`, node by node. */
  saveNodes(nodes: readonly EntityNode[]): Promise<void>;
  /**
   * `EntityEdge.save`, one transaction per edge, in order (so Lucene numbers the documents in save order); a new
   * edge's end uuids are written as `source_uuid` / `target_uuid`, as that method does. Both end nodes must exist.
   */
  saveEdges(edges: readonly EntityEdge[]): Promise<void>;
  /**
   * `add_nodes_and_edges_bulk`, as `add_episode` ends: episodes, nodes, MENTIONS and changes to stored edges in one
   * transaction, then each new edge (so Lucene numbers them in creation order; graphiti-port.md); new edges carry
   * `source_node_uuid` / `target_node_uuid`, new nodes a `labels` list. End nodes must exist or be in `data.nodes`.
   */
  saveEpisodeData(data: EpisodeData): Promise<void>;
}

/** Reads of what the engine holds (whoever wrote it: stalebench or graphiti-core itself). */
export interface GraphReads {
  /** The stored entity nodes among `uuids`, in the order of `uuids`; unknown uuids are skipped. */
  getNodesByUuids(uuids: readonly string[]): Promise<EntityNode[]>;
  /** Every entity node of one group, by uuid descending (`EntityNode.get_by_group_ids`). */
  getNodesByGroup(groupId: string): Promise<EntityNode[]>;
  /** Every `RELATES_TO` edge of one group, by uuid descending (`EntityEdge.get_by_group_ids`). */
  getEdgesByGroup(groupId: string): Promise<EntityEdge[]>;
  /** Edges `(source)-[:RELATES_TO]->(target)` (`EntityEdge.get_between_nodes`, directed), by uuid descending. */
  getEdgesBetweenNodes(sourceUuid: string, targetUuid: string): Promise<EntityEdge[]>;
  /** Every episode of one group, by uuid descending (`EpisodicNode.get_by_group_ids`). */
  getEpisodesByGroup(groupId: string): Promise<EpisodicNode[]>;
  /** Every MENTIONS edge of one group, by uuid descending (`EpisodicEdge.get_by_group_ids`). */
  getMentionsByGroup(groupId: string): Promise<EpisodicEdge[]>;
  /** The window of earlier episodes in chronological order, oldest first (`retrieve_episodes`). */
  retrieveEpisodes(window: EpisodeWindow): Promise<EpisodicNode[]>;
}

/**
 * Graphiti's two edge-search methods. Scores and orderings are those of Neo4j 5 with Graphiti's indexes and queries:
 * - fulltext: the `edge_name_and_fact` index is `ON EACH [e.name, e.fact, e.group_id]`, i.e. three Lucene fields
 *   with their own BM25 statistics; the query is `group_id:"<g>" AND (<sanitised query>)` parsed by a multi-field
 *   parser (every query term is OR-ed over the three fields), standard analyser without stop words, BM25 with
 *   k1 = 1.2 and b = 0.75. Results come in the order Graphiti gets them: `ORDER BY score DESC` (a stable sort) over
 *   the rows of `queryRelationships(..., {limit})`, whose ties Neo4j's result collector orders (a heap over Lucene's
 *   documents; `fulltext-result-order.ts`);
 * - similarity: `vector.similarity.cosine`, which Neo4j normalises to `(1 + cos) / 2` in [0, 1], best first, ties
 *   by uuid (Graphiti leaves them in traversal order, which no engine can reproduce).
 */
export interface GraphSearch {
  /** BM25 search over edge name + fact in the groups; only matching edges (score > 0), best first. */
  searchEdgesFulltext(search: FulltextSearch): Promise<ScoredEdge[]>;
  /** Cosine search over `fact_embedding` in the groups; only `score > minScore`, best first. */
  searchEdgesBySimilarity(search: SimilaritySearch): Promise<ScoredEdge[]>;
}

/**
 * A graph storage engine holding Graphiti's graph, so the embedded store and a Neo4j store are interchangeable.
 *
 * @example
 * const store = createEmbeddedGraphStore();
 * await store.open();
 * await store.saveNodes([subject, rule]);
 * await store.saveEdges([edge]);
 * const hits = await store.searchEdgesFulltext({ query: 'deployment approval', groupIds: ['g1'], limit: 20 });
 */
export interface GraphStore extends GraphWrites, GraphReads, GraphSearch {
  /** Engine id for run manifests, e.g. `embedded` or `neo4j`. */
  readonly id: string;
  /**
   * Where fulltext (BM25) statistics come from: the searched groups (`group`), or the whole index (`index`,
   * Neo4j), in which case one group's ranking depends on whatever else the store holds at the time.
   */
  readonly statisticsScope: 'group' | 'index';
  /** Connects or creates the store (idempotent). Must be called before any other method. */
  open(): Promise<void>;
  /** Deletes every node and edge of one group (a detach-delete of the group). */
  deleteGroup(groupId: string): Promise<void>;
  /**
   * Group ids (of nodes or edges) that start with `prefix`, sorted; `''` lists every group. With the run
   * namespace roots of `backends/run-namespace.ts`, this finds one process's data or every stalebench run's.
   */
  listGroups(prefix: string): Promise<string[]>;
  /**
   * Deletes every node and edge whose group id starts with `prefix` (non-empty, `^[A-Za-z0-9_-]+$`: never the
   * whole store) and says how much went; used to remove what a killed run left behind.
   */
  deleteGroupsByPrefix(prefix: string): Promise<{ nodes: number; edges: number }>;
  /**
   * Runs `work` while no other `exclusive` section runs on the same engine, in this process or any other, and
   * returns its result. With `statisticsScope: 'index'` every seed → read → wipe of a namespace runs inside
   * one, so concurrent runs on one server cannot change each other's BM25 statistics mid-probe. A store whose
   * statistics are per group (embedded, in process) runs `work` at once.
   */
  exclusive<T>(work: () => Promise<T>): Promise<T>;
  /** Releases connections (idempotent); the embedded store keeps its data until garbage-collected. */
  close(): Promise<void>;
}
