// LangGraph's InMemoryStore (langgraph @ f09cfe8f, libs/checkpoint/langgraph/store/memory) on a VectorStore:
// (namespace tuple, key, value) items, store-set timestamps, search by cosine similarity of the query.
import { createHash } from 'node:crypto';
import type { Embedder } from './embedder.js';
import { fromJsonLike, pythonJsonDumps } from '#python-compat/index.js';
import type { PayloadFilter, VectorPoint, VectorStore } from './vector-store.js';

/** A stored item (LangGraph `Item`). */
export interface StoreItem {
  /** Hierarchical namespace tuple. */
  namespace: string[];
  /** Key, unique within the namespace. */
  key: string;
  /** The stored value. */
  value: Record<string, unknown>;
  /** Set by the store on every put (InMemoryStore re-creates the item, so an overwrite resets it too). */
  created_at: Date;
  /** Set by the store on every put. */
  updated_at: Date;
}

/** A search result (LangGraph `SearchItem`): the item plus its similarity, `null` when no query was given. */
export interface SearchItem extends StoreItem {
  score: number | null;
}

/** One write of a batch. */
export interface PutOperation {
  namespace: readonly string[];
  key: string;
  value: Record<string, unknown>;
}

/** The BaseStore operations langmem uses. */
export interface LanggraphStore {
  /** Creates the collection (embedder dimensions). */
  setup(): Promise<void>;
  /** Writes a batch at one store time; every value is embedded as `json.dumps(value, sort_keys=True)`. */
  put(operations: readonly PutOperation[], at: Date): Promise<void>;
  /** Hard delete (`store.delete(namespace, key)`): the item and its vector are gone. */
  delete(namespace: readonly string[], key: string): Promise<void>;
  /** `store.search(prefix, query=..., limit=...)`: items under the prefix, best cosine first. */
  search(prefix: readonly string[], options: { query: string; limit: number }): Promise<SearchItem[]>;
  /** Deletes every item whose namespace starts with `prefix`. */
  deletePrefix(prefix: readonly string[]): Promise<void>;
}

/** Where the store keeps its points. */
export interface LanggraphStoreSettings {
  vectors: VectorStore;
  embedder: Embedder;
  /** Collection name, shared by every namespace. */
  collection: string;
}

/**
 * Creates the store. Differences from InMemoryStore, all deliberate: the store time is passed in (`at`) instead
 * of the wall clock, for reproducible runs; a namespace-prefix match is a payload condition on the item's
 * list of namespace prefixes; result order on equal scores is first-put order, as InMemoryStore's stable
 * sort over its dicts gives within one namespace. Index fields are LangGraph's default `["$"]`, the paper's
 * configuration (`index={'dims', 'embed'}`), so the whole value is embedded as JSON.
 *
 * @example
 * const store = createLanggraphStore({ vectors, embedder, collection: 'langmem_store' });
 * await store.setup();
 * await store.put([{ namespace: ['r1', 'ns', 'rebirth', 'policies'], key, value: { content: 'A.' } }], now);
 */
export function createLanggraphStore({ vectors, embedder, collection }: LanggraphStoreSettings): LanggraphStore {
  const under = (prefix: readonly string[]): PayloadFilter => ({
    must: [{ key: 'namespace_prefixes', match: { value: JSON.stringify(prefix) } }],
  });

  return {
    async setup() {
      await vectors.ensureCollection(collection, embedder.dimensions);
    },
    async put(operations, at) {
      if (operations.length === 0) return;
      const embeddings = await embedder.embed(
        operations.map((operation) => pythonJsonDumps(fromJsonLike(operation.value), { sortKeys: true })),
      );
      const points: VectorPoint[] = operations.map((operation, index) => ({
        id: pointId(operation.namespace, operation.key),
        vector: embeddings[index] ?? [],
        payload: {
          namespace: [...operation.namespace],
          namespace_prefixes: operation.namespace.map((_, end) =>
            JSON.stringify(operation.namespace.slice(0, end + 1)),
          ),
          key: operation.key,
          value: operation.value,
          created_at: at.toISOString(),
          updated_at: at.toISOString(),
        },
      }));
      await vectors.upsert(collection, points);
    },
    async delete(namespace, key) {
      await vectors.delete(collection, [pointId(namespace, key)]);
    },
    async search(prefix, { query, limit }) {
      // InMemoryStore embeds only a truthy query; without one it lists items in stored order with no score.
      if (query === '')
        return (await vectors.scroll(collection, under(prefix)))
          .slice(0, limit)
          .map((point) => toItem(point.payload, null));
      const [vector = []] = await embedder.embed([query]);
      const hits = await vectors.search({ collection, vector, limit, filter: under(prefix) });
      return hits.map((hit) => toItem(hit.payload, hit.score));
    },
    async deletePrefix(prefix) {
      await vectors.delete(collection, under(prefix));
    },
  };
}

function toItem(payload: Record<string, unknown>, score: number | null): SearchItem {
  return {
    namespace: payload.namespace as string[],
    key: payload.key as string,
    value: payload.value as Record<string, unknown>,
    created_at: new Date(payload.created_at as string),
    updated_at: new Date(payload.updated_at as string),
    score,
  };
}

/** A uuid per (namespace, key), as langmem's `_stable_id`; version-8 layout over sha256 so it is a valid point id. */
function pointId(namespace: readonly string[], key: string): string {
  return stableUuid(JSON.stringify([...namespace, key]));
}

/** An RFC 9562 version-8 uuid from the sha256 of the text. */
export function stableUuid(text: string): string {
  const hex = createHash('sha256').update(text).digest('hex');
  const variant = ((Number.parseInt(hex[16] ?? '0', 16) & 0x3) | 0x8).toString(16);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-8${hex.slice(13, 16)}-${variant}${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}
