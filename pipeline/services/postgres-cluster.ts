// A throwaway PostgreSQL cluster on loopback from the installed binaries (Debian's package): initdb, pg_ctl, psql.
import { spawnSync, type SpawnSyncOptions } from 'node:child_process';
import { chmodSync, chownSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { delimiter, join } from 'node:path';

/** The environment variable that names a running server for the Postgres stores (`pnpm services start postgres`). */
export const POSTGRES_URI_VARIABLE = 'STALEBENCH_POSTGRES_URI';
/** A directory holding initdb, pg_ctl, postgres and psql; overrides the search (e.g. pgserver's PostgreSQL 16). */
const POSTGRES_BIN_VARIABLE = 'STALEBENCH_POSTGRES_BIN';
const TOOLS = ['initdb', 'pg_ctl', 'postgres', 'psql'];

/** Where the binaries are, or what is missing. */
export type PostgresBinLookup = { dir: string } | { missing: string };

/**
 * Finds the PostgreSQL binaries: `$STALEBENCH_POSTGRES_BIN` when set (and only there), else Debian's
 * `/usr/lib/postgresql/<major>/bin` (newest major first), else `PATH`.
 */
export function findPostgresBin(env: Readonly<Record<string, string | undefined>>): PostgresBinLookup {
  const complete = (dir: string) => TOOLS.every((tool) => existsSync(join(dir, tool)));
  const chosen = env[POSTGRES_BIN_VARIABLE];
  if (chosen)
    return complete(chosen)
      ? { dir: chosen }
      : { missing: `${POSTGRES_BIN_VARIABLE}=${chosen} does not hold ${TOOLS.join(', ')}` };
  const debian = existsSync('/usr/lib/postgresql')
    ? readdirSync('/usr/lib/postgresql')
        .filter((major) => /^\d+$/.test(major))
        .sort((a, b) => Number(b) - Number(a))
        .map((major) => join('/usr/lib/postgresql', major, 'bin'))
    : [];
  const found = [...debian, ...(env.PATH ?? '').split(delimiter).filter(Boolean)].find(complete);
  return found
    ? { dir: found }
    : {
        missing: `PostgreSQL binaries not found (${TOOLS.join(', ')} in /usr/lib/postgresql/<major>/bin or on PATH): install Debian's postgresql package (apt-get install postgresql), or set ${POSTGRES_BIN_VARIABLE} to a directory holding them`,
      };
}

/** `15.14 (Debian 15.14-0+deb12u1)`, as `postgres --version` prints it. */
export function postgresVersion(bin: string): string {
  const printed = spawnSync(join(bin, 'postgres'), ['--version'], { encoding: 'utf8' }).stdout ?? '';
  return printed.replace(/^postgres \(PostgreSQL\) /, '').trim();
}

/** A started cluster. */
export interface PostgresCluster {
  /** `postgresql://postgres@127.0.0.1:<port>/postgres` (trust authentication, loopback only). */
  uri: string;
  port: number;
  /** The postmaster's pid. */
  pid: number;
  /** Its data directory (also the directory of its Unix socket and its log). */
  dataDir: string;
}

/** Runs a server tool, as the `postgres` user when we are root (initdb and postgres refuse to run as root). */
function runTool(bin: string, tool: string, args: string[], cwd: string): string {
  const options: SpawnSyncOptions = { encoding: 'utf8', cwd, timeout: 120_000 };
  if (process.getuid?.() === 0) Object.assign(options, postgresUser());
  const result = spawnSync(join(bin, tool), args, options);
  if (result.error || result.status !== 0)
    throw new Error(
      `${tool} ${args.join(' ')} failed: ${result.error?.message ?? `${String(result.stderr).trim() || String(result.stdout).trim()}`}`,
    );
  return String(result.stdout);
}

function postgresUser(): { uid: number; gid: number } {
  const line = readFileSync('/etc/passwd', 'utf8')
    .split('\n')
    .find((entry) => entry.startsWith('postgres:'));
  const [, , uid, gid] = line?.split(':') ?? [];
  if (uid === undefined || gid === undefined)
    throw new Error('running as root, but there is no postgres user to run initdb and pg_ctl as');
  return { uid: Number(uid), gid: Number(gid) };
}

/** A port nobody listens on at the moment, on 127.0.0.1. */
function freeLoopbackPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/**
 * Creates a cluster in `dataDir` (which must not exist yet) and starts it: `initdb -U postgres --auth=trust -E UTF8
 * --locale=C`, then `pg_ctl -w start` listening on 127.0.0.1 only, its socket in the data directory. As root both
 * run as the `postgres` user, who then owns the data directory.
 *
 * @example const cluster = await startPostgresCluster(bin, '/tmp/x/pgdata');
 */
export async function startPostgresCluster(bin: string, dataDir: string): Promise<PostgresCluster> {
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  if (process.getuid?.() === 0) {
    const { uid, gid } = postgresUser();
    chownSync(dataDir, uid, gid);
    // The postgres user must reach its data directory: a private temporary parent is opened for traversal.
    chmodSync(join(dataDir, '..'), 0o755);
  }
  runTool(bin, 'initdb', ['-D', dataDir, '-U', 'postgres', '--auth=trust', '-E', 'UTF8', '--locale=C'], dataDir);
  const port = await freeLoopbackPort();
  runTool(
    bin,
    'pg_ctl',
    [
      '-D',
      dataDir,
      '-l',
      join(dataDir, 'server.log'),
      '-o',
      `-p ${port} -k ${dataDir} -c listen_addresses=127.0.0.1`,
      '-w',
      'start',
    ],
    dataDir,
  );
  const pid = Number(readFileSync(join(dataDir, 'postmaster.pid'), 'utf8').split('\n')[0]);
  return { uri: `postgresql://postgres@127.0.0.1:${port}/postgres`, port, pid, dataDir };
}

/** Stops the cluster (`pg_ctl -m fast -w stop`) and deletes its data directory; synchronous, so it can run at exit. */
export function stopPostgresCluster(bin: string, dataDir: string): void {
  if (existsSync(join(dataDir, 'postmaster.pid')))
    runTool(bin, 'pg_ctl', ['-D', dataDir, '-m', 'fast', '-w', 'stop'], '/');
  rmSync(dataDir, { recursive: true, force: true });
}

/**
 * Runs SQL through psql (`-X -q -A -t -v ON_ERROR_STOP=1`), the SQL on stdin so that `:'name'` interpolates the
 * variables as quoted literals. Returns what psql printed.
 *
 * @example runPsql(bin, uri, "SELECT :'name'", { name: "it's" })
 */
export function runPsql(
  bin: string,
  uri: string,
  sql: string,
  variables: Readonly<Record<string, string>> = {},
): string {
  const args = ['-X', '-q', '-A', '-t', '-v', 'ON_ERROR_STOP=1', '-d', uri];
  for (const [name, value] of Object.entries(variables)) args.push('-v', `${name}=${value}`);
  // A server that does not answer fails in seconds rather than at the 60 s process timeout.
  const env = { ...process.env, PGCONNECT_TIMEOUT: process.env.PGCONNECT_TIMEOUT ?? '10' };
  const result = spawnSync(join(bin, 'psql'), args, { input: sql, encoding: 'utf8', timeout: 60_000, env });
  if (result.error || result.status !== 0)
    throw new Error(
      `psql failed on ${JSON.stringify(sql.slice(0, 200))}: ${result.error?.message ?? result.stderr.trim()}`,
    );
  return result.stdout;
}
