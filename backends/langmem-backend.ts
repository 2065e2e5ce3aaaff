// langmem (0.0.30 @ b5dbe4aa) on a LangGraph-style store over a VectorStore: the paper's direct seeding with a
// hard delete, the memory store manager (deletes off) for natural mode, and store.search() as the default read.
import { EvalError, UnsupportedFeatureError } from '#core/errors.js';
import { createEmbeddedVectorStore } from './embedded-vector-store.js';
import { invokeMemoryManager } from './langmem-manager.js';
import { fromJsonLike, pythonStr } from '#python-compat/index.js';
import { createLanggraphStore, stableUuid, type SearchItem } from './langmem-store.js';
import type { BackendSettings, MemoryBackend, MemoryRecord } from './memory-backend.js';
import type { VectorStore } from './vector-store.js';
import { refuseMetadataFilter, unstoredMetadataWarnings } from './write-metadata.js';
import { refuseProvenance } from './provenance.js';

/** Settings of the langmem backend. */
export type LangmemSettings = BackendSettings & {
  /**
   * Vector engine. Absent: a fresh embedded store that this backend owns (opens and closes). A store passed
   * here is opened but never closed by the backend, so several backends can share it.
   */
  vectors?: VectorStore;
  /** Memories the manager offers the model per episode (langmem `query_limit`, default 5). */
  queryLimit?: number;
};

/** The paper's namespace (`NS = ('rebirth', 'policies')`), placed under the run id and the request namespace. */
export const LANGMEM_NAMESPACE = ['rebirth', 'policies'] as const;
const COLLECTION = 'langmem_store';
// Paper [C]: create_memory_store_manager(..., enable_deletes=True). Our ExtractionModel.consolidate models the
// manager with deletes off (langmem's default), so natural mode can rewrite or add, never remove.
// langmem's manage_memory tool writes {content} only; the caller has no way to tag a memory through it.
const NO_METADATA = "langmem's memory tools store content only, so no tag can be written for a filter to read";
const DELETES_DIVERGENCE = 'manager with enable_deletes=False (langmem default; the paper used enable_deletes=True)';

/**
 * Creates the `langmem` backend. Direct writes follow stale-retrieval.md §3.3: put v1 (`{content}`), each
 * distractor, then v2, then hard-delete v1. `current` is read per the `MemoryWrites` contract as v2 followed by
 * the distractors; keys derive from the text, as the paper's `str(abs(hash(txt)))`. Natural writes run the
 * memory manager once per episode. `search` is `store.search(namespace, query=query, limit=limit)`; a record's
 * text is the paper's `str(value.get('content', value))`, its fields the SearchItem's timestamps and score.
 *
 * @example
 * const backend = createLangmemBackend({ embedder, runId: 'r1', workDir, extraction: createSimExtractionModel() });
 * await backend.open();
 * await backend.insert({ namespace: 'mfa_waiver_access', now, writes: { mode: 'direct', revoked: [v1], current: [v2] } });
 * const { records } = await backend.search({ namespace: 'mfa_waiver_access', query, limit: 10 });
 */
export function createLangmemBackend(settings: LangmemSettings): MemoryBackend {
  const { embedder, runId, extraction } = settings;
  const vectors = settings.vectors ?? createEmbeddedVectorStore();
  const ownsVectors = settings.vectors === undefined;
  const store = createLanggraphStore({ vectors, embedder, collection: COLLECTION });
  const inserted = new Map<string, number>(); // per namespace: how many manager memories exist, for their keys
  let opened = false;

  const namespaceOf = (namespace: string): string[] => {
    if (!opened) throw new EvalError('backend-not-open', 'langmem: call open() before using the backend');
    return [runId, namespace, ...LANGMEM_NAMESPACE];
  };

  return {
    id: 'langmem',
    description: {
      summary: `langmem 0.0.30 (langchain-ai/langmem @ b5dbe4aa) on a LangGraph InMemoryStore-style store over the ${vectors.id} vector store: direct = put v1, distractors, v2 then hard-delete v1; natural = ${DELETES_DIVERGENCE}, query_limit ${settings.queryLimit ?? 5}; default read store.search(namespace, query, limit), no status field`,
      modes: { direct: { supported: true }, natural: { supported: true } },
      exposure: { rule: 'lexical' },
      storeFilter: null,
      statusFields: [],
    },
    async open() {
      await vectors.open();
      await store.setup();
      opened = true;
    },
    async insert(request) {
      const { namespace, now, writes } = request;
      const ns = namespaceOf(namespace);
      refuseProvenance('langmem', request, NO_METADATA);
      const metadataWarnings = unstoredMetadataWarnings(request, NO_METADATA);
      // InMemoryStore stamps each put with the wall clock; a 1 ms tick per write keeps the order reproducible.
      let writesDone = 0;
      const tick = () => new Date(now.getTime() + writesDone++);
      if (writes.mode === 'direct') {
        const keyOf = (text: string) => stableUuid(JSON.stringify([...ns, text]));
        const [v2, ...distractors] = writes.current;
        const order = [...writes.revoked, ...distractors, ...(v2 === undefined ? [] : [v2])];
        for (const text of order)
          await store.put([{ namespace: ns, key: keyOf(text), value: { content: text } }], tick());
        for (const text of writes.revoked) await store.delete(ns, keyOf(text));
        const stored = new Set(order.map(keyOf));
        for (const text of writes.revoked) stored.delete(keyOf(text));
        return { stored: stored.size, extractor: 'none', warnings: metadataWarnings };
      }
      let stored = 0;
      for (const episode of writes.episodes) {
        const first = inserted.get(namespace) ?? 0;
        const outcome = await invokeMemoryManager({
          store,
          namespace: ns,
          extraction,
          message: episode.text,
          at: tick(),
          queryLimit: settings.queryLimit,
          newKey: (index) => stableUuid(JSON.stringify([...ns, 'memory', first + index])),
        });
        inserted.set(namespace, first + outcome.inserted.length);
        stored += outcome.inserted.length;
      }
      return { stored, extractor: extraction.id, warnings: metadataWarnings };
    },
    async search(request) {
      const ns = namespaceOf(request.namespace);
      refuseMetadataFilter('langmem', request, NO_METADATA);
      refuseProvenance('langmem', request, NO_METADATA);
      if (request.filter !== undefined) {
        throw new UnsupportedFeatureError(
          'langmem',
          'filter',
          'LangGraph store items carry no status or validity field; the filtered read is the default read',
        );
      }
      if (request.limit <= 0) return { records: [], warnings: [] };
      const items = await store.search(ns, { query: request.query, limit: request.limit });
      return { records: items.map(toRecord), warnings: [] };
    },
    async reset(namespace) {
      await store.deletePrefix(namespaceOf(namespace));
      inserted.delete(namespace);
    },
    async close() {
      if (ownsVectors && opened) await vectors.close();
      opened = false;
    },
  };
}

function toRecord(item: SearchItem): MemoryRecord {
  return {
    id: item.key,
    // The paper's probe took `str(item.value.get('content', item.value))`.
    text: pythonStr(fromJsonLike(Object.hasOwn(item.value, 'content') ? item.value.content : item.value)),
    fields: { created_at: item.created_at.toISOString(), updated_at: item.updated_at.toISOString(), score: item.score },
  };
}
