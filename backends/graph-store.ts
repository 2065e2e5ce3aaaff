// The graph storage engine under the Graphiti backend (types only), shaped like Graphiti's driver search
// operations (graphiti_core/driver/operations/search_ops.py) so a Neo4j store can honour the same contract.
import type { MemoryFilter } from './memory-filter.js';

/** An `Entity` node (Graphiti `EntityNode`, memory-systems.md §2.1). */
export interface EntityNode {
  /** Unique id; saving a node with an existing uuid overwrites it. */
  uuid: string;
  /** Display name, e.g. `Policy subject`. */
  name: string;
  /** Partition key; every read is restricted to a list of group ids. */
  group_id: string;
  /** Ingest time. */
  created_at: Date;
  /** Entity summary (empty for the paper's direct seeding). */
  summary: string;
  /** Embedding of `name`, or null when none was computed. */
  name_embedding: number[] | null;
}

/** A `RELATES_TO` fact edge between two entity nodes (Graphiti `EntityEdge`). */
export interface EntityEdge {
  /** Unique id; saving an edge with an existing uuid overwrites every property. */
  uuid: string;
  /** Partition key, equal to the group id of both end nodes. */
  group_id: string;
  /** Uuid of the source `Entity`; it must have been saved before the edge. */
  source_node_uuid: string;
  /** Uuid of the target `Entity`; it must have been saved before the edge. */
  target_node_uuid: string;
  /** Relation type (`POLICY`, `DECISION`, `WORKS_AT`, ...); indexed for fulltext search. */
  name: string;
  /** Natural-language statement; indexed for fulltext search and embedded for cosine search. */
  fact: string;
  /** Embedding of `fact`; edges without one never match a similarity search. */
  fact_embedding: number[] | null;
  /** Uuids of the episodes that support the edge (empty for direct seeding). */
  episodes: string[];
  /** Row ingest time (system time). */
  created_at: Date;
  /** World time the fact became true. */
  valid_at: Date | null;
  /** World time the fact stopped being true. */
  invalid_at: Date | null;
  /** System time the edge was invalidated (retired). */
  expired_at: Date | null;
}

/** An edge with the score its search method gave it. */
export interface ScoredEdge {
  /** The stored edge. */
  edge: EntityEdge;
  /** Method-specific score: Lucene BM25 for fulltext, Neo4j's normalised cosine for similarity. */
  score: number;
}

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
 * A graph storage engine with Graphiti's edge-search operations. Scores and orderings are those of Neo4j 5
 * with Graphiti's indexes, so the embedded store and a Neo4j store are interchangeable:
 * - fulltext: the `edge_name_and_fact` index is `ON EACH [e.name, e.fact, e.group_id]`, i.e. three Lucene
 *   fields with their own BM25 statistics; the query is `group_id:"<g>" AND (<sanitised query>)` parsed by
 *   a multi-field parser (every query term is OR-ed over the three fields), standard analyser without stop
 *   words, BM25 with k1 = 1.2 and b = 0.75;
 * - similarity: `vector.similarity.cosine`, which Neo4j normalises to `(1 + cos) / 2` in [0, 1];
 * - both: results ranked by score descending, ties in the order edges were first saved.
 *
 * @example
 * const store = createEmbeddedGraphStore();
 * await store.open();
 * await store.saveNodes([subject, rule]);
 * await store.saveEdges([edge]);
 * const hits = await store.searchEdgesFulltext({ query: 'deployment approval', groupIds: ['g1'], limit: 20 });
 */
export interface GraphStore {
  /** Engine id for run manifests, e.g. `embedded` or `neo4j`. */
  readonly id: string;
  /**
   * Where fulltext (BM25) statistics come from: the searched groups (`group`), or the whole index (`index`,
   * Neo4j), in which case one group's ranking depends on whatever else the store holds at the time.
   */
  readonly statisticsScope: 'group' | 'index';
  /** Connects or creates the store (idempotent). Must be called before any other method. */
  open(): Promise<void>;
  /** Saves entity nodes, merging on uuid and overwriting every property. */
  saveNodes(nodes: readonly EntityNode[]): Promise<void>;
  /** Returns the stored nodes among `uuids`, in the order of `uuids`; unknown uuids are skipped. */
  getNodesByUuids(uuids: readonly string[]): Promise<EntityNode[]>;
  /** Saves edges, merging on uuid and overwriting every property; both end nodes must already exist. */
  saveEdges(edges: readonly EntityEdge[]): Promise<void>;
  /** BM25 search over edge name + fact in the groups; only matching edges (score > 0), best first. */
  searchEdgesFulltext(search: FulltextSearch): Promise<ScoredEdge[]>;
  /** Cosine search over `fact_embedding` in the groups; only `score > minScore`, best first. */
  searchEdgesBySimilarity(search: SimilaritySearch): Promise<ScoredEdge[]>;
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
