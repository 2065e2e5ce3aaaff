// How an eval phase's run ends (its outcome: ending, summary, printed table), and the eval-phase contract bound to this
// runner's types: each experiment kind's phase (pipeline/suites/<suite>/eval-phase.ts) runs its units and returns one.
import { SUMMARY_VERSION, type FollowUpSummary, type Summary } from '../../analysis/index.js';
import type { EvalPhaseV1 } from './eval-phase-v1.js';
import type { RunScenarios } from './run-components.js';
import type { RunContext } from './run-context.js';
import type { RunEnding } from './run-control.js';
import type { PlanInput, RunPlan } from './run-plan.js';
import type { RunSpec } from './run-spec.js';

/** How an experiment phase ended: the ending plus its summary and printed result. */
export interface ExperimentOutcome extends RunEnding {
  runDir: string;
  /** The grid summary (`summary.json`); a follow-up run's summary is in `followUp` instead. */
  summary: Summary;
  followUp?: FollowUpSummary;
  /** The printed result: the summary table and the spend lines, or the plan of a `--dry-run`. */
  table: string;
}

/** The summary of a run with no grid cells (a follow-up run, a `--dry-run`). */
export const emptySummary = (simulated: boolean): Summary => ({
  version: SUMMARY_VERSION,
  simulated,
  cells: [],
  guardMetrics: [],
  cache: { hits: 0, misses: 0, hitRate: null },
});

/** An eval phase of `pnpm eval` (pipeline/run/eval-phase-v1.ts), written against this runner's spec, context and plan. */
export type EvalPhase = EvalPhaseV1<{
  spec: RunSpec;
  scenarios: RunScenarios;
  planInput: PlanInput;
  plan: RunPlan;
  context: RunContext;
  outcome: ExperimentOutcome;
}>;

/** The exit rule of a phase with no gates of its own: the run's ending as it is. */
export const endingAsExit = (outcome: ExperimentOutcome): { exitCode: number; why: string | null } => ({
  exitCode: outcome.exitCode,
  why: outcome.why,
});
