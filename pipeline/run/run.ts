// Runs one evaluation as named phases: components → preflight → plan → session → the experiment's eval phase → ending.
import { createRedactor } from './redact.js';
import { secretsOf, type RunSecrets } from './run-components.js';
import { confirmPlan } from './run-confirm.js';
import { createRunContext } from './run-context.js';
import { RUN_ENVIRONMENT, type RunEnvironment } from './run-environment.js';
import { emptySummary, type ExperimentOutcome } from './run-experiment.js';
import { evalPhaseOf } from '../suites/eval-phases.js';
import { createRunParts, preflightRun } from './run-parts.js';
import { formatPlan, type RunPlan } from './run-plan.js';
import { openRunSession } from './run-session.js';
import { specHash, type RunSpec } from './run-spec.js';
import { runFingerprint, startManifest } from './run-start.js';
import { forbiddenKeyDirs, readSigningKey } from './run-signature.js';

export type { RunSecrets } from './run-components.js';

/** How a run ended. */
export interface RunOutcome extends ExperimentOutcome {
  /** `--dry-run`: the plan (nothing was written or sent). */
  plan?: RunPlan;
}

/** Process-level options of one invocation (not part of the spec). */
export interface RunOptions {
  /** Aborted by the CLI on SIGINT/SIGTERM (reason: `{ kind: 'interrupted', signal }`). */
  signal?: AbortSignal;
  log?: (line: string) => void;
  resumeAnyway?: boolean;
  environment?: RunEnvironment;
  /** `--dry-run`: plan, print, write nothing, send nothing. */
  dryRun?: boolean;
  /** Asks the user (a TTY); absent: a run above `--confirm-above-usd` needs `--yes`. */
  confirm?: (question: string) => Promise<boolean>;
  /** Progress output (default stderr) and whether it is a terminal. */
  progress?: { write: (text: string) => void; isTTY: boolean | undefined; env: NodeJS.ProcessEnv };
  /** `--sign-key`: an Ed25519 private key file (outside the run and output directories) that signs the run at its end. */
  signKey?: string;
}

/**
 * Runs (or resumes) the run described by `spec`. Every input is validated, every endpoint probed and the cost
 * planned before anything is written; the same spec always maps to the same run directory, so re-issuing a
 * command resumes it.
 */
export async function runEvaluation(spec: RunSpec, secrets: RunSecrets, options: RunOptions = {}): Promise<RunOutcome> {
  const redact = createRedactor(secretsOf(secrets));
  const log = (line: string) => (options.log ?? (() => {}))(redact(line));
  // The experiment's eval phase (pipeline/suites/eval-phases.ts): every step below asks it what differs by kind.
  const phase = evalPhaseOf(spec.experiment);
  // Components, then the preflight of their endpoints: nothing is written before both pass.
  const parts = await createRunParts(spec, secrets, redact, log, phase);
  // The signing key is read (and refused inside the run or output directory) before anything is written or sent.
  const signKey =
    options.signKey === undefined
      ? undefined
      : readSigningKey(options.signKey, forbiddenKeyDirs(parts.runDir, spec.out));
  await preflightRun(spec, secrets, log, phase);

  // The plan: printed by --dry-run; for a real run, its upper cost decides whether to ask first.
  const plan = await confirmPlan(spec, parts, options, phase);
  if (plan) {
    const simulated = parts.models.some((m) => m.description.simulated);
    const table = formatPlan(plan);
    return {
      status: 'success',
      exitCode: 0,
      why: null,
      runDir: parts.runDir,
      summary: emptySummary(simulated),
      table,
      plan,
    };
  }

  // Locks the run directory (released on every exit path), then reads the manifest and checks a resume (run-session.ts).
  const fingerprint = runFingerprint(spec, parts, options.environment ?? RUN_ENVIRONMENT);
  await using session = await openRunSession({
    runDir: parts.runDir,
    specHash: specHash(spec, phase),
    limit: spec.limit ?? null,
    engine: parts.engine,
    fingerprint,
    resumeAnyway: options.resumeAnyway ?? false,
    log,
    ...(signKey ? { signKey } : {}),
  });
  const { previous, nonce } = session;
  const manifest = startManifest(spec, parts, session, fingerprint, log, phase);
  const run = createRunContext({ spec, secrets, parts, manifest, previous, nonce, options, redact, log });

  // The experiment's own units, summary and final manifest. Awaited here, inside the session, so the lock is released
  // only after the final manifest is written.
  return await phase.run(run);
}
