// The real LangGraph JS long-term store (@langchain/langgraph-checkpoint InMemoryStore, the class @langchain/langgraph
// re-exports) with a vector index over the `text` field, driven only through put() and search().
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { EvalError, UnsupportedFeatureError } from '#core/errors.js';
import type { BackendSettings, FieldValue, MemoryBackend, MemoryRecord } from '../../../../backends/memory-backend.js';

type InMemoryStore = import('@langchain/langgraph-checkpoint').InMemoryStore;
type SearchOptions = NonNullable<Parameters<InMemoryStore['search']>[1]>;

/** The installed @langchain/langgraph-checkpoint version, read from its package.json. */
export function langgraphCheckpointVersion(): string {
  let directory = dirname(createRequire(import.meta.url).resolve('@langchain/langgraph-checkpoint'));
  while (!existsSync(join(directory, 'package.json')) && directory !== dirname(directory))
    directory = dirname(directory);
  return (JSON.parse(readFileSync(join(directory, 'package.json'), 'utf8')) as { version: string }).version;
}

/**
 * Creates `langgraph-store`: LangGraph's `InMemoryStore({index: {dims, embeddings, fields: ['text']}})` with the
 * shared embedder. A write is `store.put(['memories', runId, namespace], key, {text, ...metadata})`, the text stored as
 * given and the writer metadata as sibling value fields; a read is `store.search(['memories', runId, namespace],
 * {query, limit, filter})`, every other parameter at its default. Isolation is the namespace the caller passes, not a
 * filter over a shared pool; there is no relevance floor. Nothing here replaces LangGraph's storage or ranking.
 *
 * @example
 * const store = createLanggraphStoreBackend({ embedder, runId: 'r1', workDir, extraction });
 * await store.open();
 */
export function createLanggraphStoreBackend(settings: BackendSettings): MemoryBackend {
  const { embedder, runId } = settings;
  let store: InMemoryStore | undefined;
  let sequence = 0;
  const label = (part: string): string => encodeURIComponent(part); // InMemoryStore forbids ':' in a label
  const namespaceOf = (namespace: string): string[] => {
    if (!store) throw new EvalError('backend-not-open', 'langgraph-store: call open() before using the backend');
    return ['memories', label(runId), label(namespace)];
  };

  return {
    id: 'langgraph-store',
    description: {
      summary: `@langchain/langgraph-checkpoint ${langgraphCheckpointVersion()} InMemoryStore, vector index over value.text (${embedder.id}); put(['memories', run, namespace], key, {text, ...metadata}); search(namespace, {query, limit, filter})`,
      modes: { direct: { supported: true }, natural: { supported: true } },
      exposure: { rule: 'lexical' },
      storeFilter: null,
      statusFields: [],
    },
    async open() {
      if (store) return;
      const { InMemoryStore } = await import('@langchain/langgraph-checkpoint');
      // LangGraph calls only embedDocuments / embedQuery on the configured embeddings.
      const embeddings = {
        embedDocuments: (texts: string[]) => embedder.embed(texts),
        embedQuery: async (text: string) => (await embedder.embed([text]))[0] ?? [],
      };
      store = new InMemoryStore({
        index: { dims: embedder.dimensions, embeddings: embeddings as never, fields: ['text'] },
      });
    },
    async insert({ namespace, writes, metadata }) {
      const ns = namespaceOf(namespace);
      const texts =
        writes.mode === 'direct'
          ? [...writes.revoked, ...writes.current]
          : writes.episodes.map((episode) => episode.text);
      const keys: string[] = [];
      for (const text of texts) {
        const key = `m${++sequence}`;
        keys.push(key);
        await store!.put(ns, key, { ...metadata, text });
      }
      // The store has no revocation primitive: a revoked fact is put and then deleted, as langmem does.
      if (writes.mode === 'direct')
        for (const key of keys.slice(0, writes.revoked.length)) await store!.delete(ns, key);
      return {
        stored: texts.length - (writes.mode === 'direct' ? writes.revoked.length : 0),
        extractor: 'none',
        warnings: [],
      };
    },
    async search(request) {
      const ns = namespaceOf(request.namespace);
      if (request.filter !== undefined)
        throw new UnsupportedFeatureError('langgraph-store', 'filter', 'store items carry no validity fields');
      if (request.limit <= 0) return { records: [], warnings: [] };
      const options: SearchOptions = {
        query: request.query,
        limit: request.limit,
        ...(request.metadataFilter ? { filter: { ...request.metadataFilter } } : {}),
      };
      const items = await store!.search(ns, options);
      const records: MemoryRecord[] = items.map((item) => {
        const { text, ...rest } = item.value as Record<string, unknown>;
        const fields: Record<string, FieldValue> = {
          score: item.score ?? null,
          created_at: item.createdAt.toISOString(),
        };
        for (const [key, value] of Object.entries(rest))
          fields[key] =
            value === undefined || typeof value === 'object' ? JSON.stringify(value ?? null) : (value as FieldValue);
        return { id: item.key, text: typeof text === 'string' ? text : JSON.stringify(text), fields };
      });
      return { records, warnings: [] };
    },
    async reset(namespace) {
      const ns = namespaceOf(namespace);
      for (const item of await store!.search(ns, { limit: 100_000 })) await store!.delete(ns, item.key);
    },
    async close() {
      store = undefined;
    },
  };
}
