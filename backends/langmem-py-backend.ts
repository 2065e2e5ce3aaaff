// langmem-py: langmem itself (PyPI, the paper's library) over LangGraph's InMemoryStore, in a Python process.
import { join } from 'node:path';
import { EvalError, UnsupportedFeatureError } from '#core/errors.js';
import { fromJsonLike, pythonStr } from '#python-compat/index.js';
import { directoryName } from './inspeximus-records.js';
import { LANGMEM_NAMESPACE } from './langmem-backend.js';
import { stableUuid } from './langmem-store.js';
import type {
  BackendDescription,
  BackendSettings,
  InsertReport,
  MemoryBackend,
  MemoryRecord,
  RecordedWarning,
} from './memory-backend.js';
import { refuseProvenance } from './provenance.js';
import { startEmbeddingEndpoint, type EmbeddingEndpoint } from './python/embedding-endpoint.js';
import { libraryLlm } from './python/library-llm.js';
import {
  createPythonMemoryProcess,
  packageProblemOnce,
  type PythonMemoryProcess,
} from './python/python-memory-process.js';
import { refuseMetadataFilter, unstoredMetadataWarnings } from './write-metadata.js';

/** The package langmem-py drives: the pin of backends/python/envs/langmem.txt. */
export const LANGMEM_PIN = { name: 'langmem', version: '0.0.30' } as const;

/** Settings of langmem-py. */
export type LangmemPySettings = BackendSettings & {
  /** Repository root holding the store environment and the driver; defaults to this checkout. */
  root?: string;
};

/** One result as langmem's search tool returns it (`SearchItem.dict()`). */
interface ToolItem {
  namespace: string[];
  key: string;
  value: Record<string, unknown>;
  created_at: string;
  updated_at: string;
  score: number | null;
}

const ADAPTER = 'langmem_memory';
const ENV = 'langmem';
const PROJECT_ROOT = join(import.meta.dirname, '..');
const NO_METADATA = "langmem's memory tools store content only, so no tag can be written for a filter to read";
const NEEDS_LLM =
  "langmem's natural mode is create_memory_store_manager, which sends its own prompts to a language model";

/** Null when the `langmem` store environment holds the pinned langmem, else the error naming the install command. */
export const langmemPyProblem = packageProblemOnce(
  { system: 'langmem-py', adapter: ADAPTER, pin: LANGMEM_PIN, env: ENV },
  PROJECT_ROOT,
);

/** A tool result as a record, as the port's: text `str(value.get('content', value))`, the item's timestamps and score. */
function toRecord(item: ToolItem): MemoryRecord {
  return {
    id: item.key,
    text: pythonStr(fromJsonLike(Object.hasOwn(item.value, 'content') ? item.value.content : item.value)),
    fields: {
      created_at: new Date(item.created_at).toISOString(),
      updated_at: new Date(item.updated_at).toISOString(),
      score: item.score,
    },
  };
}

/**
 * Creates `langmem-py`: langmem 0.0.30 (store environment `langmem`) in one Python process per backend, one LangGraph
 * `InMemoryStore(index={dims, embed})` per namespace under the paper's namespace `('rebirth', 'policies')`. Direct
 * writes are the paper harness's (stale-retrieval.md §3.3): put v1 (`{content}`), each distractor, then v2, then
 * `store.delete` v1; keys are the port's (a hash of the namespace and the text). The read is langmem's own
 * `create_search_memory_tool(namespace, store=store)` invoked with `{query, limit}` (it calls `store.search`, as the
 * paper's probe did); there is no status field, so no filtered read. Every embedding comes from the run's embedder
 * through a loopback endpoint, so the library ranks with the port's vectors. Natural mode is the paper's
 * `create_memory_store_manager(model, namespace, store, enable_deletes=True)` once per episode, with langchain-openai's
 * ChatOpenAI (temperature 0) on the endpoint of `--extraction-model <alias>`; with the offline simulator it is `n/a`.
 *
 * @example
 * const backend = createLangmemPyBackend({ embedder, extraction, runId: 'r1', workDir: '/tmp/r1' });
 * await backend.open();
 * await backend.insert({ namespace: 'mfa_waiver_access', now, writes: { mode: 'direct', revoked: [v1], current: [v2] } });
 */
export function createLangmemPyBackend(settings: LangmemPySettings): MemoryBackend {
  const { embedder, runId, extraction } = settings;
  const llm = libraryLlm(extraction, NEEDS_LLM);
  let endpoint: EmbeddingEndpoint | undefined;
  let python: PythonMemoryProcess | undefined;
  const live = (): PythonMemoryProcess => {
    if (!python) throw new EvalError('backend-not-open', 'langmem-py: call open() before using the backend');
    return python;
  };
  const keyOf = (namespace: string, text: string) =>
    stableUuid(JSON.stringify([runId, namespace, ...LANGMEM_NAMESPACE, text]));
  const servers = [settings.engine?.graph.id, settings.engine?.vector.id].filter(
    (engine) => engine !== undefined && engine !== 'embedded',
  );
  const unusedEngines: RecordedWarning[] = servers.length
    ? [
        {
          type: 'unsupported',
          feature: 'storage engine',
          message: `langmem-py keeps LangGraph's InMemoryStore in its Python process; ${servers.join(' and ')} is not used`,
        },
      ]
    : [];

  const description: BackendDescription = {
    summary: `langmem ${LANGMEM_PIN.version} (PyPI, the library itself) in a Python process over LangGraph's InMemoryStore(index={dims, embed}), one per namespace: direct = store.put v1, distractors, v2 then store.delete v1; natural = create_memory_store_manager(enable_deletes=True) on ${llm.natural.supported ? extraction.id : 'no model (n/a)'}; default read langmem's create_search_memory_tool; no status field; embeddings from the run's embedder ${embedder.id} (the ports' vectors)`,
    modes: { direct: { supported: true }, natural: llm.natural },
    exposure: { rule: 'lexical' },
    storeFilter: null,
    statusFields: [],
  };

  return {
    id: 'langmem-py',
    description,
    async open() {
      if (python) return;
      endpoint = await startEmbeddingEndpoint(embedder);
      const opening = createPythonMemoryProcess({
        system: 'langmem-py',
        adapter: ADAPTER,
        pin: LANGMEM_PIN,
        root: settings.root ?? PROJECT_ROOT,
        env: ENV,
        config: { embeddings_url: endpoint.url, dimensions: embedder.dimensions, ...llm.config },
        environment: llm.environment,
        workDir: join(settings.workDir, directoryName(settings.runId), 'langmem-py'),
      });
      try {
        await opening.open();
      } catch (error) {
        await endpoint.close();
        endpoint = undefined;
        throw error;
      }
      python = opening;
    },
    async insert(request): Promise<InsertReport> {
      refuseProvenance('langmem-py', request, NO_METADATA);
      const { writes } = request;
      if (writes.mode === 'natural') {
        if (!llm.natural.supported) throw new UnsupportedFeatureError('langmem-py', 'natural mode', llm.natural.reason);
        const steps = writes.episodes.map((episode) => ({ episode: { content: episode.text } }));
        const result = await live().request<{ stored: number }>('insert', request.namespace, { steps });
        return {
          stored: result.stored,
          extractor: `langmem create_memory_store_manager on ${extraction.id}`,
          warnings: [...unusedEngines, ...unstoredMetadataWarnings(request, NO_METADATA), ...live().takeNotes()],
        };
      }
      const [v2, ...distractors] = writes.current;
      const order = [...writes.revoked, ...distractors, ...(v2 === undefined ? [] : [v2])];
      const key = (text: string) => keyOf(request.namespace, text);
      const steps = [
        ...order.map((text) => ({ put: { key: key(text), content: text } })),
        ...writes.revoked.map((text) => ({ delete: { key: key(text) } })),
      ];
      const result = await live().request<{ stored: number }>('insert', request.namespace, { steps });
      return {
        stored: result.stored,
        extractor: 'none',
        warnings: [...unusedEngines, ...unstoredMetadataWarnings(request, NO_METADATA), ...live().takeNotes()],
      };
    },
    async search(request) {
      refuseMetadataFilter('langmem-py', request, NO_METADATA);
      refuseProvenance('langmem-py', request, NO_METADATA);
      if (request.filter !== undefined)
        throw new UnsupportedFeatureError(
          'langmem-py',
          'filter',
          'LangGraph store items carry no status or validity field; the filtered read is the default read',
        );
      const found = await live().request<{ records: ToolItem[] }>('search', request.namespace, {
        query: request.query,
        k: request.limit,
        options: {},
      });
      return { records: found.records.map(toRecord), warnings: live().takeNotes() };
    },
    async listRecords(namespace) {
      const { records } = await live().request<{ records: ToolItem[] }>('list', namespace);
      return records.map((item) => ({ record: toRecord({ ...item, score: null }), revoked: false }));
    },
    async reset(namespace) {
      await live().reset(namespace);
    },
    async close() {
      const closing = python;
      python = undefined;
      try {
        await closing?.close();
      } finally {
        await endpoint?.close();
        endpoint = undefined;
      }
    },
  };
}
