// The run-directory lock: one eval process per run directory at a time; a dead holder's lock is taken over, and said so.
import {
  closeSync,
  fsyncSync,
  openSync,
  readFileSync,
  renameSync,
  statSync,
  unlinkSync,
  writeFileSync,
  writeSync,
} from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { EvalError } from '#core/errors.js';

/** Who holds a run directory (the content of its lock file). */
export interface LockHolder {
  pid: number;
  host: string;
  /** The holder's per-process nonce: every engine namespace it creates carries it. */
  nonce: string;
  startedAt: string;
  /** The holder's start time as the kernel reports it (Linux `/proc/<pid>/stat`), to tell a reused pid; null elsewhere. */
  processStart: string | null;
}

/** A held lock; `release` is idempotent and also runs when the process exits. */
export interface RunLock {
  holder: LockHolder;
  /** The dead holder whose lock this process took over, if any. */
  takenOver: LockHolder | null;
  release(): void;
}

/** Another live process holds the run directory. The message is one line naming its pid, host and start time. */
export class RunLockedError extends EvalError {
  readonly holder: LockHolder | null;
  constructor(message: string, holder: LockHolder | null) {
    super('run-locked', message);
    this.holder = holder;
  }
}

/** The lock file of a run directory. */
export function lockPathOf(runDir: string): string {
  return join(runDir, 'eval.lock');
}

/** The fields of `/proc/<pid>/stat` after the command name (which may hold spaces and parentheses), or null. */
function procStatFields(pid: number): string[] | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  } catch {
    return null;
  }
}

/** Kernel start time of a process (clock ticks since boot), or null where `/proc` has none. */
export function processStartOf(pid: number): string | null {
  // starttime is field 22 overall.
  return procStatFields(pid)?.[19] ?? null;
}

/**
 * True when `pid` has exited but is not yet reaped (a zombie, `Z`, or dying, `X`): it answers signals yet runs no
 * code. A run killed with SIGKILL in a container whose init does not reap leaves one behind; it holds no lock.
 */
export function hasExited(pid: number): boolean {
  const state = procStatFields(pid)?.[0];
  return state === 'Z' || state === 'X';
}

/** This process as a lock holder. */
function currentHolder(nonce: string): LockHolder {
  return {
    pid: process.pid,
    host: hostname(),
    nonce,
    startedAt: new Date().toISOString(),
    processStart: processStartOf(process.pid),
  };
}

/**
 * `alive`, `dead` (same host, and the pid is gone, a zombie, or now belongs to a process started at another time), or
 * `unknown` (another host: its processes cannot be checked from here).
 */
export function holderState(holder: LockHolder): 'alive' | 'dead' | 'unknown' {
  if (holder.host !== hostname()) return 'unknown';
  try {
    process.kill(holder.pid, 0);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ESRCH') return 'dead';
  }
  if (hasExited(holder.pid)) return 'dead';
  const start = holder.processStart === null ? null : processStartOf(holder.pid);
  return start !== null && start !== holder.processStart ? 'dead' : 'alive';
}

/** The holder of a run directory's lock: null when there is none, `unreadable` while it is being written (or corrupt). */
export function readRunLock(runDir: string): LockHolder | null | 'unreadable' {
  let text: string;
  try {
    text = readFileSync(lockPathOf(runDir), 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
  try {
    const holder = JSON.parse(text) as LockHolder;
    return typeof holder.pid === 'number' && typeof holder.nonce === 'string' && typeof holder.host === 'string'
      ? holder
      : 'unreadable';
  } catch {
    return 'unreadable';
  }
}

/** `pid 123 on host h (started <iso>, nonce <n>)`. */
export function describeHolder(holder: LockHolder): string {
  return `pid ${holder.pid} on host ${holder.host} (started ${holder.startedAt}, nonce ${holder.nonce})`;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const ageMs = (path: string): number => {
  try {
    return Date.now() - statSync(path).mtimeMs;
  } catch {
    return 0;
  }
};

function unlinkIfPresent(path: string): void {
  try {
    unlinkSync(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
}

/** Exclusive create: `wx` is O_CREAT | O_EXCL, so of two processes racing for the same file exactly one succeeds. */
function createExclusive(path: string, content: string): boolean {
  let descriptor: number;
  try {
    descriptor = openSync(path, 'wx');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  }
  try {
    writeSync(descriptor, content);
    fsyncSync(descriptor);
  } finally {
    closeSync(descriptor);
  }
  return true;
}

/**
 * Replaces a dead holder's lock with ours, under a second exclusive file (`eval.lock.takeover`): of several processes
 * that found the same dead holder, only the one holding the guard re-reads the lock and, if it still names that
 * holder, renames its own lock over it (atomic: readers see the dead lock or ours, never none, so no third process
 * can slip in with a fresh create). A guard left by a process killed in these few lines is stale after 10 s.
 * Returns true when this process now holds the lock.
 */
function takeOverDeadLock(runDir: string, dead: LockHolder, content: string): boolean {
  const path = lockPathOf(runDir);
  const guard = `${path}.takeover`;
  if (!createExclusive(guard, String(process.pid))) {
    if (ageMs(guard) > 10_000) unlinkIfPresent(guard);
    return false;
  }
  try {
    const current = readRunLock(runDir);
    if (current === null || current === 'unreadable' || current.nonce !== dead.nonce || current.pid !== dead.pid)
      return false;
    const temporary = `${path}.${process.pid}.tmp`;
    writeFileSync(temporary, content);
    renameSync(temporary, path);
    return true;
  } finally {
    unlinkIfPresent(guard);
  }
}

/**
 * Takes the run directory's lock before anything in it is read or written. A live holder (or one on another host)
 * makes this throw `RunLockedError`; a dead holder's lock is taken over and `log` says whose it was.
 *
 * @example
 * const lock = await acquireRunLock(runDir, { nonce, log: console.error });
 * try { ... } finally { lock.release(); }
 */
export async function acquireRunLock(
  runDir: string,
  options: { nonce: string; log?: (line: string) => void },
): Promise<RunLock> {
  const path = lockPathOf(runDir);
  const holder = currentHolder(options.nonce);
  const content = `${JSON.stringify(holder)}\n`;
  const held = (takenOver: LockHolder | null): RunLock => {
    const release = () => {
      process.off('exit', releaseAtExit);
      const current = readRunLock(runDir);
      if (current !== null && current !== 'unreadable' && current.nonce === holder.nonce) unlinkSync(path);
    };
    // At exit nothing can be reported any more: a lock that cannot be removed (a read-only disk) is taken over later.
    const releaseAtExit = () => {
      try {
        release();
      } catch {}
    };
    process.on('exit', releaseAtExit);
    if (takenOver)
      options.log?.(
        `took over the lock of ${runDir} from ${describeHolder(takenOver)}: that process is no longer running`,
      );
    return { holder, takenOver, release };
  };
  for (let attempt = 0; attempt < 200; attempt += 1) {
    if (createExclusive(path, content)) return held(null);
    const current = readRunLock(runDir);
    if (current === null) continue;
    if (current === 'unreadable') {
      // A holder writes its lock right after creating it; one that stays unreadable is not ours to judge.
      if (ageMs(path) < 5_000) {
        await sleep(50);
        continue;
      }
      throw new RunLockedError(
        `run directory ${runDir} is locked by ${path}, which is not a readable lock; if no eval runs on it, delete that file`,
        null,
      );
    }
    const state = holderState(current);
    if (state === 'alive')
      throw new RunLockedError(
        `run directory ${runDir} is in use by ${describeHolder(current)}; wait for it to finish or stop it`,
        current,
      );
    if (state === 'unknown') {
      throw new RunLockedError(
        `run directory ${runDir} is in use by ${describeHolder(current)}, which cannot be checked from host ${hostname()}; if that process is gone, delete ${path}`,
        current,
      );
    }
    if (takeOverDeadLock(runDir, current, content)) return held(current);
    await sleep(20);
  }
  throw new RunLockedError(
    `run directory ${runDir}: could not take its lock ${path} (other processes keep taking it)`,
    null,
  );
}
