// The front-door target registry: the six memory systems plus the real LangGraph store and the two reference models.
import { UnknownComponentError } from '../../pipeline/core/errors.js';
import { GRAPHITI_CORE_LABEL } from '../graphiti-version.js';
import { loadBackend } from '../index.js';
import type { BackendSettings, MemoryBackend } from '../memory-backend.js';
import { MEM0_PY_PIN } from '../mem0-py-version.js';
import { LETTA_PIN } from './letta-archival-backend.js';

/** Settings every front-door target receives: the usual backend settings plus the store's trust root. */
export type FrontdoorTargetSettings = BackendSettings & {
  /** SPKI PEM public keys of genuine writers (the agent's); only a store that verifies signatures reads them. */
  trustedKeys: readonly string[];
};

/** What the front door needs to know about a target, as data (nothing outside backends/ asks for its id). */
export interface FrontdoorTarget {
  /** Registry id, as typed after `--target`. */
  id: string;
  /** The library and version measured, and whether it is the real library, a port or a model. */
  version(): string;
  /** True when the read path ranks by the embedder, so a lexical stand-in changes what is measured. */
  ranksByEmbedder: boolean;
  /** `library`: runs in this process; nothing here talks to a network target yet. */
  kind: 'library';
  /** Creates the target (not yet opened), importing its module on first use. */
  load(settings: FrontdoorTargetSettings): Promise<MemoryBackend>;
}

const port = (name: string) => `${name} (stalebench TypeScript port)`;
const system = (id: string, version: () => string): FrontdoorTarget => ({
  id,
  version,
  ranksByEmbedder: true,
  kind: 'library',
  load: (settings) => loadBackend(id, settings),
});
const mem0 = async () => `mem0ai ${(await import('../mem0-client.js')).mem0Version()}`;
let mem0Label = 'mem0ai';

const TARGETS: readonly FrontdoorTarget[] = [
  system('graphiti', () => port(GRAPHITI_CORE_LABEL)),
  system('zep-ce', () => port('Zep CE legacy @ 7de18dfa over the graphiti port')),
  system('mem0', () => `${mem0Label} (the real library), infer: false`),
  system('mem0-exp', () => `${mem0Label} (the real library), infer: false, showExpired: true`),
  system('langmem', () => port('langmem 0.0.30 @ b5dbe4aa')),
  system('cognee', () => port('cognee 1.5.2 @ a8f9760b')),
  {
    id: 'langgraph-store',
    version: () => `@langchain/langgraph-checkpoint ${langgraphVersion} InMemoryStore (the real library)`,
    ranksByEmbedder: true,
    kind: 'library',
    load: async (settings) => (await import('./langgraph-store-backend.js')).createLanggraphStoreBackend(settings),
  },
  {
    id: 'reference',
    version: () => 'stalebench reference (model), no defences',
    ranksByEmbedder: false,
    kind: 'library',
    load: async () => (await import('./reference-backend.js')).createReferenceBackend(),
  },
  {
    id: 'reference-defended',
    version: () => 'stalebench reference-defended (model): signatures, quarantine, stuffing check',
    ranksByEmbedder: false,
    kind: 'library',
    load: async (settings) =>
      (await import('./reference-backend.js')).createReferenceBackend({
        defences: { trustedKeys: settings.trustedKeys },
      }),
  },
  system('mem0-py', () => `mem0ai ${MEM0_PY_PIN.version} (Python, the real library), local Qdrant store, infer=False`),
  {
    id: 'letta-archival',
    version: () => `letta ${LETTA_PIN.version} archival memory (Python, the real library), one agent per user`,
    ranksByEmbedder: true,
    kind: 'library',
    load: async (settings) => (await import('./letta-archival-backend.js')).createLettaArchivalBackend(settings),
  },
];
let langgraphVersion = '';

/** Every front-door target id, in scorecard order. */
export const FRONTDOOR_TARGET_IDS: readonly string[] = TARGETS.map((target) => target.id);

/** The target registered as `id`; unknown ids throw `UnknownComponentError` naming the available ones. */
export async function frontdoorTarget(id: string): Promise<FrontdoorTarget> {
  const target = TARGETS.find((candidate) => candidate.id === id);
  if (!target) throw new UnknownComponentError('target', id, FRONTDOOR_TARGET_IDS);
  // Version lookups read package.json files; done here, on first use, not at import.
  if (mem0Label === 'mem0ai') mem0Label = await mem0();
  if (langgraphVersion === '')
    langgraphVersion = (await import('./langgraph-store-backend.js')).langgraphCheckpointVersion();
  return target;
}
