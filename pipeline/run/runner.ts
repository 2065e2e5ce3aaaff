// The one runner (issue #27 item 2). Every run, of `pnpm eval`'s experiments (pipeline/run/run.ts) and of the
// registered suites (pipeline/suites/run-suite.ts) alike, goes through the same steps in the same order:
//
//   prepare (components, preflight) → plan → a dry run ends here → confirm → open the run directory
//   (run-session.ts: lock, version, the kind's own checks, leftovers of dead invocations) → run (setup, bounded units,
//   summary, final manifest) → the directory released, the invocation's end recorded, the run signed
//
// What differs by kind is a RunnerKind's members; the order, the directory and its release are the runner's.
import type { RunInvocation } from '../run-log/run-log.js';
import { openRunDirectory, type RunDirectory, type RunDirectorySettings } from './run-session.js';

/** What the runner reads of any manifest: its version and the invocations that worked on it. */
type AnyManifest = { version: unknown; invocations?: RunInvocation[] };

/**
 * One kind of run, as the runner carries it. `Prepared` is what `prepare` built (components, spec, units), `Plan` what a
 * dry run prints, `Manifest` the directory's manifest, `Outcome` how a run ends.
 */
export interface RunnerKind<Prepared, Plan, Manifest extends AnyManifest, Outcome> {
  /** Builds and checks everything the run needs and probes its endpoints; writes nothing, sends nothing but probes. */
  prepare(): Promise<Prepared>;
  /** The run directory the prepared run writes. */
  runDir(prepared: Prepared): string;
  /**
   * The plan: always for a dry run; otherwise when `confirm` needs it (null: not needed, e.g. nothing costs money).
   * Sends nothing.
   */
  plan(prepared: Prepared, dryRun: boolean): Promise<Plan | null>;
  /** Throws unless the run may start (a planned cost above what the user allowed, unconfirmed). */
  confirm?(prepared: Prepared, plan: Plan | null): Promise<void>;
  /** How the directory is opened: what a manifest found there must match, leftovers elsewhere, the signature. */
  directory(prepared: Prepared): RunDirectorySettings<Manifest>;
  /** Runs (or resumes) the units inside the opened directory, and ends with the summary and the final manifest. */
  run(prepared: Prepared, directory: RunDirectory<Manifest>): Promise<Outcome>;
}

/** What the runner returns: the plan of a dry run (nothing written) with what was prepared, or the run's outcome. */
export type RunnerResult<Prepared, Plan, Outcome> =
  | { readonly dryRun: true; readonly runDir: string; readonly plan: Plan; readonly prepared: Prepared }
  | { readonly dryRun: false; readonly runDir: string; readonly outcome: Outcome };

/**
 * Carries one run of `kind` through the runner's steps. A dry run returns its plan before anything is written; a real
 * run holds its directory (lock released, end recorded, signature written) until `run` has returned or thrown.
 *
 * @example const result = await runThrough(suiteRunnerKind(suite, options), { dryRun: false, log });
 */
export async function runThrough<Prepared, Plan, Manifest extends AnyManifest, Outcome>(
  kind: RunnerKind<Prepared, Plan, Manifest, Outcome>,
  options: { dryRun: boolean; log: (line: string) => void },
): Promise<RunnerResult<Prepared, Plan, Outcome>> {
  const prepared = await kind.prepare();
  const runDir = kind.runDir(prepared);
  const plan = await kind.plan(prepared, options.dryRun);
  if (options.dryRun) {
    if (plan === null) throw new Error('runner: a dry run needs a plan');
    return { dryRun: true, runDir, plan, prepared };
  }
  await kind.confirm?.(prepared, plan);
  await using directory = await openRunDirectory<Manifest>({ runDir, log: options.log, ...kind.directory(prepared) });
  const outcome = await kind.run(prepared, directory);
  return { dryRun: false, runDir, outcome };
}
