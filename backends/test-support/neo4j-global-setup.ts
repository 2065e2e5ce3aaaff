// Vitest globalSetup: provides a Neo4j server to the tests (NEO4J_URI, else a throwaway one started through Maven).
import { accessSync, constants } from 'node:fs';
import { delimiter, join } from 'node:path';
import type { TestProject } from 'vitest/node';
import { startNeo4jTestServer } from './neo4j/start-neo4j-test-server.js';

/** The server the Neo4j tests use, as `inject('neo4j')` returns it. */
export interface ProvidedNeo4jServer {
  /** Bolt URI. */
  uri: string;
  /** User name, absent for the launcher's server (auth disabled). */
  user?: string;
  /** Password of `user`. */
  password?: string;
  /** `env` when NEO4J_URI named the server, `launcher` when this setup started it. */
  source: 'env' | 'launcher';
  /** What the setup measured and reports, e.g. `5.26.30 community (build 3.1 s, start 7.9 s)`. */
  note: string;
}

declare module 'vitest' {
  export interface ProvidedContext {
    neo4j: ProvidedNeo4jServer;
  }
}

/** The launcher's tools (`java`, `mvn`) that are not on `PATH`. */
export function missingNeo4jTools(env: NodeJS.ProcessEnv = process.env): string[] {
  const directories = (env.PATH ?? '').split(delimiter).filter(Boolean);
  const found = (tool: string) =>
    directories.some((directory) => {
      try {
        accessSync(join(directory, tool), constants.X_OK);
        return true;
      } catch {
        return false;
      }
    });
  return ['java', 'mvn'].filter((tool) => !found(tool));
}

/**
 * Starts the server once per run and stops it in teardown. With `NEO4J_URI` set, uses that server instead
 * (`NEO4J_USER` / `NEO4J_PASSWORD`) and starts nothing. Bolt is checked with a real connection before any test.
 * Without `java` or `mvn` (and no `NEO4J_URI`) it provides nothing and says why: every Neo4j test then skips.
 */
export default async function setup(project: TestProject): Promise<(() => Promise<void>) | undefined> {
  const fromEnv = process.env.NEO4J_URI;
  if (fromEnv) {
    const user = process.env.NEO4J_USER;
    project.provide('neo4j', {
      uri: fromEnv,
      user,
      password: process.env.NEO4J_PASSWORD,
      source: 'env',
      note: `NEO4J_URI=${fromEnv}`,
    });
    return undefined;
  }
  const missing = missingNeo4jTools();
  if (missing.length > 0) {
    console.log(
      `[neo4j-global-setup] skipped: ${missing.join(' and ')} not found; the throwaway Neo4j server needs Java 17+ and Maven 3.8+ (bash .ci/install installs openjdk-17-jdk-headless and maven on Debian), or set NEO4J_URI to a running server`,
    );
    return undefined;
  }
  const server = await startNeo4jTestServer();
  try {
    const waitStart = Date.now();
    await checkBolt(server.uri, 30_000);
    const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
    const note = `Neo4j ${server.version} at ${server.uri} (maven ${seconds(server.timings.buildMs)}, start ${seconds(server.timings.startMs)}, bolt check ${seconds(Date.now() - waitStart)})`;
    console.log(`[neo4j-global-setup] ${note}`);
    project.provide('neo4j', { uri: server.uri, source: 'launcher', note });
  } catch (error) {
    await server.stop();
    throw error;
  }
  return async () => {
    const stopStart = Date.now();
    await server.stop();
    console.log(`[neo4j-global-setup] stopped in ${((Date.now() - stopStart) / 1000).toFixed(1)} s`);
  };
}

/**
 * One real Bolt connection. The launcher prints `ready` only after `DatabaseManagementServiceBuilder.build()` has
 * started the DBMS and its Bolt connector, so Bolt answers now: nothing to wait for, and no retry on a timer.
 */
async function checkBolt(uri: string, timeoutMs: number): Promise<void> {
  const neo4j = (await import('neo4j-driver')).default;
  const driver = neo4j.driver(uri, undefined, { connectionTimeout: timeoutMs });
  try {
    await driver.verifyConnectivity();
  } catch (error) {
    throw new Error(`Bolt did not answer at ${uri} after the launcher said ready`, { cause: error });
  } finally {
    await driver.close();
  }
}
