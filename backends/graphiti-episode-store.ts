// What Graphiti's add_episode needs from a graph beyond GraphStore: Episodic nodes and edge look-ups.
import type { EntityEdge, GraphStore } from './graph-store.js';

/** An `Episodic` node (memory-systems.md §2.1). */
export interface EpisodicNode {
  /** Unique id; saving an episode with an existing uuid overwrites it. */
  uuid: string;
  /** Episode name, e.g. `{scenario_id}_ep0` (Zep CE sends none: empty). */
  name: string;
  /** Partition key. */
  group_id: string;
  /** Graphiti `EpisodeType`: the paper's probe used `text`, Zep CE's sidecar `message`. */
  source: 'text' | 'message' | 'json';
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

/** Arguments of `retrieveEpisodes` (graph_data_operations.py `retrieve_episodes`). */
export interface EpisodeWindow {
  /** Partitions to read. */
  groupIds: readonly string[];
  /** Only episodes with `valid_at <= referenceTime`. */
  referenceTime: Date;
  /** The most recent `lastN` by `valid_at` (add_episode asks for `RELEVANT_SCHEMA_LIMIT = 10`). */
  lastN: number;
  /** Only episodes of this source type, when given (add_episode passes its own). */
  source?: EpisodicNode['source'];
}

/**
 * Operations Graphiti's ingestion reads besides edge search. Proposed for `GraphStore`; until a store
 * implements them natively, `withGraphitiOperations` supplies them.
 */
export interface GraphitiOperations {
  /** Saves episodes, merging on uuid. */
  saveEpisodes(episodes: readonly EpisodicNode[]): Promise<void>;
  /** The window of earlier episodes, in chronological order (oldest first). */
  retrieveEpisodes(window: EpisodeWindow): Promise<EpisodicNode[]>;
  /** Edges `(source)-[:RELATES_TO]->(target)` (Graphiti `EntityEdge.get_between_nodes`, directed). */
  getEdgesBetweenNodes(sourceUuid: string, targetUuid: string): Promise<EntityEdge[]>;
  /** The stored edges among `uuids`, in the order of `uuids`; unknown uuids are skipped. */
  getEdgesByUuids(uuids: readonly string[]): Promise<EntityEdge[]>;
  /** Every edge of one group, in the order first saved. */
  getEdgesByGroup(groupId: string): Promise<EntityEdge[]>;
}

/** A graph store with the ingestion operations. */
export type GraphitiStore = GraphStore & GraphitiOperations;

interface GraphIndex {
  edges: Map<string, EntityEdge>;
  episodes: Map<string, EpisodicNode>;
}

// One index per underlying store, so every backend that wraps the same store sees the same graph.
const INDEXES = new WeakMap<GraphStore, GraphIndex>();
const OPERATIONS = ['saveEpisodes', 'retrieveEpisodes', 'getEdgesBetweenNodes', 'getEdgesByUuids', 'getEdgesByGroup'] as const;

/** True when the store implements the ingestion operations itself. */
export function isGraphitiStore(store: GraphStore): store is GraphitiStore {
  return OPERATIONS.every((name) => typeof (store as Partial<GraphitiStore>)[name] === 'function');
}

/**
 * Returns the store itself when it implements `GraphitiOperations`, otherwise a wrapper that delegates every
 * `GraphStore` call and keeps an in-process index of the edges and episodes written through any wrapper of
 * the same store (writes that bypass the wrappers are not seen). `deleteGroup` clears both.
 *
 * @example
 * const store = withGraphitiOperations(createEmbeddedGraphStore());
 * const between = await store.getEdgesBetweenNodes(subject.uuid, rule.uuid);
 */
export function withGraphitiOperations(store: GraphStore): GraphitiStore {
  if (isGraphitiStore(store)) return store;
  let index = INDEXES.get(store);
  if (!index) {
    index = { edges: new Map(), episodes: new Map() };
    INDEXES.set(store, index);
  }
  const { edges, episodes } = index;
  const copies = (list: Iterable<EntityEdge>): EntityEdge[] => [...list].map((edge) => structuredClone(edge));
  return {
    id: store.id,
    statisticsScope: store.statisticsScope,
    open: () => store.open(),
    saveNodes: (nodes) => store.saveNodes(nodes),
    getNodesByUuids: (uuids) => store.getNodesByUuids(uuids),
    async saveEdges(batch) {
      await store.saveEdges(batch);
      for (const edge of batch) edges.set(edge.uuid, structuredClone(edge));
    },
    searchEdgesFulltext: (search) => store.searchEdgesFulltext(search),
    searchEdgesBySimilarity: (search) => store.searchEdgesBySimilarity(search),
    async deleteGroup(groupId) {
      await store.deleteGroup(groupId);
      for (const [uuid, edge] of edges) if (edge.group_id === groupId) edges.delete(uuid);
      for (const [uuid, episode] of episodes) if (episode.group_id === groupId) episodes.delete(uuid);
    },
    listGroups: (prefix) => store.listGroups(prefix),
    async deleteGroupsByPrefix(prefix) {
      const removed = await store.deleteGroupsByPrefix(prefix);
      for (const [uuid, edge] of edges) if (edge.group_id.startsWith(prefix)) edges.delete(uuid);
      for (const [uuid, episode] of episodes) if (episode.group_id.startsWith(prefix)) episodes.delete(uuid);
      return removed;
    },
    exclusive: (work) => store.exclusive(work),
    close: () => store.close(),
    async saveEpisodes(batch) {
      for (const episode of batch) episodes.set(episode.uuid, structuredClone(episode));
    },
    async retrieveEpisodes({ groupIds, referenceTime, lastN, source }) {
      const window = [...episodes.values()]
        .filter((episode) => groupIds.includes(episode.group_id) && episode.valid_at <= referenceTime)
        .filter((episode) => source === undefined || episode.source === source)
        .sort((a, b) => b.valid_at.getTime() - a.valid_at.getTime())
        .slice(0, Math.max(0, lastN));
      return window.reverse().map((episode) => structuredClone(episode));
    },
    async getEdgesBetweenNodes(sourceUuid, targetUuid) {
      return copies([...edges.values()].filter((edge) => edge.source_node_uuid === sourceUuid && edge.target_node_uuid === targetUuid));
    },
    async getEdgesByUuids(uuids) {
      return copies(uuids.flatMap((uuid) => edges.get(uuid) ?? []));
    },
    async getEdgesByGroup(groupId) {
      return copies([...edges.values()].filter((edge) => edge.group_id === groupId));
    },
  };
}
