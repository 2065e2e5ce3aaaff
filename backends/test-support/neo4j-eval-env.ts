// The environment an in-process `pnpm eval --engine neo4j` test runs with: the suite's Neo4j, else NEO4J_URI.
import type { ProvidedNeo4jServer } from './neo4j-global-setup.js';

/** NEO4J_URI/USER/PASSWORD for `provided` (the test setup's server), else from the process, else undefined (skip). */
export function neo4jEvalEnv(
  provided: ProvidedNeo4jServer | undefined,
): { NEO4J_URI: string; NEO4J_USER: string; NEO4J_PASSWORD: string } | undefined {
  if (provided)
    return { NEO4J_URI: provided.uri, NEO4J_USER: provided.user ?? 'neo4j', NEO4J_PASSWORD: provided.password ?? '' };
  if (!process.env.NEO4J_URI) return undefined;
  return {
    NEO4J_URI: process.env.NEO4J_URI,
    NEO4J_USER: process.env.NEO4J_USER ?? 'neo4j',
    NEO4J_PASSWORD: process.env.NEO4J_PASSWORD ?? '',
  };
}
