// Opens the real mem0 OSS `Memory` (mem0ai/oss) on run-private SQLite files: telemetry off, our embedder, our LLM.
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { Memory, MemoryConfig } from 'mem0ai/oss';
import { EvalError } from '#core/errors.js';
import type { Embedder } from './embedder.js';
import type { Mem0ChatModel } from './mem0-extraction-llm.js';
import { probeQdrant, type QdrantEndpoint } from './qdrant-connection.js';
import { mem0QdrantConfig } from './qdrant-mem0.js';
import type { RecordedWarning } from './memory-backend.js';

/** Where one backend's mem0 files live, all under its `workDir`. */
export interface Mem0Paths {
  /** `<workDir>/mem0`. */
  root: string;
  /** The `memory` vector store; mem0 derives `vector_store_entities.db` from it, so it must end in `.db`. */
  vectorStore: string;
  /** The SQLite history store (mem0's default is `memory.db` in the current directory). */
  history: string;
  /** `MEM0_DIR`: mem0's bookkeeping `config.json` (its default is `~/.mem0`). */
  mem0Dir: string;
}

/** The mem0 file layout under a work directory. */
export function mem0Paths(workDir: string): Mem0Paths {
  const root = join(workDir, 'mem0');
  return {
    root,
    vectorStore: join(root, 'vector_store.db'),
    history: join(root, 'history.db'),
    mem0Dir: join(root, 'home'),
  };
}

/** The LLM mem0 gets: a LangChain-style model object, or mem0's own `openai` provider on an endpoint. */
export type Mem0LlmChoice =
  | { provider: 'langchain'; model: Mem0ChatModel }
  | { provider: 'openai'; model: string; baseURL: string; apiKey?: string };

/** An opened mem0 client. */
export interface Mem0Client {
  /** The library's own `Memory` instance. */
  memory: Memory;
  /** Compatibility notes from opening (the LangChain bridge), for natural-mode insert reports. */
  warnings: readonly RecordedWarning[];
  /** Closes the SQLite handles mem0 opened (it has no close of its own). */
  close(): void;
}

interface SqliteHandle {
  open: boolean;
  close(): void;
}
/** The private fields of `Memory` this module touches, checked at run time. */
interface MemoryInternals {
  llm?: unknown;
  vectorStore?: { db?: SqliteHandle };
  _entityStore?: { db?: SqliteHandle };
  db?: { db?: SqliteHandle };
}

// mem0 reads MEM0_DIR whenever a client initialises; opens run one at a time so each sees its own directory.
let openQueue: Promise<unknown> = Promise.resolve();
let cachedVersion: string | undefined;
const INIT_USER = 'stalebench-init';

/** Installed mem0ai version, read from its package.json (for the manifest and the backend summary). */
export function mem0Version(): string {
  if (cachedVersion !== undefined) return cachedVersion;
  let directory = dirname(createRequire(import.meta.url).resolve('mem0ai'));
  while (!existsSync(join(directory, 'package.json')) && directory !== dirname(directory))
    directory = dirname(directory);
  cachedVersion = (JSON.parse(readFileSync(join(directory, 'package.json'), 'utf8')) as { version: string }).version;
  return cachedVersion;
}

/**
 * Sets `MEM0_TELEMETRY=false` and `MEM0_DIR` (before the first import: mem0 reads the telemetry switch when its
 * module loads), imports `mem0ai/oss`, constructs `Memory` and waits for its initialisation.
 */
/** Put mem0's vectors on Qdrant (mem0's own `qdrant` provider) instead of the SQLite `memory` provider. */
export interface Mem0QdrantTarget extends QdrantEndpoint {
  collectionPrefix: string;
  system: string;
}

export function openMem0Client(options: {
  paths: Mem0Paths;
  embedder: Embedder;
  llm: Mem0LlmChoice;
  qdrant?: Mem0QdrantTarget;
}): Promise<Mem0Client> {
  const run = openQueue.then(() => open(options));
  openQueue = run.catch(() => undefined);
  return run;
}

async function open({
  paths,
  embedder,
  llm,
  qdrant,
}: {
  paths: Mem0Paths;
  embedder: Embedder;
  llm: Mem0LlmChoice;
  qdrant?: Mem0QdrantTarget;
}): Promise<Mem0Client> {
  // mem0's own Qdrant client waits minutes and only logs; fail fast with the URL instead.
  if (qdrant) await probeQdrant(qdrant);
  process.env.MEM0_TELEMETRY = 'false';
  process.env.MEM0_DIR = paths.mem0Dir;
  const { Memory } = await importMem0();
  const embeddings = {
    embedQuery: async (text: string) => (await embedder.embed([text]))[0] ?? [],
    embedDocuments: (texts: string[]) => embedder.embed(texts),
  };
  const config: Partial<MemoryConfig> = {
    embedder: { provider: 'langchain', config: { model: embeddings, embeddingDims: embedder.dimensions } },
    // `dimension` skips mem0's probe embedding.
    vectorStore: qdrant
      ? (mem0QdrantConfig({ ...qdrant, dimension: embedder.dimensions }) as MemoryConfig['vectorStore'])
      : { provider: 'memory', config: { dimension: embedder.dimensions, dbPath: paths.vectorStore } },
    llm:
      llm.provider === 'openai'
        ? { provider: 'openai', config: { model: llm.model, baseURL: llm.baseURL, apiKey: llm.apiKey ?? 'unused' } }
        : { provider: 'langchain', config: { model: llm.model } },
    historyStore: { provider: 'sqlite', config: { historyDbPath: paths.history } },
  };
  const memory = new Memory(config);
  const client = { memory, warnings: [] as RecordedWarning[], close: () => closeHandles(memory) };
  try {
    // Any public call awaits mem0's async init, which writes MEM0_DIR/config.json while this open holds the queue.
    await memory.getAll({ filters: { user_id: INIT_USER }, topK: 1 });
    if (llm.provider === 'langchain' && !langchainCoreInstalled()) {
      throw new EvalError(
        'missing-dependency',
        "mem0's langchain LLM hook needs @langchain/core: pnpm add @langchain/core@1.4.0",
      );
    }
  } catch (error) {
    client.close();
    throw error;
  }
  return client;
}

async function importMem0(): Promise<typeof import('mem0ai/oss')> {
  try {
    return await import('mem0ai/oss');
  } catch (error) {
    throw new EvalError(
      'missing-dependency',
      'mem0 backends need mem0ai and better-sqlite3: pnpm add mem0ai@3.3.1 better-sqlite3@12.11.1',
      { cause: error },
    );
  }
}

/** mem0's LangchainLLM imports `@langchain/core/messages` (an optional peer of mem0ai) on every call. */
function langchainCoreInstalled(): boolean {
  try {
    createRequire(createRequire(import.meta.url).resolve('mem0ai/oss')).resolve('@langchain/core/messages');
    return true;
  } catch {
    return false;
  }
}

function closeHandles(memory: Memory): void {
  const internals = memory as unknown as MemoryInternals;
  for (const handle of [internals.vectorStore?.db, internals._entityStore?.db, internals.db?.db]) {
    if (handle?.open) handle.close();
  }
}
