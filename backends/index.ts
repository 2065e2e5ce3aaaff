// The backend and embedder registry: one lazy line per component, so a run loads only what it uses.
import { UnknownComponentError } from '../pipeline/errors.js';
import type { Embedder } from './embedder.js';
import type { ExtractionModel } from './extraction-model.js';
import type { BackendSettings, MemoryBackend, SystemId } from './memory-backend.js';

const BACKEND_LOADERS: Record<string, (settings: BackendSettings) => Promise<MemoryBackend>> = {
  graphiti: async (settings) => (await import('./graphiti-backend.js')).createGraphitiBackend(settings),
  'zep-ce': async (settings) => (await import('./zep-ce-backend.js')).createZepCeBackend(settings),
  mem0: async (settings) => (await import('./mem0-backend.js')).createMem0Backend({ ...settings, variant: 'default' }),
  'mem0-exp': async (settings) => (await import('./mem0-backend.js')).createMem0Backend({ ...settings, variant: 'expired-shown' }),
  langmem: async (settings) => (await import('./langmem-backend.js')).createLangmemBackend(settings),
  cognee: async (settings) => (await import('./cognee-backend.js')).createCogneeBackend(settings),
};

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
  return load(settings);
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
