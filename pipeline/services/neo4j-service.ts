// Service `neo4j`: the project's Maven-built Neo4j test server (backends/test-support/neo4j/), detached, on loopback.
import { join } from 'node:path';
import { startDetachedNeo4jServer } from '../../backends/test-support/neo4j/start-neo4j-test-server.js';
import { missingNeo4jTools } from '../../backends/test-support/neo4j-global-setup.js';
import { isAlive, waitForExit } from './service-state.js';
import type { Service } from './service.js';

/**
 * The Neo4j service. Auth is disabled on this server, so it accepts any user and password; the exports still name
 * both because the project's Neo4j clients read all three.
 */
export const neo4jService: Service = {
  id: 'neo4j',
  missing: (env) => {
    const tools = missingNeo4jTools(env as NodeJS.ProcessEnv);
    return tools.length > 0 ? `${tools.join(' and ')} not found: the Neo4j server needs Java 17+ and Maven 3.8+` : null;
  },
  async start(dir) {
    const server = await startDetachedNeo4jServer({ tmpDir: dir, logFile: join(dir, 'neo4j.log') });
    return {
      pid: server.pid,
      port: Number(new URL(server.uri).port),
      dataDir: dir,
      version: `Neo4j ${server.version}`,
      exports: { NEO4J_URI: server.uri, NEO4J_USER: 'neo4j', NEO4J_PASSWORD: 'auth-disabled' },
    };
  },
  async stop(running) {
    // SIGTERM to the group: the launcher's shutdown hook stops the database and deletes its data directory.
    if (isAlive(running.pid)) process.kill(-running.pid, 'SIGTERM');
    if (!(await waitForExit(running.pid, 30_000)) && isAlive(running.pid)) process.kill(-running.pid, 'SIGKILL');
  },
};
