// The embedded vector store made persistent for at-rest measurement: every write rewrites one JSON file; open reloads it.
import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { createEmbeddedVectorStore } from '../../../../backends/embedded-vector-store.js';
import type { VectorPoint, VectorStore } from '../../../../backends/vector-store.js';

/** A point as the file holds it, with its first-upsert rank (the store's order and its tie order). */
export interface StoredPoint extends VectorPoint {
  rank: number;
}

/** The whole file. */
export interface VectorFile {
  version: 1;
  collections: Record<string, { dimensions: number; points: StoredPoint[] }>;
}

/** Reads the file (no collections when it does not exist). */
export function readVectorFile(path: string): VectorFile {
  if (!existsSync(path)) return { version: 1, collections: {} };
  return JSON.parse(readFileSync(path, 'utf8')) as VectorFile;
}

/**
 * Creates a vector store over `path`: the embedded store's exact cosine ranking and payload filters, with every
 * collection written to the file after each write (temp file + rename) and reloaded in rank order on `open()`.
 * Persistence added for the measurement, not part of any library: rows on it are labelled `(model)`.
 *
 * @example const store = createJsonFileVectorStore('/tmp/cell/store/vectors.json'); await store.open();
 */
export function createJsonFileVectorStore(path: string): VectorStore {
  let inner = createEmbeddedVectorStore();
  let state: VectorFile = { version: 1, collections: {} };
  const persist = (): void => {
    writeFileSync(`${path}.tmp`, `${JSON.stringify(state)}\n`);
    renameSync(`${path}.tmp`, path);
  };
  const collection = (name: string) => {
    const found = state.collections[name];
    if (!found) throw new Error(`json-file vector store: no collection "${name}"`);
    return found;
  };
  const prune = async (name: string): Promise<void> => {
    const kept = new Set((await inner.scroll(name)).map((point) => point.id));
    collection(name).points = collection(name).points.filter((point) => kept.has(point.id));
    persist();
  };
  return {
    id: 'embedded+json-file',
    async open() {
      inner = createEmbeddedVectorStore();
      await inner.open();
      state = readVectorFile(path);
      for (const [name, { dimensions, points }] of Object.entries(state.collections)) {
        await inner.ensureCollection(name, dimensions);
        await inner.upsert(
          name,
          [...points].sort((a, b) => a.rank - b.rank).map(({ rank: _rank, ...point }) => point),
        );
      }
    },
    async ensureCollection(name, dimensions) {
      await inner.ensureCollection(name, dimensions);
      if (!state.collections[name]) {
        state.collections[name] = { dimensions, points: [] };
        persist();
      }
    },
    async upsert(name, points) {
      await inner.upsert(name, points);
      const stored = collection(name).points;
      for (const point of points) {
        const at = stored.findIndex((existing) => existing.id === point.id);
        const rank =
          at >= 0 ? (stored[at] as StoredPoint).rank : Math.max(0, ...stored.map((existing) => existing.rank)) + 1;
        const copy = { ...structuredClone(point), rank };
        if (at >= 0) stored[at] = copy;
        else stored.push(copy);
      }
      persist();
    },
    search: (request) => inner.search(request),
    get: (name, ids) => inner.get(name, ids),
    scroll: (name, filter) => inner.scroll(name, filter),
    async delete(name, selector) {
      await inner.delete(name, selector);
      await prune(name);
    },
    listCollections: (prefix) => inner.listCollections(prefix),
    async dropCollection(name) {
      await inner.dropCollection(name);
      delete state.collections[name];
      persist();
    },
    async close() {
      await inner.close();
    },
  };
}
