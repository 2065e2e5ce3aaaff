// Service `postgres`: a PostgreSQL cluster from Debian's package on 127.0.0.1 and a free port, trust authentication.
import { join } from 'node:path';
import {
  findPostgresBin,
  POSTGRES_URI_VARIABLE,
  postgresVersion,
  startPostgresCluster,
  stopPostgresCluster,
} from './postgres-cluster.js';
import { waitForExit } from './service-state.js';
import type { Service } from './service.js';

const binOf = (env: Readonly<Record<string, string | undefined>>): string => {
  const found = findPostgresBin(env);
  if ('missing' in found) throw new Error(found.missing);
  return found.dir;
};

/** The PostgreSQL service: prints `export STALEBENCH_POSTGRES_URI=postgresql://postgres@127.0.0.1:<port>/postgres`. */
export const postgresService: Service = {
  id: 'postgres',
  missing: (env) => {
    const found = findPostgresBin(env);
    return 'missing' in found ? found.missing : null;
  },
  async start(dir, env) {
    const bin = binOf(env);
    const cluster = await startPostgresCluster(bin, join(dir, 'data'));
    return {
      pid: cluster.pid,
      port: cluster.port,
      dataDir: cluster.dataDir,
      version: `PostgreSQL ${postgresVersion(bin)} (${bin})`,
      exports: { [POSTGRES_URI_VARIABLE]: cluster.uri },
    };
  },
  async stop(running, env) {
    stopPostgresCluster(binOf(env), running.dataDir);
    // pg_ctl returns once postmaster.pid is gone, a moment before the process itself has exited.
    if (!(await waitForExit(running.pid, 30_000)))
      throw new Error(`postgres (pid ${running.pid}) still runs 30 s after pg_ctl stop`);
  },
};
