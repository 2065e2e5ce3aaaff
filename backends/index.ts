// The backend and embedder registry: one lazy line per component, so a run loads only what it uses.
import { UnknownComponentError } from '../core/errors.js';
import type { Embedder } from './embedder.js';
import type { ExtractionModel } from './extraction-model.js';
import type { GraphStore } from './graph-store.js';
import type { BackendSettings, EngineSpec, GraphEngineSpec, MemoryBackend, SystemId, VectorEngineSpec } from './memory-backend.js';
import type { VectorStore } from './vector-store.js';
import { namespaceRoot } from './run-namespace.js';

const BACKEND_LOADERS: Record<string, (settings: BackendSettings) => Promise<MemoryBackend>> = {
  graphiti: async (settings) => onGraphEngine(settings, async (store) => (await import('./graphiti-backend.js')).createGraphitiBackend({ ...settings, store })),
  'zep-ce': async (settings) => onGraphEngine(settings, async (store) => (await import('./zep-ce-backend.js')).createZepCeBackend({ ...settings, store })),
  mem0: async (settings) => (await import('./mem0-backend.js')).createMem0Backend({ ...settings, variant: 'default' }),
  'mem0-exp': async (settings) => (await import('./mem0-backend.js')).createMem0Backend({ ...settings, variant: 'expired-shown' }),
  langmem: async (settings) => onVectorEngine(settings, async (vectors) => (await import('./langmem-backend.js')).createLangmemBackend({ ...settings, vectors })),
  cognee: async (settings) => onVectorEngine(settings, async (vectors) => (await import('./cognee-backend.js')).createCogneeBackend({ ...settings, vectors })),
};

/** Creates the server graph store the settings ask for (none for embedded: the backend owns its own). */
async function serverGraphStore(spec: GraphEngineSpec | undefined): Promise<GraphStore | undefined> {
  if (!spec || spec.id === 'embedded') return undefined;
  const { createNeo4jGraphStore } = await import('./neo4j-graph-store.js');
  return createNeo4jGraphStore({ uri: spec.uri, user: spec.user, password: spec.password });
}

/** Builds a graph system on the requested engine; the backend opens a passed store, and the registry closes it. */
async function onGraphEngine(settings: BackendSettings, create: (store: GraphStore | undefined) => Promise<MemoryBackend>): Promise<MemoryBackend> {
  const store = await serverGraphStore(settings.engine?.graph);
  const backend = await create(store);
  if (!store) return backend;
  const close = backend.close.bind(backend);
  backend.close = async () => {
    await close();
    await store.close();
  };
  return backend;
}

/** Creates the server vector store the settings ask for (none for embedded: the backend owns its own). */
async function serverVectorStore(spec: VectorEngineSpec | undefined, runId: string): Promise<VectorStore | undefined> {
  if (!spec || spec.id === 'embedded') return undefined;
  const { createQdrantVectorStore } = await import('./qdrant-vector-store.js');
  return createQdrantVectorStore({ url: spec.url, apiKey: spec.apiKey, collectionPrefix: `stalebench_${runId}`, dropOnClose: true });
}

/** Builds a vector system on the requested engine; the backend opens a passed store, and the registry closes it. */
async function onVectorEngine(settings: BackendSettings, create: (vectors: VectorStore | undefined) => Promise<MemoryBackend>): Promise<MemoryBackend> {
  const vectors = await serverVectorStore(settings.engine?.vector, settings.runId);
  const backend = await create(vectors);
  if (!vectors) return backend;
  const close = backend.close.bind(backend);
  backend.close = async () => {
    await close();
    await vectors.close();
  };
  return backend;
}

/**
 * Connects to every server engine of a run and disconnects again, so that a wrong URL fails in seconds,
 * before anything is written. Embedded engines need no check.
 */
export async function verifyEngines(engine: EngineSpec | undefined): Promise<void> {
  const graph = await serverGraphStore(engine?.graph);
  if (graph) {
    await graph.open();
    await graph.close();
  }
  if (engine?.vector.id === 'qdrant') await (await import('./qdrant-connection.js')).probeQdrant(engine.vector);
}

/** Every registered memory-system id, in grid order. */
export const BACKEND_IDS: readonly SystemId[] = Object.keys(BACKEND_LOADERS);

/**
 * Creates a registered backend (not yet opened), importing its module on first use.
 *
 * @example
 * const backend = await loadBackend('graphiti', { embedder, runId, workDir });
 * await backend.open();
 */
export async function loadBackend(id: string, settings: BackendSettings): Promise<MemoryBackend> {
  const load = Object.hasOwn(BACKEND_LOADERS, id) ? BACKEND_LOADERS[id] : undefined;
  if (!load) throw new UnknownComponentError('system', id, BACKEND_IDS);
  return load({ ...settings, runId: namespaceRoot(settings.runId, settings.nonce) });
}

/** How to build the shared embedder. */
export type EmbedderSpec =
  | { id: 'lexical'; dimensions?: number }
  | { id: 'openai'; model: string; baseURL?: string; apiKey?: string; dimensions?: number };

const EMBEDDER_LOADERS: Record<string, (spec: EmbedderSpec) => Promise<Embedder>> = {
  lexical: async (spec) => (await import('./lexical-embedder.js')).createLexicalEmbedder(spec.id === 'lexical' ? spec : {}),
  openai: async (spec) => {
    if (spec.id !== 'openai') throw new TypeError('openai embedder spec expected');
    return (await import('./openai-embedder.js')).createOpenAIEmbedder(spec);
  },
};

/** Every registered embedder id. */
export const EMBEDDER_IDS: readonly string[] = Object.keys(EMBEDDER_LOADERS);

/**
 * Creates the shared embedder, importing its module (and the `openai` SDK) on first use.
 *
 * @example
 * const embedder = await createEmbedder({ id: 'openai', model: 'nomic-embed-text', baseURL: 'http://127.0.0.1:11434/v1' });
 */
export async function createEmbedder(spec: EmbedderSpec): Promise<Embedder> {
  const load = Object.hasOwn(EMBEDDER_LOADERS, spec.id) ? EMBEDDER_LOADERS[spec.id] : undefined;
  if (!load) throw new UnknownComponentError('embedder', String(spec.id), EMBEDDER_IDS);
  return load(spec);
}

/** How to build the extraction model of natural-mode ingestion. */
export type ExtractionSpec = { id: 'sim' } | { id: 'openai'; model: string };

/**
 * Creates the extraction model: `sim` is the offline deterministic extractor; `openai` uses an endpoint model
 * through the same OpenAI-compatible API as the decision models.
 */
export async function createExtractionModel(spec: ExtractionSpec, endpoint: { baseURL: string | null; apiKey: string | undefined }): Promise<ExtractionModel> {
  if (spec.id === 'sim') return (await import('./sim-extraction-model.js')).createSimExtractionModel();
  return (await import('./openai-extraction-model.js')).createOpenAIExtractionModel({ model: spec.model, baseURL: endpoint.baseURL ?? undefined, apiKey: endpoint.apiKey });
}
