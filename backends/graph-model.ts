// Graphiti's graph as data (types only): the nodes and edges graphiti-core 0.31.2 writes to and reads from Neo4j.
// Property names are Graphiti's own (graphiti_core/nodes.py, edges.py, models/*/…_db_queries.py).

/** An `Entity` node (Graphiti `EntityNode`, memory-systems.md §2.1). */
export interface EntityNode {
  /** Unique id; saving a node with an existing uuid updates it. */
  uuid: string;
  /** Display name, e.g. `Policy subject`; entity resolution matches on its exact-normalised form. */
  name: string;
  /** Partition key; every read is restricted to a list of group ids. */
  group_id: string;
  /** Ingest time. */
  created_at: Date;
  /** Entity summary (empty for the paper's direct seeding; summaries are not modelled). */
  summary: string;
  /** Embedding of `name`, or null when none was computed. */
  name_embedding: number[] | null;
}

/** A `RELATES_TO` fact edge between two entity nodes (Graphiti `EntityEdge`). */
export interface EntityEdge {
  /** Unique id; saving an edge with an existing uuid updates it. */
  uuid: string;
  /** Partition key, equal to the group id of both end nodes. */
  group_id: string;
  /** Uuid of the source `Entity` (the relationship's start node). */
  source_node_uuid: string;
  /** Uuid of the target `Entity` (the relationship's end node). */
  target_node_uuid: string;
  /** Relation type (`POLICY`, `DECISION`, `STATES_POLICY`, ...); indexed for fulltext search. */
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
  /** Reference time of the episode that produced the edge (graphiti-core 0.30+); null for direct seeding. */
  reference_time: Date | null;
}

/** An `Episodic` node (Graphiti `EpisodicNode`). */
export interface EpisodicNode {
  /** Unique id; saving an episode with an existing uuid updates it. */
  uuid: string;
  /** Episode name, e.g. `{scenario_id}_ep0` (Zep CE sends none: empty). */
  name: string;
  /** Partition key. */
  group_id: string;
  /** Graphiti `EpisodeType` value: the paper's probe used `text`, Zep CE's sidecar `message`. */
  source: 'text' | 'message' | 'json' | 'fact_triple';
  /** Free text, e.g. `policy feed`. */
  source_description: string;
  /** The episode body, verbatim. */
  content: string;
  /** Uuids of the edges this episode produced or invalidated. */
  entity_edges: string[];
  /** Ingest time (system time). */
  created_at: Date;
  /** The episode's reference time (world time). */
  valid_at: Date;
}

/** A `MENTIONS` edge from an episode to an entity it mentions (Graphiti `EpisodicEdge`). */
export interface EpisodicEdge {
  /** Unique id. */
  uuid: string;
  /** Partition key (the entity's group). */
  group_id: string;
  /** Uuid of the `Episodic` node. */
  source_node_uuid: string;
  /** Uuid of the mentioned `Entity` node. */
  target_node_uuid: string;
  /** Ingest time. */
  created_at: Date;
}

/**
 * What one `add_episode` saves in one transaction (Graphiti `add_nodes_and_edges_bulk`), written in this order:
 * episodes, entity nodes, MENTIONS edges, fact edges.
 */
export interface EpisodeData {
  /** The episode itself (with its `entity_edges`). */
  episodes: EpisodicNode[];
  /** Entity nodes new to the graph (existing nodes that did not change are not re-saved). */
  nodes: EntityNode[];
  /** One MENTIONS edge per entity the episode mentions. */
  mentions: EpisodicEdge[];
  /** New edges, duplicates that gained the episode, and edges the episode invalidated. */
  edges: EntityEdge[];
}

/** Arguments of `retrieveEpisodes` (graph_data_operations.py `retrieve_episodes`). */
export interface EpisodeWindow {
  /** Partitions to read. */
  groupIds: readonly string[];
  /** Only episodes with `valid_at <= referenceTime`. */
  referenceTime: Date;
  /** The most recent `lastN` by `valid_at`, then `created_at` (add_episode asks for `RELEVANT_SCHEMA_LIMIT = 10`). */
  lastN: number;
  /** Only episodes of this source type, when given (add_episode passes its own). */
  source?: EpisodicNode['source'];
}

/** An edge with the score its search method gave it. */
export interface ScoredEdge {
  /** The stored edge. */
  edge: EntityEdge;
  /** Method-specific score: Lucene BM25 for fulltext, Neo4j's normalised cosine for similarity. */
  score: number;
}
