// One process on one run directory, for every suite: lock, nonce, version and resume checks, leftovers of dead
// invocations, how each invocation ended, the signature. runner.ts opens it for every run kind; `evalDirectory` adds eval's checks.
import { randomBytes, type KeyObject } from 'node:crypto';
import { existsSync, readdirSync, rmdirSync, rmSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { removeEngineNamespaces } from '../../backends/engine-namespaces.js';
import type { EngineSpec } from '../../backends/memory-backend.js';
import { InvalidInputError } from '#core/errors.js';
import { ATOMIC_TEMPORARY, readJsonIfExists, writeJsonAtomic } from '../run-log/json-files.js';
import { ResumeRefusedError, resumeChanges, type RunFingerprint } from './resume-check.js';
import { acquireRunLock } from './run-lock.js';
import { runLogVersionProblem, type RunInvocation, type RunManifest, type RunStatus } from '../run-log/run-log.js';
import { signRun } from './run-signature.js';
import { makeDirectory } from '#core/make-directory.js';

/** Inputs of `evalDirectory`. */
export interface RunSessionInput {
  runDir: string;
  specHash: string;
  /** `--limit N` of this invocation (null: none), named when it is what makes the spec differ. */
  limit?: number | null;
  /** The run's engines with credentials: leftovers of dead invocations are removed from their servers. */
  engine: EngineSpec;
  /** This invocation's scenarios, prompts, revision and packages. */
  fingerprint: RunFingerprint;
  /** Continue a resume whose fingerprint differs, recording it in the manifest's `resumes`. */
  resumeAnyway: boolean;
  log: (line: string) => void;
  /** `--sign-key`: signs the run (`signature.json`) after the manifest's last write, on every exit path that wrote one. */
  signKey?: KeyObject;
}

/** The session of an open `pnpm eval` run directory (the runner holds the directory and releases it). */
export interface RunSession {
  /** This process's nonce (8 hex digits), carried by every namespace it creates. */
  readonly nonce: string;
  /** The manifest as found, for a resume. */
  readonly previous: RunManifest | undefined;
  /**
   * The manifest to write at the start: `fresh` plus this invocation for a new run; for a resume the manifest as
   * first written (createdAt, spec, scenarios, revision, packages, prompts, ...) with status `started` and this
   * invocation (and, with --resume-anyway, its resume entry) appended. Nothing recorded earlier is replaced.
   */
  manifestFor(fresh: RunManifest): RunManifest;
}

/** How a kind of run opens its directory (`pnpm eval`'s experiments, the registered suites). */
export interface RunDirectorySettings<Manifest> {
  /**
   * Refuses the manifest as found by throwing (another spec, suite or shard): called with the lock held, after the
   * version check, before anything is removed or written.
   */
  admit(previous: Manifest | undefined, manifestPath: string): void;
  /** Removes what dead invocations (their nonces) left outside the directory; what it removed joins this invocation. */
  removeLeftovers?(earlier: string[]): Promise<RunInvocation['removedLeftovers']>;
  /** Signs the run (`signature.json`) after the manifest's last write, on every exit path that wrote one. */
  signKey?: KeyObject;
}

/** What every run directory's owner needs, whichever suite writes it. */
export interface RunDirectoryInput<Manifest> extends RunDirectorySettings<Manifest> {
  runDir: string;
  log: (line: string) => void;
}

/** A run directory this process holds; `await using` releases the lock and records how the invocation ended. */
export interface RunDirectory<Manifest> extends AsyncDisposable {
  /** This process's nonce (8 hex digits). */
  readonly nonce: string;
  /** The manifest as found, for a resume. */
  readonly previous: Manifest | undefined;
  /** This invocation's line of the manifest's `invocations`. */
  readonly invocation: RunInvocation;
  /** Says that the manifest now lists this invocation: disposing records its end there (unless the owner did). */
  written(): void;
}

/**
 * Opens a run directory for this process, the same for every suite: takes its lock (a live holder:
 * `RunLockedError`), reads the manifest only then, refuses one this code cannot read and whatever `admit` refuses,
 * then removes what dead invocations left (`removeLeftovers`, `work/`, temporary files of atomic writes). On failure
 * the lock is released and a directory this call created is removed again.
 *
 * @example await using directory = await openRunDirectory({ runDir, log, admit: (previous) => checkSameSpec(previous) });
 */
export async function openRunDirectory<Manifest extends { version: unknown; invocations?: RunInvocation[] }>(
  input: RunDirectoryInput<Manifest>,
): Promise<RunDirectory<Manifest>> {
  const { runDir, log } = input;
  const created = !existsSync(runDir);
  // One error naming the directory and the system's reason (`-o` under /proc, a read-only disk, no permission).
  makeDirectory(runDir);
  const nonce = randomBytes(4).toString('hex');
  let lock: Awaited<ReturnType<typeof acquireRunLock>>;
  try {
    lock = await acquireRunLock(runDir, { nonce, log });
  } catch (error) {
    if (created) removeIfEmpty(runDir);
    throw error;
  }
  const manifestPath = join(runDir, 'manifest.json');
  const invocation: RunInvocation = { nonce, pid: process.pid, host: hostname(), startedAt: lock.holder.startedAt };
  let previous: Manifest | undefined;
  try {
    previous = readJsonIfExists<Manifest>(manifestPath);
    // A run this code cannot read (version 1, or a newer stalebench's) is not extended: nothing is written to it.
    const version = previous && runLogVersionProblem(previous.version);
    if (version) throw new InvalidInputError(manifestPath, [{ path: 'version', message: `${version}; not resumed` }]);
    input.admit(previous, manifestPath);
    // We hold the lock, so every earlier invocation of this directory is over: whatever it left is a leftover.
    const earlier = [
      ...(previous?.invocations ?? []).map((entry) => entry.nonce),
      ...(lock.takenOver ? [lock.takenOver.nonce] : []),
    ];
    const removed = (await input.removeLeftovers?.(earlier)) ?? [];
    if (removed.length > 0) invocation.removedLeftovers = removed;
    rmSync(join(runDir, 'work'), { recursive: true, force: true });
    removeTemporaries(runDir, log);
  } catch (error) {
    lock.release();
    if (created) removeIfEmpty(runDir);
    throw error;
  }
  let written = false;
  return {
    nonce,
    previous,
    invocation,
    written() {
      written = true;
    },
    async [Symbol.asyncDispose]() {
      try {
        const current = written ? readJsonIfExists<Manifest>(manifestPath) : undefined;
        const own = current?.invocations?.find((entry) => entry.nonce === nonce);
        if (current && own) {
          if (!own.ended) {
            const status = (current as { status?: RunStatus }).status;
            own.ended = {
              at: new Date().toISOString(),
              status: status === 'started' || !status ? 'exception' : status,
            };
            writeJsonAtomic(manifestPath, current);
          }
          // Signed last: the heads, the manifest as it now stands and summary.json (run-signature.ts).
          if (input.signKey) signRun(runDir, input.signKey);
        }
      } finally {
        lock.release();
      }
    },
  };
}

/** What the runner opens a `pnpm eval` run directory with, and the session it then hands the run. */
export interface EvalDirectory {
  /** The settings `openRunDirectory` (through pipeline/run/runner.ts) opens the directory with. */
  readonly settings: RunDirectorySettings<RunManifest>;
  /** The session of the opened directory: its manifest history for `startManifest`. */
  sessionOf(directory: RunDirectory<RunManifest>): RunSession;
}

/**
 * How a `pnpm eval` run directory is opened (`openRunDirectory`): a different spec, or (without `resumeAnyway`) a
 * different experiment, is refused; what dead invocations left on the engines is removed.
 *
 * @example const { settings, sessionOf } = evalDirectory({ runDir, specHash, engine, fingerprint, resumeAnyway, log });
 */
export function evalDirectory(input: RunSessionInput): EvalDirectory {
  const { log } = input;
  let changes: string[] = [];
  const settings: RunDirectorySettings<RunManifest> = {
    ...(input.signKey ? { signKey: input.signKey } : {}),
    admit(previous, manifestPath) {
      if (previous && previous.specHash !== input.specHash) {
        throw new InvalidInputError(manifestPath, [
          {
            path: 'specHash',
            message: `this run directory holds a different run (spec ${previous.specHash.slice(0, 8)}, yours ${input.specHash.slice(0, 8)}${limitDifference(previous.spec?.limit, input.limit)}); pick another --run-id or --out`,
          },
        ]);
      }
      changes = previous ? resumeChanges(previous, input.fingerprint) : [];
      if (changes.length > 0 && !input.resumeAnyway) throw new ResumeRefusedError(input.runDir, changes);
      if (changes.length > 0)
        log(
          `resuming anyway over ${changes.length} difference(s):\n${changes.map((change) => `  - ${change}`).join('\n')}`,
        );
    },
    async removeLeftovers(earlier) {
      const removed = await removeEngineNamespaces(input.engine, earlier);
      for (const entry of removed)
        log(
          `removed leftovers of invocation ${entry.nonce} on ${entry.engine}: ${entry.namespaces.length} namespace(s), ${entry.detail}`,
        );
      return removed.map((entry) => ({
        nonce: entry.nonce,
        engine: entry.engine,
        namespaces: entry.namespaces.length,
        detail: entry.detail,
      }));
    },
  };
  const sessionOf = (directory: RunDirectory<RunManifest>): RunSession => {
    const { nonce, previous, invocation } = directory;
    return {
      nonce,
      previous,
      manifestFor(fresh) {
        directory.written();
        if (!previous) return { ...fresh, invocations: [invocation] };
        const { error: _error, counts: _counts, ...kept } = previous;
        const resumes =
          changes.length > 0
            ? [
                ...(previous.resumes ?? []),
                { at: invocation.startedAt, nonce, revision: input.fingerprint.revision, changes },
              ]
            : previous.resumes;
        return {
          ...kept,
          // An older readable run is stamped with this code's version: what it appends from now on is written in it.
          version: fresh.version,
          status: 'started',
          updatedAt: fresh.updatedAt,
          invocations: [...(previous.invocations ?? []), invocation],
          ...(resumes ? { resumes } : {}),
        };
      },
    };
  };
  return { settings, sessionOf };
}

/**
 * Removes the temporary files of atomic writes (`manifest.json.<hex>.tmp`, `eval.lock.<pid>.tmp`) that a killed or
 * failed invocation left in the run directory: with the lock held, none of them is being written.
 */
function removeTemporaries(runDir: string, log: (line: string) => void): void {
  const left = readdirSync(runDir).filter((name) => ATOMIC_TEMPORARY.test(name) || /^eval\.lock\.\d+\.tmp$/.test(name));
  for (const name of left) rmSync(join(runDir, name), { force: true });
  if (left.length > 0)
    log(`removed ${left.length} temporary file(s) left by an earlier invocation: ${left.join(', ')}`);
}

/** `; its --limit 20, yours none`: said when the two limits differ (a limited run is never extended or cut in place). */
function limitDifference(before: number | null | undefined, now: number | null | undefined): string {
  const label = (limit: number | null | undefined) => (limit === null || limit === undefined ? 'none' : String(limit));
  return label(before) === label(now) ? '' : `; its --limit ${label(before)}, yours ${label(now)}`;
}

/** Removes a directory this process created if nothing is in it (another process may have filled it meanwhile). */
function removeIfEmpty(dir: string): void {
  try {
    if (readdirSync(dir).length === 0) rmdirSync(dir);
  } catch {
    // not empty after all, or already gone: either way not ours to remove
  }
}
