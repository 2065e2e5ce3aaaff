// The integrity-target registry: one lazy line per target, so a run loads only the adapters (and drivers) it uses.
import { UnknownComponentError } from '../../pipeline/core/errors.js';
import type { IntegrityTarget } from './integrity-target.js';

/** What a target may read from where the command runs (Neo4j settings, the repository root for the Python venv). */
export interface TargetEnvironment {
  /** Environment variables (NEO4J_URI, NEO4J_USER, NEO4J_PASSWORD). */
  env: Readonly<Record<string, string | undefined>>;
  /** Repository root (the Python venv lives in `<root>/.cache/python/venv`). */
  root: string;
}

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
  inspeximus: async ({ root }) =>
    (await import('./inspeximus-target.js')).createInspeximusTarget(root, { receipts: false }),
  'inspeximus-receipts': async ({ root }) =>
    (await import('./inspeximus-target.js')).createInspeximusTarget(root, { receipts: true }),
  'langgraph-sqlite-py': async ({ root }) =>
    (await import('./langgraph-sqlite-py-target.js')).createLanggraphSqlitePyTarget(root),
  letta: async ({ root }) => (await import('./letta-target.js')).createLettaTarget(root),
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
