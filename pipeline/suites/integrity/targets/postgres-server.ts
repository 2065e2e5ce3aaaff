// The PostgreSQL server Postgres-backed targets use: $STALEBENCH_POSTGRES_URI, else one throwaway cluster per process.
import { withoutPassword } from '#core/url-credentials.js';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  findPostgresBin,
  POSTGRES_URI_VARIABLE,
  postgresVersion,
  runPsql,
  startPostgresCluster,
  stopPostgresCluster,
} from '../../../services/postgres-cluster.js';

/** A server to create databases on. */
export interface PostgresServer {
  /** Its maintenance database's URI (`postgresql://postgres@127.0.0.1:<port>/postgres`). */
  uri: string;
  /** The binaries' directory (psql runs the raw edits). */
  bin: string;
  /** What describe() names, e.g. `PostgreSQL 15.18 (Debian 15.18-0+deb12u1), throwaway cluster …`. */
  description: string;
}

type Env = Readonly<Record<string, string | undefined>>;

/** Why no server can be had here (missing binaries, a URI nobody answers on), or null. */
export function missingPostgres(env: Env): string | null {
  const found = findPostgresBin(env);
  if ('missing' in found) return found.missing;
  const uri = env[POSTGRES_URI_VARIABLE];
  if (!uri) return null;
  try {
    runPsql(found.dir, uri, 'SELECT 1;\n');
    return null;
  } catch (error) {
    return withoutPassword(
      `${POSTGRES_URI_VARIABLE}=${uri} did not answer (${(error as Error).message.split('\n').pop()}); start one with pnpm services start postgres`,
    );
  }
}

/** What the server is, without starting one: the version of the URI's server, or of the binaries a cluster would use. */
export function describePostgres(env: Env): string {
  const found = findPostgresBin(env);
  if ('missing' in found) return 'PostgreSQL (not found)';
  const uri = env[POSTGRES_URI_VARIABLE];
  if (uri)
    return `PostgreSQL ${runPsql(found.dir, uri, 'SHOW server_version;\n').trim()} at ${POSTGRES_URI_VARIABLE}=${withoutPassword(uri)}`;
  return `PostgreSQL ${postgresVersion(found.dir)} (${found.dir}), a throwaway cluster on 127.0.0.1 started by the target`;
}

let shared: Promise<PostgresServer> | undefined;

/**
 * The server: the one `$STALEBENCH_POSTGRES_URI` names, else a throwaway cluster started on first use, once per
 * process, and stopped when the process exits. A watchdog shell stops it too should this process be killed.
 */
export function postgresServer(env: Env): Promise<PostgresServer> {
  const found = findPostgresBin(env);
  if ('missing' in found) return Promise.reject(new Error(found.missing));
  const uri = env[POSTGRES_URI_VARIABLE];
  if (uri) return Promise.resolve({ uri, bin: found.dir, description: describePostgres(env) });
  shared ??= (async () => {
    const parent = mkdtempSync(join(tmpdir(), 'stalebench-postgres-'));
    const dataDir = join(parent, 'data');
    const cluster = await startPostgresCluster(found.dir, dataDir);
    const stop = () => {
      try {
        stopPostgresCluster(found.dir, dataDir);
      } catch {
        // The watchdog below stops it once this process is gone.
      } finally {
        rmSync(parent, { recursive: true, force: true });
      }
    };
    process.once('exit', stop);
    watchdog(found.dir, dataDir, parent);
    return { uri: cluster.uri, bin: found.dir, description: describePostgres(env) };
  })();
  return shared;
}

/** Stops the cluster (immediate mode) and removes it once this process is gone, however it ended. */
function watchdog(bin: string, dataDir: string, parent: string): void {
  const asPostgres = process.getuid?.() === 0 ? 'runuser -u postgres -- ' : '';
  const script = `while kill -0 ${process.pid} 2>/dev/null; do sleep 2; done; if [ -f "${dataDir}/postmaster.pid" ]; then ${asPostgres}"${bin}/pg_ctl" -D "${dataDir}" -m immediate -w stop; fi; rm -rf "${parent}"`;
  spawn('sh', ['-c', script], { detached: true, stdio: 'ignore' }).unref();
}
