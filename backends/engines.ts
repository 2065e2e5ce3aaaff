// The storage-engine registries, one per role (graph, vector): the single source of engine ids for the command line,
// the run spec, `--help`, `pnpm clean` and the manifest. A line says what the run spec holds, where the command line
// finds it in the environment, and how credentials (never in the spec) join it.
import { z } from 'zod';
import { UnknownComponentError } from '#core/errors.js';
import {
  argsOf,
  checkArgs,
  defineRegistry,
  helpLines,
  NO_ARGS,
  type ComponentArgs,
  type ComponentRecord,
  type RegistryEntry,
  type SpecPart,
} from '#core/registry.js';
import type { EngineSpec, GraphEngineSpec, VectorEngineSpec } from './memory-backend.js';

/** Credentials of server engines: read from the environment by the command line; never in a spec, manifest or log. */
export interface EngineCredentials {
  neo4jPassword?: string | undefined;
  qdrantApiKey?: string | undefined;
}

/** One engine line. Its `args` are the run spec's part for the role, without the id (endpoints, users). */
export interface EngineEntry<Connected> extends RegistryEntry {
  /** True for a server: it keeps data outside the eval process (leftovers for `pnpm clean`). */
  server: boolean;
  /** Its spec part as the command line reads it from the environment (`NEO4J_URI`, `QDRANT_URL`, ...). */
  fromEnvironment(env: NodeJS.ProcessEnv): ComponentArgs;
  /** The checked spec part plus credentials: what backends connect with. */
  connect(args: ComponentArgs, credentials: EngineCredentials): Connected;
}

function engine<S extends z.ZodType<ComponentArgs, ComponentArgs>, Connected>(
  kind: string,
  id: string,
  definition: {
    summary: string;
    server: boolean;
    args: S;
    fromEnvironment(env: NodeJS.ProcessEnv): z.input<S>;
    connect(args: z.output<S>, credentials: EngineCredentials): Connected;
  },
): EngineEntry<Connected> {
  return {
    ...definition,
    connect: (args, credentials) => definition.connect(checkArgs(kind, id, definition.args, args), credentials),
  };
}

/** Where graph systems keep their graph. The first line is the default. */
export const GRAPH_ENGINES = defineRegistry('graph-engine', {
  embedded: engine('graph-engine', 'embedded', {
    summary: 'in process (default)',
    server: false,
    args: NO_ARGS,
    fromEnvironment: () => ({}),
    connect: (): GraphEngineSpec => ({ id: 'embedded' }),
  }),
  neo4j: engine('graph-engine', 'neo4j', {
    summary: 'a Neo4j server, for graph systems (NEO4J_URI, NEO4J_USER, NEO4J_PASSWORD)',
    server: true,
    args: z.object({ uri: z.string().min(1), user: z.string().min(1) }).strict(),
    fromEnvironment: (env) => ({ uri: env.NEO4J_URI ?? 'bolt://127.0.0.1:7687', user: env.NEO4J_USER ?? 'neo4j' }),
    connect: ({ uri, user }, credentials): GraphEngineSpec => ({
      id: 'neo4j',
      uri,
      user,
      password: credentials.neo4jPassword ?? '',
    }),
  }),
});

/** Where vector systems keep their points. The first line is the default. */
export const VECTOR_ENGINES = defineRegistry('vector-engine', {
  embedded: engine('vector-engine', 'embedded', {
    summary: 'in process (default)',
    server: false,
    args: NO_ARGS,
    fromEnvironment: () => ({}),
    connect: (): VectorEngineSpec => ({ id: 'embedded' }),
  }),
  qdrant: engine('vector-engine', 'qdrant', {
    summary: 'a Qdrant server, for vector systems (QDRANT_URL, QDRANT_API_KEY)',
    server: true,
    args: z.object({ url: z.string().url() }).strict(),
    fromEnvironment: (env) => ({ url: env.QDRANT_URL ?? 'http://127.0.0.1:6333' }),
    connect: ({ url }, credentials): VectorEngineSpec => ({
      id: 'qdrant',
      url,
      ...(credentials.qdrantApiKey ? { apiKey: credentials.qdrantApiKey } : {}),
    }),
  }),
});

/** Every engine id of either role (`--engine` takes any of them). */
export const ENGINE_IDS: readonly string[] = [...new Set([...GRAPH_ENGINES.ids, ...VECTOR_ENGINES.ids])];

/** The run spec's engine part: one spec part per role. */
export interface EngineChoice {
  graph: SpecPart;
  vector: SpecPart;
}

/**
 * The engines a command line names: `--engine` lists ids of either role (a server engine takes its role; unknown
 * ids throw), `--graph-engine` / `--vector-engine` name one role's. Each spec part is read from the environment.
 */
export function engineChoice(
  input: { engines: readonly string[]; graph?: string | undefined; vector?: string | undefined },
  env: NodeJS.ProcessEnv,
): EngineChoice {
  const unknown = input.engines.find((id) => !ENGINE_IDS.includes(id));
  if (unknown !== undefined) throw new UnknownComponentError('engine', unknown, ENGINE_IDS);
  const graph =
    input.graph ??
    input.engines.find((id) => GRAPH_ENGINES.has(id) && GRAPH_ENGINES.get(id).server) ??
    GRAPH_ENGINES.ids[0];
  const vector =
    input.vector ??
    input.engines.find((id) => VECTOR_ENGINES.has(id) && VECTOR_ENGINES.get(id).server) ??
    VECTOR_ENGINES.ids[0];
  // An unregistered per-role id is left for the run spec to report, with every other problem.
  return {
    graph: { id: graph, ...(GRAPH_ENGINES.has(graph) ? GRAPH_ENGINES.get(graph).fromEnvironment(env) : {}) },
    vector: { id: vector, ...(VECTOR_ENGINES.has(vector) ? VECTOR_ENGINES.get(vector).fromEnvironment(env) : {}) },
  };
}

/** The engines of a spec with their credentials: what backends and `pnpm clean` connect with. */
export function connectEngines(choice: EngineChoice, credentials: EngineCredentials): EngineSpec {
  return {
    graph: GRAPH_ENGINES.get(choice.graph.id).connect(argsOf(choice.graph), credentials),
    vector: VECTOR_ENGINES.get(choice.vector.id).connect(argsOf(choice.vector), credentials),
  };
}

/** The credentials of every engine, from the environment. */
export function engineCredentialsFromEnv(env: NodeJS.ProcessEnv): EngineCredentials {
  return { neo4jPassword: env.NEO4J_PASSWORD, qdrantApiKey: env.QDRANT_API_KEY };
}

/** True when every role uses its default (first, in-process) engine. */
export function defaultEngines(choice: { graph: { id: string }; vector: { id: string } }): boolean {
  return choice.graph.id === GRAPH_ENGINES.ids[0] && choice.vector.id === VECTOR_ENGINES.ids[0];
}

/** True when some role's engine keeps data on a server. */
export function usesServerEngine(choice: { graph: { id: string }; vector: { id: string } }): boolean {
  return GRAPH_ENGINES.get(choice.graph.id).server || VECTOR_ENGINES.get(choice.vector.id).server;
}

/** The default engine of every role, connected (there is nothing to connect to): what `--dry-run` probes on. */
export function defaultEngineSpec(): EngineSpec {
  return connectEngines({ graph: { id: GRAPH_ENGINES.ids[0] }, vector: { id: VECTOR_ENGINES.ids[0] } }, {});
}

/** The manifest's records of a spec's engines. */
export function engineRecords(choice: EngineChoice): ComponentRecord[] {
  return [
    GRAPH_ENGINES.record(choice.graph.id, argsOf(choice.graph)),
    VECTOR_ENGINES.record(choice.vector.id, argsOf(choice.vector)),
  ];
}

/** The engine lines of both roles, for `--help`. */
export function engineHelp(indent: string): string {
  return [
    `${indent}graph:`,
    helpLines(GRAPH_ENGINES, `${indent}  `),
    `${indent}vector:`,
    helpLines(VECTOR_ENGINES, `${indent}  `),
  ].join('\n');
}
