// The integrity-target registry: one lazy line per target, so a run loads only the adapters (and drivers) it uses.
import { UnknownComponentError } from '#core/errors.js';
import type { IntegrityTarget } from './integrity-target.js';

/** What a target may read from where the command runs (Neo4j settings, the repository root for the Python venv). */
export interface TargetEnvironment {
  /** Environment variables (NEO4J_URI, NEO4J_USER, NEO4J_PASSWORD). */
  env: Readonly<Record<string, string | undefined>>;
  /** Repository root (the Python venv lives in `<root>/.cache/python/venv`). */
  root: string;
}

/** inspeximus at the version agmi measured, in its store environment. */
const INSPEXIMUS_AGMI = { env: 'inspeximus-3.0.0', version: '3.0.0' };

const TARGET_LOADERS: Record<string, (environment: TargetEnvironment) => Promise<IntegrityTarget>> = {
  reference: async () => (await import('./reference-target.js')).createReferenceTarget({ witness: true }),
  'reference-no-witness': async () => (await import('./reference-target.js')).createReferenceTarget({ witness: false }),
  mem0: async () => (await import('./mem0-target.js')).createMem0Target(),
  'mem0+ledger': async () => (await import('./mem0-target.js')).createMem0Target({ ledger: true }),
  'langgraph-sqlite': async () => (await import('./langgraph-sqlite-target.js')).createLanggraphSqliteTarget(),
  'graphiti@neo4j': async ({ env }) => (await import('./graphiti-neo4j-target.js')).createGraphitiNeo4jTarget(env),
  'graphiti+ledger@neo4j': async ({ env }) =>
    (await import('./graphiti-neo4j-target.js')).createGraphitiNeo4jTarget(env, { ledger: true }),
  'graphiti@embedded': async () => (await import('./graphiti-embedded-target.js')).createGraphitiEmbeddedTarget(),
  'graphiti+ledger@embedded': async () =>
    (await import('./graphiti-embedded-target.js')).createGraphitiEmbeddedTarget({ ledger: true }),
  langmem: async () => (await import('./langmem-target.js')).createLangmemTarget(),
  cognee: async () => (await import('./cognee-target.js')).createCogneeTarget(),
  'poem-ledger': async () => (await import('./poem-ledger-target.js')).createPoemLedgerTarget(),
  runlog: async () =>
    (await import('./runlog-target.js')).createRunlogTarget((await import('./runlog-format.js')).CHAINED_RUN_LOG),
  inspeximus: async ({ root }) => (await import('./inspeximus-target.js')).createInspeximusTarget(root, 'default'),
  'inspeximus-receipts-unsigned': async ({ root }) =>
    (await import('./inspeximus-target.js')).createInspeximusTarget(root, 'receipts-unsigned'),
  'langgraph-sqlite-py': async ({ root }) =>
    (await import('./langgraph-sqlite-py-target.js')).createLanggraphSqlitePyTarget(root),
  'langgraph-sqlite-py@3.1.1': async ({ root }) =>
    (await import('./langgraph-sqlite-py-target.js')).createLanggraphSqlitePyTarget(root, {
      id: 'langgraph-sqlite-py@3.1.1',
      env: 'langgraph-sqlite-3.1.1',
    }),
  'memory-blackbox-alive': async ({ root }) =>
    (await import('./memory-blackbox-target.js')).createMemoryBlackboxTarget(root, {
      id: 'memory-blackbox-alive',
      position: 'alive',
      env: 'memory-blackbox',
    }),
  'memory-blackbox-restarted': async ({ root }) =>
    (await import('./memory-blackbox-target.js')).createMemoryBlackboxTarget(root, {
      id: 'memory-blackbox-restarted',
      position: 'restarted',
      env: 'memory-blackbox',
    }),
  'memory-blackbox-restarted@0.1.0': async ({ root }) =>
    (await import('./memory-blackbox-target.js')).createMemoryBlackboxTarget(root, {
      id: 'memory-blackbox-restarted@0.1.0',
      position: 'restarted',
      env: 'memory-blackbox-0.1.0',
    }),
  'atelya-attest': async ({ root }) =>
    (await import('./tamper-evident-targets.js')).createAtelyaAttestTarget(root, { anchored: false }),
  'atelya-attest-anchored': async ({ root }) =>
    (await import('./tamper-evident-targets.js')).createAtelyaAttestTarget(root, { anchored: true }),
  continuum: async ({ root }) =>
    (await import('./tamper-evident-targets.js')).createContinuumTarget(root, { signed: false }),
  'continuum-signed': async ({ root }) =>
    (await import('./tamper-evident-targets.js')).createContinuumTarget(root, { signed: true }),
  'acrf-memory-guard': async ({ root }) =>
    (await import('./tamper-evident-targets.js')).createAcrfMemoryGuardTarget(root),
  'inspeximus-receipts-keyed': async ({ root }) =>
    (await import('./inspeximus-target.js')).createInspeximusTarget(root, 'receipts-keyed'),
  'inspeximus-receipts-keyed-confighome': async ({ root }) =>
    (await import('./inspeximus-target.js')).createInspeximusTarget(root, 'receipts-keyed-confighome'),
  'inspeximus@3.0.0': async ({ root }) =>
    (await import('./inspeximus-target.js')).createInspeximusTarget(root, 'default', INSPEXIMUS_AGMI),
  'inspeximus-receipts-unsigned@3.0.0': async ({ root }) =>
    (await import('./inspeximus-target.js')).createInspeximusTarget(root, 'receipts-unsigned', INSPEXIMUS_AGMI),
  'inspeximus-receipts-keyed@3.0.0': async ({ root }) =>
    (await import('./inspeximus-target.js')).createInspeximusTarget(root, 'receipts-keyed', INSPEXIMUS_AGMI),
  'inspeximus-receipts-keyed-confighome@3.0.0': async ({ root }) =>
    (await import('./inspeximus-target.js')).createInspeximusTarget(root, 'receipts-keyed-confighome', INSPEXIMUS_AGMI),
  'langgraph-redis': async ({ root, env }) =>
    (await import('./langgraph-redis-target.js')).createLanggraphRedisTarget({
      root,
      ...(env.STALEBENCH_REDIS_URL ? { redisUrl: env.STALEBENCH_REDIS_URL } : {}),
    }),
  'langgraph-postgres': async ({ root, env }) =>
    (await import('./langgraph-postgres-target.js')).createLanggraphPostgresTarget(root, env),
  'langgraph-postgres@3.2.0': async ({ root, env }) =>
    (await import('./langgraph-postgres-target.js')).createLanggraphPostgresTarget(root, env, {
      id: 'langgraph-postgres@3.2.0',
      storeEnv: 'langgraph-postgres-latest',
    }),
  'openai-agents-sqlite': async ({ root }) =>
    (await import('./openai-agents-sqlite-target.js')).createOpenaiAgentsSqliteTarget(root),
  'openai-agents-sqlite@0.24.0': async ({ root }) =>
    (await import('./openai-agents-sqlite-target.js')).createOpenaiAgentsSqliteTarget(root, { latest: true }),
  'langgraph-ledger': async ({ root }) =>
    (await import('./langgraph-ledger-target.js')).createLanggraphLedgerTarget(root),
  'langgraph-sqlite-encrypted': async ({ root }) =>
    (await import('./langgraph-encrypted-target.js')).createLanggraphEncryptedTarget(root),
  'mem0-py': async ({ root }) =>
    (await import('./mem0-py-target.js')).createMem0PyTarget(root, { id: 'mem0-py', env: 'mem0-py' }),
  'mem0-py@2.2.1': async ({ root }) =>
    (await import('./mem0-py-target.js')).createMem0PyTarget(root, { id: 'mem0-py@2.2.1', env: 'mem0-py-latest' }),
  'mythologiq-agent-memory': async () => {
    const { createNotInstallableTarget, MYTHOLOGIQ } = await import('./not-installable-target.js');
    return createNotInstallableTarget(MYTHOLOGIQ);
  },
  letta: async ({ root }) => (await import('./letta-target.js')).createLettaTarget(root, { id: 'letta', env: 'letta' }),
  'letta@0.34.12': async ({ root }) =>
    (await import('./letta-target.js')).createLettaTarget(root, { id: 'letta@0.34.12', env: 'letta-latest' }),
};

/** Every registered target id, in scorecard order. */
export const INTEGRITY_TARGET_IDS: readonly string[] = Object.keys(TARGET_LOADERS);

/**
 * Creates a registered target, importing its adapter on first use.
 *
 * @example const target = await loadIntegrityTarget('mem0', { env: process.env, root: process.cwd() });
 */
export async function loadIntegrityTarget(id: string, environment: TargetEnvironment): Promise<IntegrityTarget> {
  const load = Object.hasOwn(TARGET_LOADERS, id) ? TARGET_LOADERS[id] : undefined;
  if (!load) throw new UnknownComponentError('integrity target', id, INTEGRITY_TARGET_IDS);
  return load(environment);
}
