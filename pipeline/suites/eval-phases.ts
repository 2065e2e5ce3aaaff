// The eval-phase registry (issue #27 items 1–2): one line per kind of `pnpm eval` experiment. An experiment line
// (pipeline/run/experiments.ts) names its phase; the run mechanics (spec, parts, plan, shard, limit, manifest, merge,
// command line) look the phase up here and ask its members (pipeline/run/eval-phase-v1.ts) instead of branching.
import { UnknownComponentError } from '#core/errors.js';
import { EXPERIMENTS } from '../run/experiments.js';
import type { EvalPhase } from '../run/run-experiment.js';
import { followUpEvalPhase } from './follow-ups/eval-phase.js';
import { forgedReasoningEvalPhase } from './forged-reasoning/eval-phase.js';
import { gridEvalPhase } from './grid/eval-phase.js';

const EVAL_PHASES: readonly EvalPhase[] = [
  gridEvalPhase, // grid: setup, then one decision per unit
  followUpEvalPhase, // follow-up: writeback, propagation, tools
  forgedReasoningEvalPhase, // standalone: forged-reasoning
];

/** The registered eval phases, in registry order. */
export const evalPhases = (): readonly EvalPhase[] => EVAL_PHASES;

/**
 * The eval phase of experiment `experiment` (its line's `phase`); `UnknownComponentError` naming the registered ones.
 *
 * @example evalPhaseOf('tools').refuses.shard?.('tools') // 'splits the grid only; --experiment tools runs as one process'
 */
export function evalPhaseOf(experiment: string): EvalPhase {
  const id = EXPERIMENTS.get(experiment).phase;
  const phase = EVAL_PHASES.find((candidate) => candidate.id === id);
  if (!phase)
    throw new UnknownComponentError(
      'eval phase',
      id,
      EVAL_PHASES.map((candidate) => candidate.id),
    );
  return phase;
}
