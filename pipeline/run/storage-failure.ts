// Disk failures (full, over quota, read-only, forbidden) as one StorageError naming the cause and the file.
import { sep } from 'node:path';
import { StorageError } from '#core/errors.js';

/** What each storage error code means, and what the user can do about it. */
const CAUSES: Readonly<Record<string, { description: string; fix: string }>> = {
  ENOSPC: { description: 'no space left on device', fix: 'Free space on that file system' },
  EDQUOT: { description: 'disk quota exceeded', fix: 'Free space within your quota' },
  EROFS: { description: 'read-only file system', fix: 'Remount that file system read-write' },
  EACCES: { description: 'permission denied', fix: 'Make that directory writable for this user' },
  EPERM: { description: 'operation not permitted', fix: 'Make that directory writable for this user' },
};

const isErrno = (value: unknown): value is NodeJS.ErrnoException & { code: string } =>
  value instanceof Error &&
  typeof (value as NodeJS.ErrnoException).code === 'string' &&
  (value as NodeJS.ErrnoException).code! in CAUSES;

/**
 * Every storage failure inside `error`, first cause first: the error itself, its `cause`, and both sides of a
 * `SuppressedError` (what the body threw comes before what disposal threw after it).
 */
function storageFailuresIn(error: unknown, seen = new Set<unknown>()): StorageError[] {
  if (error === null || typeof error !== 'object' || seen.has(error)) return [];
  seen.add(error);
  if (error instanceof StorageError) return [error];
  if (isErrno(error)) return [storageErrorOf(error)!];
  const found: StorageError[] = [];
  const nested = error as { suppressed?: unknown; error?: unknown; cause?: unknown };
  if (error instanceof Error && error.name === 'SuppressedError') {
    found.push(...storageFailuresIn(nested.suppressed, seen), ...storageFailuresIn(nested.error, seen));
  }
  found.push(...storageFailuresIn(nested.cause, seen));
  return found;
}

/**
 * The first storage failure inside `error` (itself, a cause, either side of a SuppressedError), or undefined: what a
 * phase rethrows instead of recording a unit's error, since a full or read-only disk stops the run.
 *
 * @example catch (error) { const disk = storageFailureIn(error); if (disk) throw disk; ... }
 */
export function storageFailureIn(error: unknown): StorageError | undefined {
  return storageFailuresIn(error)[0];
}

/**
 * `error` as a StorageError when it is a file-system error of a storage kind (ENOSPC, EDQUOT, EROFS, EACCES, EPERM),
 * else undefined. `path` names the file when the error does not (a failed `write` carries no path). Writers rethrow
 * with it so that no layer mistakes a full disk for a failed call.
 *
 * @example try { appendFileSync(path, line); } catch (error) { throw storageErrorOf(error, path) ?? error; }
 */
export function storageErrorOf(error: unknown, path?: string): StorageError | undefined {
  if (error instanceof StorageError) return error;
  if (!isErrno(error)) return undefined;
  const file = error.path ?? path ?? 'a file (the system did not say which)';
  return new StorageError(file, error.code, CAUSES[error.code]!.description, { cause: error });
}

/**
 * The one line a command ends with when a run stopped on a disk failure: the cause and the file, what to do, and
 * that the same command resumes. `where.cacheDir` (absolute) tells a cache file from a run file, for the flag that
 * moves it elsewhere. Undefined when `error` holds no
 * storage failure. A lock file that could not be removed is named too (the next run takes it over).
 */
export function storageFailureLine(error: unknown, where: { cacheDir?: string | undefined } = {}): string | undefined {
  const [first, ...rest] = storageFailuresIn(error);
  if (!first) return undefined;
  const dir = where.cacheDir;
  const inCache = dir !== undefined && (first.path === dir || first.path.startsWith(`${dir}${sep}`));
  const elsewhere = inCache
    ? 'or give --cache-dir on another disk (or --no-cache)'
    : 'or give --out on another disk (a new run)';
  const lock = rest.find((failure) => failure.path.endsWith('eval.lock') && failure.path !== first.path);
  const lockNote = lock ? ` ${lock.path} could not be removed (${lock.reason}); the next run takes it over.` : '';
  return `${first.message}. ${CAUSES[first.reason]!.fix} and re-run the same command to resume, ${elsewhere}.${lockNote}`;
}
