// LangGraph's Python long-term store (SqliteStore from PyPI langgraph-checkpoint-sqlite) with its sqlite-vec vector
// index over `text`, driven only through put() and search(), in a Python process of its own store environment.
import { join } from 'node:path';
import { EvalError, UnsupportedFeatureError } from '#core/errors.js';
import { fieldValueOf } from '../../../../backends/field-value.js';
import { directoryName } from '../../../../backends/inspeximus-records.js';
import type { FieldValue, InsertReport, MemoryBackend, MemoryRecord } from '../../../../backends/memory-backend.js';
import { createPythonMemoryProcess } from '../../../../backends/python/python-memory-process.js';
import type { FrontdoorTargetSettings } from './target-settings.js';

/** A release of the store and the environment that holds it. */
export interface LanggraphStorePyRelease {
  /** langgraph-checkpoint-sqlite's exact version (the process refuses another). */
  version: string;
  /** Store environment (backends/python/store-envs.ts). */
  env: string;
}

/** agmi's version (3.1.1) and PyPI's newest (3.1.2). */
export const LANGGRAPH_STORE_PY_RELEASES = {
  agmi: { version: '3.1.1', env: 'langgraph-store-py' },
  latest: { version: '3.1.2', env: 'langgraph-store-py-latest' },
} as const satisfies Record<string, LanggraphStorePyRelease>;

/** Settings of `createLanggraphStorePyBackend`. */
export type LanggraphStorePySettings = FrontdoorTargetSettings & {
  /** Target id, for messages (`langgraph-store-py`, `langgraph-store-py@3.1.2`). */
  id: string;
  release: LanggraphStorePyRelease;
  /** Repository root holding `.cache/python-stores` and the driver; defaults to this checkout. */
  root?: string;
};

/** A search result as the adapter returns it (store_adapters/langgraph_sqlite_memory.py). */
interface StoreItem {
  key: string;
  value: Record<string, unknown>;
  score: number | null;
  created_at: string;
}

const PROJECT_ROOT = join(import.meta.dirname, '..', '..', '..', '..');

/**
 * Creates `langgraph-store-py`: `SqliteStore(conn, index={dims, embed, fields: ['text']})` over one SQLite file with
 * sqlite-vec, the index's embed function being the run's embedder (each text is embedded here and handed over; the
 * store calls embed() on put and on search as usual). A write is `store.put(('memories', namespace), key, {text,
 * ...metadata})`, the text stored as given and the writer metadata as sibling value fields; a read is
 * `store.search(('memories', namespace), query=..., limit=k[, filter=metadata])`, every other parameter at its default.
 * Isolation is the namespace the caller passes, not a filter over a shared pool; there is no relevance floor.
 *
 * @example
 * const store = createLanggraphStorePyBackend({ ...settings, id: 'langgraph-store-py', release: LANGGRAPH_STORE_PY_RELEASES.agmi });
 * await store.open();
 */
export function createLanggraphStorePyBackend(settings: LanggraphStorePySettings): MemoryBackend {
  const { embedder, id, release } = settings;
  const python = createPythonMemoryProcess({
    system: id,
    adapter: 'langgraph_sqlite_memory',
    pin: { name: 'langgraph-checkpoint-sqlite', version: release.version },
    env: release.env,
    root: settings.root ?? PROJECT_ROOT,
    workDir: join(settings.workDir, directoryName(settings.runId)),
    config: { dims: embedder.dimensions },
  });
  let sequence = 0;
  const embed = async (texts: readonly string[]): Promise<number[][]> => {
    const vectors = await embedder.embed(texts);
    if (vectors.length !== texts.length || vectors.some((vector) => vector.length !== embedder.dimensions))
      throw new EvalError(
        'embedder-shape',
        `${id}: ${embedder.id} did not return one ${embedder.dimensions}-d vector per text`,
      );
    return vectors;
  };
  return {
    id,
    description: {
      summary: `LangGraph Python SqliteStore (langgraph-checkpoint-sqlite ${release.version}, store environment ${release.env}), sqlite-vec vector index over value.text (${embedder.id}); put(('memories', namespace), key, {text, ...metadata}); search(namespace, query, limit[, filter])`,
      modes: {
        direct: { supported: true },
        natural: { supported: false, reason: 'the front door writes each memory verbatim' },
      },
      exposure: { rule: 'lexical' },
      storeFilter: null,
      statusFields: [],
    },
    async open() {
      await python.open();
    },
    async insert(request): Promise<InsertReport> {
      if (request.writes.mode !== 'direct')
        throw new UnsupportedFeatureError(id, 'natural writes', 'the front door writes each memory verbatim');
      if (request.writes.revoked.length > 0)
        throw new UnsupportedFeatureError(id, 'revoked facts', 'the front door writes only current memories');
      if (request.derivedFrom !== undefined)
        throw new UnsupportedFeatureError(id, 'derivedFrom', 'store items carry no provenance lists');
      const texts = request.writes.current;
      const vectors = await embed(texts);
      const steps = [
        ...texts.map((text, index) => ({ embed: { text, vector: vectors[index] } })),
        ...texts.map((text) => ({ put: { key: `m${++sequence}`, value: { ...request.metadata, text } } })),
      ];
      const result = await python.request<{ stored: number }>('insert', request.namespace, { steps });
      return { stored: result.stored, extractor: 'none', warnings: python.takeNotes() };
    },
    async search(request) {
      if (request.filter !== undefined)
        throw new UnsupportedFeatureError(id, 'filter', 'store items carry no validity fields');
      if (request.taint) throw new UnsupportedFeatureError(id, 'taint', 'store items carry no provenance lists');
      if (request.limit <= 0) return { records: [], warnings: [] };
      const [queryVector] = await embed([request.query]);
      const result = await python.request<{ records: StoreItem[] }>('search', request.namespace, {
        query: request.query,
        k: request.limit,
        options: {
          query_vector: queryVector,
          ...(request.metadataFilter ? { filter: { ...request.metadataFilter } } : {}),
        },
      });
      const records: MemoryRecord[] = result.records.map((item) => {
        const { text, ...rest } = item.value;
        const fields: Record<string, FieldValue> = { score: item.score, created_at: item.created_at };
        for (const [name, value] of Object.entries(rest)) fields[name] = fieldValueOf(value);
        return { id: item.key, text: typeof text === 'string' ? text : JSON.stringify(text), fields };
      });
      return { records, warnings: python.takeNotes() };
    },
    async reset(namespace) {
      await python.reset(namespace);
    },
    async close() {
      await python.close();
    },
  };
}
