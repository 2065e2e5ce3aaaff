// The memory-system registry: one lazy line per system (a run loads only what it uses), the single source of system
// ids for the command line, the run spec, `--help` and the manifest; plus the engines and model roles systems run on.
import { z } from 'zod';
import { createComponent, defineRegistry, factory, NO_ARGS } from '#core/registry.js';
import type { Embedder } from './embedder.js';
import type { ExtractionModel } from './extraction-model.js';
import type { GraphStore } from './graph-store.js';
import { COGNEE_PY_PIN } from './cognee-py-version.js';
import { GRAPHITI_CORE_LABEL, GRAPHITI_CORE_VERSION } from './graphiti-version.js';
import { INSPEXIMUS_PIN } from './inspeximus-version.js';
import { MEM0_PY_PIN } from './mem0-py-version.js';
import type {
  BackendSettings,
  EngineSpec,
  GraphEngineSpec,
  MemoryBackend,
  Neo4jServer,
  SystemId,
  VectorEngineSpec,
} from './memory-backend.js';
import { createFromSpec, EMBEDDERS, EXTRACTION_MODELS } from './model-roles.js';
import type { VectorStore } from './vector-store.js';
import { namespaceRoot } from './run-namespace.js';

/** graphiti-py's recorded library pin. */
const GRAPHITI_CORE_PY = `graphiti-core==${GRAPHITI_CORE_VERSION}` as const;
/** langmem-py's recorded library pin (backends/python/envs/langmem.txt; langmem-py-backend.ts checks the venv). */
const LANGMEM_PY = 'langmem==0.0.30';

/**
 * Every memory system, in grid order. A line's arguments are the settings a run uses and the manifest records; a
 * factory's own defaults (the same values, checked by backends/index.test.ts) serve direct callers such as tests.
 */
export const SYSTEMS = defineRegistry('system', {
  graphiti: factory({
    summary: `Graphiti (${GRAPHITI_CORE_LABEL}): temporal knowledge graph; EntityEdges with expired_at / invalid_at (graph engine)`,
    args: NO_ARGS,
    create: async (_args, settings: BackendSettings) =>
      onGraphEngine(settings, async (store) =>
        (await import('./graphiti-backend.js')).createGraphitiBackend({ ...settings, store }),
      ),
  }),
  'zep-ce': factory({
    summary: 'Zep CE over a Graphiti sidecar; its API hides invalid_at (graph engine)',
    args: z.object({ settleMs: z.number().int().min(0).default(45_000) }).strict(),
    create: async ({ settleMs }, settings: BackendSettings) =>
      onGraphEngine(settings, async (store) =>
        (await import('./zep-ce-backend.js')).createZepCeBackend({ ...settings, store, settleMs }),
      ),
  }),
  mem0: factory({
    summary: 'mem0 OSS Memory; expired memories hidden by its default read',
    args: z.object({ variant: z.literal('default').default('default') }).strict(),
    create: async ({ variant }, settings: BackendSettings) =>
      (await import('./mem0-backend.js')).createMem0Backend({ ...settings, variant }),
  }),
  'mem0-exp': factory({
    summary: 'mem0 OSS Memory with showExpired: expired memories returned',
    args: z.object({ variant: z.literal('expired-shown').default('expired-shown') }).strict(),
    create: async ({ variant }, settings: BackendSettings) =>
      (await import('./mem0-backend.js')).createMem0Backend({ ...settings, variant }),
  }),
  langmem: factory({
    summary: 'langmem on a LangGraph-style store; revocation hard-deletes (vector engine)',
    args: z.object({ queryLimit: z.number().int().min(1).default(5) }).strict(),
    create: async ({ queryLimit }, settings: BackendSettings) =>
      onVectorEngine(settings, async (vectors) =>
        (await import('./langmem-backend.js')).createLangmemBackend({ ...settings, vectors, queryLimit }),
      ),
  }),
  cognee: factory({
    summary: 'cognee chunk search; the revoked version is never added (vector engine)',
    args: z
      .object({ topK: z.number().int().min(1).default(15), maxChunkTokens: z.number().int().min(1).default(8191) })
      .strict(),
    create: async ({ topK, maxChunkTokens }, settings: BackendSettings) =>
      onVectorEngine(settings, async (vectors) =>
        (await import('./cognee-backend.js')).createCogneeBackend({ ...settings, vectors, topK, maxChunkTokens }),
      ),
  }),
  inspeximus: inspeximusLine('unkeyed', 'inspeximus (PyPI, Python process): v1 and v2 as ordinary memories, no key'),
  'inspeximus-keyed': inspeximusLine(
    'keyed',
    "inspeximus (PyPI, Python process): v2 written under v1's key, its correction path",
  ),
  'inspeximus-hist': inspeximusLine(
    'keyed-history',
    'inspeximus (PyPI, Python process): keyed, read with include_superseded=True',
  ),
  'mem0-py': mem0PyLine(
    'default',
    'mem0ai (PyPI, Python process, local Qdrant): expired memories hidden by its default read',
  ),
  'mem0-py-exp': mem0PyLine(
    'expired-shown',
    'mem0ai (PyPI, Python process, local Qdrant) with show_expired=True: expired memories returned',
  ),
  'graphiti-py': {
    ...factory({
      summary: `graphiti-core ${GRAPHITI_CORE_VERSION} itself (PyPI, Python process) on the Neo4j of NEO4J_URI; direct mode`,
      args: z.object({ library: z.literal(GRAPHITI_CORE_PY).default(GRAPHITI_CORE_PY) }).strict(),
      create: async (_args, settings: BackendSettings) =>
        (await import('./graphiti-py-backend.js')).createGraphitiPyBackend(settings),
    }),
    prerequisite: async (context: PrerequisiteContext = {}) =>
      (await import('./graphiti-py-backend.js')).graphitiPyProblem(context.neo4j),
    // Not the paper's grid (the graphiti port is), and it needs Python and a Neo4j server: run when named.
    inDefaultGrid: false,
  },
  'langmem-py': {
    ...factory({
      summary: "langmem 0.0.30 itself (PyPI, Python process) over LangGraph's InMemoryStore; revocation hard-deletes",
      args: z.object({ library: z.literal(LANGMEM_PY).default(LANGMEM_PY) }).strict(),
      create: async (_args, settings: BackendSettings) =>
        (await import('./langmem-py-backend.js')).createLangmemPyBackend(settings),
    }),
    prerequisite: async () => (await import('./langmem-py-backend.js')).langmemPyProblem(),
    // Not the paper's grid (the langmem port is), and it needs its own Python environment: run when named.
    inDefaultGrid: false,
  },
  'cognee-py': {
    ...factory({
      summary: 'cognee (PyPI, Python process): add, its chunk pipeline (direct) or cognify (natural), search(CHUNKS)',
      args: z
        .object({ library: z.literal(`cognee==${COGNEE_PY_PIN.version}`).default(`cognee==${COGNEE_PY_PIN.version}`) })
        .strict(),
      create: async (_args, settings: BackendSettings) =>
        (await import('./cognee-py-backend.js')).createCogneePyBackend(settings),
    }),
    prerequisite: async () => (await import('./cognee-py-backend.js')).cogneePyProblem(),
    // Not the paper's grid, and it needs its own Python environment: run when named (`--systems`).
    inDefaultGrid: false,
  },
});

/**
 * A Python mem0 configuration (store environment `mem0-py`): its variant and the exact mem0ai pin are its recorded
 * arguments; `prerequisite` names the install command before a run writes anything.
 */
function mem0PyLine<const Variant extends 'default' | 'expired-shown'>(variant: Variant, summary: string) {
  const library = `${MEM0_PY_PIN.name}==${MEM0_PY_PIN.version}` as const;
  return {
    ...factory({
      summary,
      args: z
        .object({ variant: z.literal(variant).default(variant), library: z.literal(library).default(library) })
        .strict(),
      create: async (args, settings: BackendSettings) =>
        (await import('./mem0-py-backend.js')).createMem0PyBackend({ ...settings, variant: args.variant }),
    }),
    prerequisite: async () => (await import('./mem0-py-backend.js')).mem0PyProblem(),
    // Not the paper's grid, and it needs its own Python environment: run when named (`--systems`).
    inDefaultGrid: false,
  };
}

/**
 * An inspeximus configuration: its variant and the exact library pin are its recorded arguments (the backend refuses
 * a venv holding another version), and `prerequisite` names what is missing before a run writes anything.
 */
function inspeximusLine<const Variant extends 'unkeyed' | 'keyed' | 'keyed-history'>(
  variant: Variant,
  summary: string,
) {
  const library = `${INSPEXIMUS_PIN.name}==${INSPEXIMUS_PIN.version}` as const;
  return {
    ...factory({
      summary,
      args: z
        .object({ variant: z.literal(variant).default(variant), library: z.literal(library).default(library) })
        .strict(),
      create: async (args, settings: BackendSettings) =>
        (await import('./inspeximus-backend.js')).createInspeximusBackend({ ...settings, variant: args.variant }),
    }),
    prerequisite: async () => (await import('./inspeximus-backend.js')).inspeximusProblem(),
    // Not the paper's grid, and it needs Python: run when named (`--systems`), so `pnpm eval` keeps its identity.
    inDefaultGrid: false,
  };
}

/** What a system's prerequisite check may look at: the servers the eval's environment names. */
export interface PrerequisiteContext {
  /** NEO4J_URI / NEO4J_USER / NEO4J_PASSWORD, when NEO4J_URI is set. */
  neo4j?: Neo4jServer | undefined;
}

/**
 * Checks, before a run writes anything, that every system it uses can start on this machine (a Python venv holding
 * the pinned package, a server it needs); throws the error that names what is missing and how to get it.
 */
export async function verifySystems(ids: readonly string[], context: PrerequisiteContext = {}): Promise<void> {
  for (const id of new Set(ids)) {
    const line = SYSTEMS.get(id);
    const problem = 'prerequisite' in line ? await line.prerequisite(context) : null;
    if (problem) throw problem;
  }
}

/** Creates the server graph store the settings ask for (none for embedded: the backend owns its own). */
async function serverGraphStore(spec: GraphEngineSpec | undefined): Promise<GraphStore | undefined> {
  if (!spec || spec.id === 'embedded') return undefined;
  const { createNeo4jGraphStore } = await import('./neo4j-graph-store.js');
  return createNeo4jGraphStore({ uri: spec.uri, user: spec.user, password: spec.password });
}

/** Builds a graph system on the requested engine; the backend opens a passed store, and the registry closes it. */
async function onGraphEngine(
  settings: BackendSettings,
  create: (store: GraphStore | undefined) => Promise<MemoryBackend>,
): Promise<MemoryBackend> {
  const store = await serverGraphStore(settings.engine?.graph);
  return closingToo(await create(store), store);
}

/** Creates the server vector store the settings ask for (none for embedded: the backend owns its own). */
async function serverVectorStore(spec: VectorEngineSpec | undefined, runId: string): Promise<VectorStore | undefined> {
  if (!spec || spec.id === 'embedded') return undefined;
  const { createQdrantVectorStore } = await import('./qdrant-vector-store.js');
  return createQdrantVectorStore({
    url: spec.url,
    apiKey: spec.apiKey,
    collectionPrefix: `stalebench_${runId}`,
    dropOnClose: true,
  });
}

/** Builds a vector system on the requested engine; the backend opens a passed store, and the registry closes it. */
async function onVectorEngine(
  settings: BackendSettings,
  create: (vectors: VectorStore | undefined) => Promise<MemoryBackend>,
): Promise<MemoryBackend> {
  const vectors = await serverVectorStore(settings.engine?.vector, settings.runId);
  return closingToo(await create(vectors), vectors);
}

/** The backend, whose `close` also closes the server store the registry opened for it. */
function closingToo(backend: MemoryBackend, store: { close(): Promise<void> } | undefined): MemoryBackend {
  if (!store) return backend;
  const close = backend.close.bind(backend);
  backend.close = async () => {
    await close();
    await store.close();
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
export const BACKEND_IDS: readonly SystemId[] = SYSTEMS.ids;

/** The systems `pnpm eval` runs when `--systems` is not given: the paper's six, in grid order (lines not opted out). */
export const DEFAULT_SYSTEM_IDS: readonly SystemId[] = SYSTEMS.ids.filter((id) => {
  const line = SYSTEMS.get(id);
  return !('inDefaultGrid' in line) || line.inDefaultGrid;
});

/**
 * Creates a registered backend (not yet opened) with its line's arguments, importing its module on first use;
 * the instance carries its manifest record (`recordOf`).
 *
 * @example
 * const backend = await loadBackend('graphiti', { embedder, runId, workDir });
 * await backend.open();
 */
export async function loadBackend(
  id: string,
  settings: BackendSettings,
  args: Record<string, unknown> = {},
): Promise<MemoryBackend> {
  return createComponent(SYSTEMS, id, args, { ...settings, runId: namespaceRoot(settings.runId, settings.nonce) });
}

/** How to build the shared embedder (`apiKey` is used, never recorded). */
export type EmbedderSpec =
  | { id: 'lexical'; dimensions?: number }
  | { id: 'openai'; model: string; baseURL?: string; apiKey?: string; dimensions?: number };

/** Every registered embedder id. */
export const EMBEDDER_IDS: readonly string[] = EMBEDDERS.ids;

/**
 * Creates the shared embedder, importing its module (and the `openai` SDK) on first use.
 *
 * @example
 * const embedder = await createEmbedder({ id: 'openai', model: 'nomic-embed-text', baseURL: 'http://127.0.0.1:11434/v1' });
 */
export async function createEmbedder(spec: EmbedderSpec): Promise<Embedder> {
  const { apiKey, ...part } = { apiKey: undefined, ...spec };
  return createFromSpec(EMBEDDERS, part, { apiKey });
}

/** How to build the extraction model of natural-mode ingestion. */
export type ExtractionSpec = { id: 'sim' } | { id: 'openai'; model: string };

/**
 * Creates the extraction model: `sim` is the offline deterministic extractor; `openai` uses an endpoint model
 * through the same OpenAI-compatible API as the decision models.
 */
export async function createExtractionModel(
  spec: ExtractionSpec,
  endpoint: { baseURL: string | null; apiKey: string | undefined },
): Promise<ExtractionModel> {
  return createFromSpec(EXTRACTION_MODELS, spec, endpoint);
}
