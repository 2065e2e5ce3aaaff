// The embedded graph store made persistent for at-rest measurement: every write rewrites one JSON file; open reloads it.
import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { createEmbeddedGraphStore } from '../../../../backends/embedded-graph-store.js';
import type {
  EntityEdge,
  EntityNode,
  EpisodicEdge,
  EpisodicNode,
  GraphStore,
} from '../../../../backends/graph-store.js';

/** An edge as the file holds it: datetimes as ISO strings, plus its first-save rank (the store's order). */
export interface StoredEdge
  extends Omit<EntityEdge, 'created_at' | 'valid_at' | 'invalid_at' | 'expired_at' | 'reference_time'> {
  created_at: string;
  valid_at: string | null;
  invalid_at: string | null;
  expired_at: string | null;
  /** Absent in files written before graphiti-core 0.31's `reference_time`. */
  reference_time?: string | null;
  rank: number;
}

/** A node as the file holds it. */
export interface StoredNode extends Omit<EntityNode, 'created_at'> {
  created_at: string;
}

/** An episode and a MENTIONS edge as the file holds them (datetimes as ISO strings). */
export type StoredEpisode = Omit<EpisodicNode, 'created_at' | 'valid_at'> & { created_at: string; valid_at: string };
export type StoredMention = Omit<EpisodicEdge, 'created_at'> & { created_at: string };

/** The whole file. */
export interface GraphFile {
  version: 1;
  nodes: StoredNode[];
  edges: StoredEdge[];
  /** Natural-mode episodes and their MENTIONS (absent in files that hold none). */
  episodes?: StoredEpisode[];
  mentions?: StoredMention[];
}

const iso = (date: Date | null): string | null => (date === null ? null : date.toISOString());
const date = (text: string | null): Date | null => (text === null ? null : new Date(text));

/** Reads the file (an empty graph when it does not exist). */
export function readGraphFile(path: string): GraphFile {
  if (!existsSync(path)) return { version: 1, nodes: [], edges: [] };
  return JSON.parse(readFileSync(path, 'utf8')) as GraphFile;
}

/**
 * Creates a graph store over `path`: the embedded store's scoring and ordering, with its state written to the file
 * after every write (temp file + rename) and loaded on `open()`. Edges keep their first-save rank, so a reload
 * restores the tie order. This is persistence added for the measurement, not part of any library: rows on it
 * are labelled `(model)`.
 *
 * @example const store = createJsonFileGraphStore('/tmp/cell/store/graph.json'); await store.open();
 */
export function createJsonFileGraphStore(path: string): GraphStore {
  let inner = createEmbeddedGraphStore();
  let state: GraphFile = { version: 1, nodes: [], edges: [] };
  const persist = (): void => {
    const temporary = `${path}.tmp`;
    writeFileSync(temporary, `${JSON.stringify(state)}\n`);
    renameSync(temporary, path);
  };
  const upsert = <T extends { uuid: string }>(list: T[], item: T): void => {
    const at = list.findIndex((existing) => existing.uuid === item.uuid);
    if (at >= 0) list[at] = item;
    else list.push(item);
  };
  const keepNodes = (nodes: readonly EntityNode[]) =>
    nodes.forEach((node) => {
      upsert(state.nodes, { ...node, created_at: node.created_at.toISOString() });
    });
  const keepEdges = (edges: readonly EntityEdge[]) => {
    for (const edge of edges) {
      const existing = state.edges.find((other) => other.uuid === edge.uuid);
      const rank = existing ? existing.rank : Math.max(0, ...state.edges.map((other) => other.rank)) + 1;
      upsert(state.edges, {
        ...edge,
        created_at: edge.created_at.toISOString(),
        valid_at: iso(edge.valid_at),
        invalid_at: iso(edge.invalid_at),
        expired_at: iso(edge.expired_at),
        reference_time: iso(edge.reference_time),
        rank,
      });
    }
  };
  const keep = (test: (group: string) => boolean): void => {
    const kept = <T extends { group_id: string }>(list: T[] | undefined) =>
      (list ?? []).filter((item) => !test(item.group_id));
    state = {
      version: 1,
      nodes: kept(state.nodes),
      edges: kept(state.edges),
      episodes: kept(state.episodes),
      mentions: kept(state.mentions),
    };
  };
  return {
    id: 'embedded+json-file',
    statisticsScope: 'group',
    async open() {
      inner = createEmbeddedGraphStore();
      state = readGraphFile(path);
      await inner.saveNodes(state.nodes.map((node) => ({ ...node, created_at: new Date(node.created_at) })));
      const ordered = [...state.edges].sort((a, b) => a.rank - b.rank);
      const edges = ordered.map(({ rank: _rank, ...edge }) => ({
        ...edge,
        created_at: new Date(edge.created_at),
        valid_at: date(edge.valid_at),
        invalid_at: date(edge.invalid_at),
        expired_at: date(edge.expired_at),
        reference_time: date(edge.reference_time ?? null),
      }));
      const episodes = (state.episodes ?? []).map((episode) => ({
        ...episode,
        created_at: new Date(episode.created_at),
        valid_at: new Date(episode.valid_at),
      }));
      const mentions = (state.mentions ?? []).map((mention) => ({
        ...mention,
        created_at: new Date(mention.created_at),
      }));
      await inner.saveEpisodeData({ episodes, nodes: [], mentions, edges });
    },
    async saveNodes(nodes) {
      await inner.saveNodes(nodes);
      keepNodes(nodes);
      persist();
    },
    async saveEdges(edges) {
      await inner.saveEdges(edges);
      keepEdges(edges);
      persist();
    },
    async saveEpisodeData(data) {
      await inner.saveEpisodeData(data);
      for (const episode of data.episodes) {
        state.episodes ??= [];
        upsert(state.episodes, {
          ...episode,
          created_at: episode.created_at.toISOString(),
          valid_at: episode.valid_at.toISOString(),
        });
      }
      keepNodes(data.nodes);
      for (const mention of data.mentions) {
        state.mentions ??= [];
        upsert(state.mentions, { ...mention, created_at: mention.created_at.toISOString() });
      }
      keepEdges(data.edges);
      persist();
    },
    getNodesByUuids: (uuids) => inner.getNodesByUuids(uuids),
    getNodesByGroup: (groupId) => inner.getNodesByGroup(groupId),
    getEdgesByGroup: (groupId) => inner.getEdgesByGroup(groupId),
    getEdgesBetweenNodes: (sourceUuid, targetUuid) => inner.getEdgesBetweenNodes(sourceUuid, targetUuid),
    getEpisodesByGroup: (groupId) => inner.getEpisodesByGroup(groupId),
    getMentionsByGroup: (groupId) => inner.getMentionsByGroup(groupId),
    retrieveEpisodes: (window) => inner.retrieveEpisodes(window),
    searchEdgesFulltext: (search) => inner.searchEdgesFulltext(search),
    searchEdgesBySimilarity: (search) => inner.searchEdgesBySimilarity(search),
    async deleteGroup(groupId) {
      await inner.deleteGroup(groupId);
      keep((group) => group === groupId);
      persist();
    },
    listGroups: (prefix) => inner.listGroups(prefix),
    async deleteGroupsByPrefix(prefix) {
      const removed = await inner.deleteGroupsByPrefix(prefix);
      keep((group) => group.startsWith(prefix));
      persist();
      return removed;
    },
    exclusive: (work) => inner.exclusive(work),
    async close() {
      await inner.close();
    },
  };
}
