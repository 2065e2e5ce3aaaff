// Runs one evaluation through the one runner (runner.ts): components → preflight → plan → confirm → run directory →
// the experiment's eval phase (setup, units, summary, final manifest) → ending.
import type { KeyObject } from 'node:crypto';
import type { RunManifest } from '../run-log/run-log.js';
import { createRedactor, type Redactor } from './redact.js';
import type { RunFingerprint } from './resume-check.js';
import { secretsOf, type RunSecrets } from './run-components.js';
import { confirmCost, planIfNeeded } from './run-confirm.js';
import { createRunContext } from './run-context.js';
import { RUN_ENVIRONMENT, type RunEnvironment } from './run-environment.js';
import { emptySummary, type EvalPhase, type ExperimentOutcome } from './run-experiment.js';
import { evalPhaseOf } from '../suites/eval-phases.js';
import { createRunParts, preflightRun, type RunParts } from './run-parts.js';
import { formatPlan, type RunPlan } from './run-plan.js';
import { evalDirectory, type EvalDirectory } from './run-session.js';
import { specHash, type RunSpec } from './run-spec.js';
import { runFingerprint, startManifest } from './run-start.js';
import { forbiddenKeyDirs, readSigningKey } from './run-signature.js';
import { runThrough, type RunnerKind } from './runner.js';

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
  const result = await runThrough(evalRunnerKind(spec, secrets, options, redact, log), {
    dryRun: options.dryRun ?? false,
    log,
  });
  if (!result.dryRun) return result.outcome;
  const { plan, runDir, prepared } = result;
  return {
    status: 'success',
    exitCode: 0,
    why: null,
    runDir,
    summary: emptySummary(prepared.parts.models.some((m) => m.description.simulated)),
    table: formatPlan(plan),
    plan,
  };
}

/** What an eval run prepares before anything is written: its phase, parts and signing key. */
interface PreparedEval {
  phase: EvalPhase;
  parts: RunParts;
  signKey: KeyObject | undefined;
  /** Set when the directory is opened (not for a dry run): this invocation's fingerprint and how the resume is checked. */
  opening?: { fingerprint: RunFingerprint; directory: EvalDirectory };
}

/** `pnpm eval`'s experiments as the runner (runner.ts) carries them: each step asks the experiment's eval phase. */
function evalRunnerKind(
  spec: RunSpec,
  secrets: RunSecrets,
  options: RunOptions,
  redact: Redactor,
  log: (line: string) => void,
): RunnerKind<PreparedEval, RunPlan, RunManifest, RunOutcome> {
  return {
    async prepare() {
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
      return { phase, parts, signKey };
    },
    runDir: ({ parts }) => parts.runDir,
    // The plan: printed by --dry-run; for a real run, its upper cost decides whether to ask first.
    plan: ({ parts, phase }, dryRun) => planIfNeeded(spec, parts, dryRun, phase),
    confirm: (_, plan) => confirmCost(spec, plan, options),
    directory(prepared) {
      const { parts, phase, signKey } = prepared;
      const fingerprint = runFingerprint(spec, parts, options.environment ?? RUN_ENVIRONMENT);
      // The manifest is read under the lock and a resume checked against this invocation (run-session.ts).
      const directory = evalDirectory({
        runDir: parts.runDir,
        specHash: specHash(spec, phase),
        limit: spec.limit ?? null,
        engine: parts.engine,
        fingerprint,
        resumeAnyway: options.resumeAnyway ?? false,
        log,
        ...(signKey ? { signKey } : {}),
      });
      prepared.opening = { fingerprint, directory };
      return directory.settings;
    },
    async run(prepared, opened) {
      const { phase, parts } = prepared;
      const { fingerprint, directory } = prepared.opening!;
      const session = directory.sessionOf(opened);
      const manifest = startManifest(spec, parts, session, fingerprint, log, phase);
      const run = createRunContext({
        spec,
        secrets,
        parts,
        manifest,
        previous: session.previous,
        nonce: session.nonce,
        options,
        redact,
        log,
      });
      // The experiment's own units, summary and final manifest, inside the held directory: the lock is released only
      // after the final manifest is written.
      return await phase.run(run);
    },
  };
}
