// Lists and removes what eval processes left on server engines, by the nonce every namespace root carries.
import type { GraphStore } from './graph-store.js';
import type { EngineSpec } from './memory-backend.js';
import { nonceOfName, rootPrefix } from './run-namespace.js';
import type { VectorStore } from './vector-store.js';

/** One namespace on a server engine (a Neo4j group id, a Qdrant collection) and the nonce of its process. */
export interface EngineNamespace {
  /** `neo4j` or `qdrant`. */
  engine: string;
  /** The group id, or the collection name without `stalebench_`. */
  name: string;
  /** The nonce of the eval process that created it. */
  nonce: string;
}

/** What `removeEngineNamespaces` deleted for one nonce on one engine. */
export interface RemovedNamespaces {
  engine: string;
  nonce: string;
  /** Names removed (group ids or collections). */
  namespaces: string[];
  /** `6 nodes, 8 edges` or `2 collections`. */
  detail: string;
}

// Every run collection is `stalebench_<root>_...` (backends/index.ts, qdrant-mem0.ts).
const QDRANT_PREFIX = 'stalebench';

async function serverStores(engine: EngineSpec): Promise<{ graph?: GraphStore; vectors?: VectorStore }> {
  const stores: { graph?: GraphStore; vectors?: VectorStore } = {};
  if (engine.graph.id === 'neo4j') {
    const { createNeo4jGraphStore } = await import('./neo4j-graph-store.js');
    stores.graph = createNeo4jGraphStore({
      uri: engine.graph.uri,
      user: engine.graph.user,
      password: engine.graph.password,
    });
  }
  if (engine.vector.id === 'qdrant') {
    const { createQdrantVectorStore } = await import('./qdrant-vector-store.js');
    stores.vectors = createQdrantVectorStore({
      url: engine.vector.url,
      apiKey: engine.vector.apiKey,
      collectionPrefix: QDRANT_PREFIX,
    });
  }
  return stores;
}

async function withStores<T>(
  engine: EngineSpec,
  work: (stores: { graph?: GraphStore; vectors?: VectorStore }) => Promise<T>,
): Promise<T> {
  const stores = await serverStores(engine);
  try {
    await stores.graph?.open();
    await stores.vectors?.open();
    return await work(stores);
  } finally {
    await stores.graph?.close();
    await stores.vectors?.close();
  }
}

/**
 * Every namespace an eval process created on the server engines of `engine` (embedded engines keep nothing
 * outside the process: an empty list).
 *
 * @example
 * const leftovers = await listEngineNamespaces({ graph: { id: 'neo4j', uri, user, password }, vector: { id: 'embedded' } });
 */
export async function listEngineNamespaces(engine: EngineSpec): Promise<EngineNamespace[]> {
  return withStores(engine, async ({ graph, vectors }) => {
    const named = (id: string, names: string[]) =>
      names.flatMap((name) => {
        const nonce = nonceOfName(name);
        return nonce === null ? [] : [{ engine: id, name, nonce }];
      });
    return [
      ...(graph ? named(graph.id, await graph.listGroups('sb')) : []),
      ...(vectors ? named(vectors.id, await vectors.listCollections('sb')) : []),
    ];
  });
}

/**
 * Deletes every namespace of the given nonces on the server engines of `engine`. On a graph store the deletes run
 * inside its exclusive section, so they never change the index statistics under another run's probe.
 */
export async function removeEngineNamespaces(
  engine: EngineSpec,
  nonces: readonly string[],
): Promise<RemovedNamespaces[]> {
  if (nonces.length === 0) return [];
  return withStores(engine, async ({ graph, vectors }) => {
    const removed: RemovedNamespaces[] = [];
    for (const nonce of [...new Set(nonces)]) {
      const prefix = rootPrefix(nonce);
      if (graph) {
        const store = graph;
        const entry = await store.exclusive(async () => {
          const namespaces = await store.listGroups(prefix);
          const { nodes, edges } = await store.deleteGroupsByPrefix(prefix);
          return { engine: store.id, nonce, namespaces, detail: `${nodes} nodes, ${edges} edges` };
        });
        if (entry.namespaces.length > 0) removed.push(entry);
      }
      if (vectors) {
        const namespaces = await vectors.listCollections(prefix);
        for (const name of namespaces) await vectors.dropCollection(name);
        if (namespaces.length > 0)
          removed.push({ engine: vectors.id, nonce, namespaces, detail: `${namespaces.length} collections` });
      }
    }
    return removed;
  });
}
