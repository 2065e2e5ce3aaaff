// The embedded graph store made persistent for at-rest measurement: every write rewrites one JSON file; open reloads it.
import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { createEmbeddedGraphStore } from '../embedded-graph-store.js';
import type { EntityEdge, EntityNode, GraphStore } from '../graph-store.js';

/** An edge as the file holds it: datetimes as ISO strings, plus its first-save rank (the store's order). */
export interface StoredEdge extends Omit<EntityEdge, 'created_at' | 'valid_at' | 'invalid_at' | 'expired_at'> {
  created_at: string;
  valid_at: string | null;
  invalid_at: string | null;
  expired_at: string | null;
  rank: number;
}

/** A node as the file holds it. */
export interface StoredNode extends Omit<EntityNode, 'created_at'> {
  created_at: string;
}

/** The whole file. */
export interface GraphFile {
  version: 1;
  nodes: StoredNode[];
  edges: StoredEdge[];
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
  return {
    id: 'embedded+json-file',
    statisticsScope: 'group',
    async open() {
      inner = createEmbeddedGraphStore();
      state = readGraphFile(path);
      await inner.saveNodes(state.nodes.map((node) => ({ ...node, created_at: new Date(node.created_at) })));
      const ordered = [...state.edges].sort((a, b) => a.rank - b.rank);
      await inner.saveEdges(ordered.map(({ rank: _rank, ...edge }) => ({ ...edge, created_at: new Date(edge.created_at), valid_at: date(edge.valid_at), invalid_at: date(edge.invalid_at), expired_at: date(edge.expired_at) })));
    },
    async saveNodes(nodes) {
      await inner.saveNodes(nodes);
      for (const node of nodes) {
        const stored = { ...node, created_at: node.created_at.toISOString() };
        const at = state.nodes.findIndex((existing) => existing.uuid === node.uuid);
        if (at >= 0) state.nodes[at] = stored;
        else state.nodes.push(stored);
      }
      persist();
    },
    getNodesByUuids: (uuids) => inner.getNodesByUuids(uuids),
    async saveEdges(edges) {
      await inner.saveEdges(edges);
      for (const edge of edges) {
        const at = state.edges.findIndex((existing) => existing.uuid === edge.uuid);
        const rank = at >= 0 ? (state.edges[at] as StoredEdge).rank : Math.max(0, ...state.edges.map((existing) => existing.rank)) + 1;
        const stored: StoredEdge = { ...edge, created_at: edge.created_at.toISOString(), valid_at: iso(edge.valid_at), invalid_at: iso(edge.invalid_at), expired_at: iso(edge.expired_at), rank };
        if (at >= 0) state.edges[at] = stored;
        else state.edges.push(stored);
      }
      persist();
    },
    searchEdgesFulltext: (search) => inner.searchEdgesFulltext(search),
    searchEdgesBySimilarity: (search) => inner.searchEdgesBySimilarity(search),
    async deleteGroup(groupId) {
      await inner.deleteGroup(groupId);
      state = { version: 1, nodes: state.nodes.filter((node) => node.group_id !== groupId), edges: state.edges.filter((edge) => edge.group_id !== groupId) };
      persist();
    },
    listGroups: (prefix) => inner.listGroups(prefix),
    async deleteGroupsByPrefix(prefix) {
      const removed = await inner.deleteGroupsByPrefix(prefix);
      state = { version: 1, nodes: state.nodes.filter((node) => !node.group_id.startsWith(prefix)), edges: state.edges.filter((edge) => !edge.group_id.startsWith(prefix)) };
      persist();
      return removed;
    },
    exclusive: (work) => inner.exclusive(work),
    async close() {
      await inner.close();
    },
  };
}
