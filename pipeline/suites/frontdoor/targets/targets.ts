// The front-door target registry: the six memory systems, the real LangGraph store, the two reference models, and the
// real Python libraries (inspeximus in three configurations, LangGraph's Python SqliteStore) in Python processes.
import { UnknownComponentError } from '#core/errors.js';
import { GRAPHITI_CORE_LABEL } from '../../../../backends/graphiti-version.js';
import { loadBackend } from '../../../../backends/index.js';
import { INSPEXIMUS_VERSION } from '../../../../backends/inspeximus-version.js';
import type { MemoryBackend } from '../../../../backends/memory-backend.js';
import { MEM0_PY_PIN } from '../../../../backends/mem0-py-version.js';
import { LETTA_PIN } from './letta-archival-backend.js';
import type { FrontdoorTargetSettings } from './target-settings.js';

export type { FrontdoorTargetSettings } from './target-settings.js';

/** What the front door needs to know about a target, as data (nothing outside backends/ asks for its id). */
export interface FrontdoorTarget {
  /** Registry id, as typed after `--target`. */
  id: string;
  /** The library and version measured, and whether it is the real library, a port or a model. */
  version(): string;
  /** True when the read path ranks by the embedder, so a lexical stand-in changes what is measured. */
  ranksByEmbedder: boolean;
  /** `library`: a library on this machine (in this process, or a Python process of the main venv); nothing here talks to a network target yet. */
  kind: 'library';
  /** True when the library runs in a Python process (the main venv of `bash .ci/install`), not in this one. */
  python?: true;
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
const mem0 = async () => `mem0ai ${(await import('../../../../backends/mem0-client.js')).mem0Version()}`;
let mem0Label = 'mem0ai';
// langgraph-checkpoint-sqlite of langgraph-store-py (agmi's) and langgraph-store-py@3.1.2 (PyPI's newest); the
// backend's LANGGRAPH_STORE_PY_RELEASES pins the same versions to their store environments (a test compares them).
const LANGGRAPH_STORE_PY_VERSIONS = { agmi: '3.1.1', latest: '3.1.2' } as const;
// agmi's row names (its front-door table) for the three inspeximus configurations.
const INSPEXIMUS_ROWS = {
  default: 'default configuration, lexical recall',
  provenance: 'provenance recorded and trusted_only keyed on the first-party label',
  keyed: 'the same filter keyed on an Ed25519 key the writer attests with',
} as const;

/** The three inspeximus rows at one release: the main venv's, or one in a store environment (ids `<row>@<version>`). */
function inspeximusTargets(version: string, env?: string): FrontdoorTarget[] {
  return (['default', 'provenance', 'keyed'] as const).map((variant) => ({
    id: `${variant === 'default' ? 'inspeximus' : `inspeximus-${variant}`}${env ? `@${version}` : ''}`,
    version: () => `inspeximus ${version} (the real library, PyPI), ${INSPEXIMUS_ROWS[variant]}`,
    // No embedder: mode="auto" ranks lexically below 300 active memories, and these stores hold a handful.
    ranksByEmbedder: false,
    kind: 'library',
    python: true,
    load: async (settings) =>
      (await import('./inspeximus-frontdoor-backend.js')).createInspeximusFrontdoorBackend({
        ...settings,
        variant,
        ...(env ? { release: { env, version } } : {}),
      }),
  }));
}

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
  ...inspeximusTargets(INSPEXIMUS_VERSION),
  ...inspeximusTargets('3.0.0', 'inspeximus-3.0.0'),
  ...(['agmi', 'latest'] as const).map((release): FrontdoorTarget => {
    const id = release === 'agmi' ? 'langgraph-store-py' : `langgraph-store-py@${LANGGRAPH_STORE_PY_VERSIONS[release]}`;
    return {
      id,
      version: () =>
        `langgraph-checkpoint-sqlite ${LANGGRAPH_STORE_PY_VERSIONS[release]} SqliteStore, sqlite-vec vector index (the real library, PyPI)`,
      ranksByEmbedder: true,
      kind: 'library',
      python: true,
      load: async (settings) => {
        const backend = await import('./langgraph-store-py-backend.js');
        const chosen = backend.LANGGRAPH_STORE_PY_RELEASES[release];
        return backend.createLanggraphStorePyBackend({ ...settings, id, release: chosen });
      },
    };
  }),
  {
    ...system(
      'mem0-py',
      () => `mem0ai ${MEM0_PY_PIN.version} (Python, the real library), local Qdrant store, infer=False`,
    ),
    python: true,
  },
  {
    id: 'mem0-py@2.2.1',
    version: () => 'mem0ai 2.2.1 (Python, the real library, newest on PyPI), local Qdrant store, infer=False',
    ranksByEmbedder: true,
    kind: 'library',
    python: true,
    load: async (settings) =>
      (await import('../../../../backends/mem0-py-backend.js')).createMem0PyBackend({
        ...settings,
        variant: 'default',
        release: { version: '2.2.1', env: 'mem0-py-latest' },
      }),
  },
  {
    id: 'letta-archival',
    version: () => `letta ${LETTA_PIN.version} archival memory (Python, the real library), one agent per user`,
    ranksByEmbedder: true,
    kind: 'library',
    python: true,
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
