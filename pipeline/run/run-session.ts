// One eval process on one run directory: lock, nonce, resume check, leftovers of dead invocations, manifest history.
import { randomBytes, type KeyObject } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, rmdirSync, rmSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { removeEngineNamespaces } from '../../backends/engine-namespaces.js';
import type { EngineSpec } from '../../backends/memory-backend.js';
import { InvalidInputError } from '#core/errors.js';
import { ATOMIC_TEMPORARY, readJsonIfExists, writeJsonAtomic } from '../run-log/json-files.js';
import { ResumeRefusedError, resumeChanges, type RunFingerprint } from './resume-check.js';
import { acquireRunLock } from './run-lock.js';
import { runLogVersionProblem, type RunInvocation, type RunManifest } from '../run-log/run-log.js';
import { signRun } from './run-signature.js';

/** Inputs of `openRunSession`. */
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

/** An open session; `await using` releases the lock and records how the invocation ended on every exit path. */
export interface RunSession extends AsyncDisposable {
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

/**
 * Opens the run directory for this process: takes its lock (a live holder: `RunLockedError`), reads the manifest
 * only then, refuses a different spec or (without `resumeAnyway`) a different experiment, and removes what dead
 * invocations left on the engines and in `work/`. On failure the lock is released and a directory this call
 * created is removed again.
 *
 * @example
 * await using session = await openRunSession({ runDir, specHash, engine, fingerprint, resumeAnyway: false, log });
 */
export async function openRunSession(input: RunSessionInput): Promise<RunSession> {
  const { runDir, log } = input;
  const created = !existsSync(runDir);
  mkdirSync(runDir, { recursive: true });
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
  let previous: RunManifest | undefined;
  let changes: string[] = [];
  try {
    previous = readJsonIfExists<RunManifest>(manifestPath);
    // A run this code cannot read (version 1, or a newer stalebench's) is not extended: nothing is written to it.
    const version = previous && runLogVersionProblem(previous.version);
    if (version) throw new InvalidInputError(manifestPath, [{ path: 'version', message: `${version}; not resumed` }]);
    if (previous && previous.specHash !== input.specHash) {
      throw new InvalidInputError(manifestPath, [
        {
          path: 'specHash',
          message: `this run directory holds a different run (spec ${previous.specHash.slice(0, 8)}, yours ${input.specHash.slice(0, 8)}${limitDifference(previous.spec?.limit, input.limit)}); pick another --run-id or --out`,
        },
      ]);
    }
    changes = previous ? resumeChanges(previous, input.fingerprint) : [];
    if (changes.length > 0 && !input.resumeAnyway) throw new ResumeRefusedError(runDir, changes);
    if (changes.length > 0)
      log(
        `resuming anyway over ${changes.length} difference(s):\n${changes.map((change) => `  - ${change}`).join('\n')}`,
      );
    // We hold the lock, so every earlier invocation of this directory is over: whatever it left is a leftover.
    const earlier = [
      ...(previous?.invocations ?? []).map((entry) => entry.nonce),
      ...(lock.takenOver ? [lock.takenOver.nonce] : []),
    ];
    const removed = await removeEngineNamespaces(input.engine, earlier);
    for (const entry of removed)
      log(
        `removed leftovers of invocation ${entry.nonce} on ${entry.engine}: ${entry.namespaces.length} namespace(s), ${entry.detail}`,
      );
    if (removed.length > 0)
      invocation.removedLeftovers = removed.map((entry) => ({
        nonce: entry.nonce,
        engine: entry.engine,
        namespaces: entry.namespaces.length,
        detail: entry.detail,
      }));
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
    manifestFor(fresh) {
      written = true;
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
    async [Symbol.asyncDispose]() {
      try {
        const current = written ? readJsonIfExists<RunManifest>(manifestPath) : undefined;
        const own = current?.invocations?.find((entry) => entry.nonce === nonce);
        if (current && own) {
          own.ended = {
            at: new Date().toISOString(),
            status: current.status === 'started' ? 'exception' : current.status,
          };
          writeJsonAtomic(manifestPath, current);
          // Signed last: the heads, the manifest as it now stands and summary.json (run-signature.ts).
          if (input.signKey) signRun(runDir, input.signKey);
        }
      } finally {
        lock.release();
      }
    },
  };
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
