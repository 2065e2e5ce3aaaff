// The sample identity of a decision call (`DecisionRequest.sample`): which unit, and which call inside it.
import { followUpUnitIdOf, type FollowUpKey } from '../suites/follow-ups/follow-up-log.js';
import { unitIdOf, type UnitKey } from '../run-log/run-log.js';

/**
 * A grid unit's one decision: `grid/<unit id>` (scenario, system, mode, arm, model, trial, guard and PoEM axes).
 *
 * @example gridSample(key) // 'grid/mfa_waiver_access/graphiti/direct/none/gpt-5-nano/0'
 */
export function gridSample(key: UnitKey): string {
  return `grid/${unitIdOf(key)}`;
}

/**
 * One decision inside a follow-up unit: `<unit id>#<step>`, where the unit id starts with the experiment and the
 * step names the call (`hop1:filtered`, `reviewer`, or an agent episode such as `relapse-default`).
 *
 * @example followUpSample(key, 'hop1:filtered') // 'writeback/…/0#hop1:filtered'
 */
export function followUpSample(key: FollowUpKey, step: string): string {
  return `${followUpUnitIdOf(key)}#${step}`;
}

/** One model call of an agent episode: `<episode sample>#step<n>` (n from 0). */
export function agentStepSample(episode: string, step: number): string {
  return `${episode}#step${step}`;
}

/** The episode of an agent step's sample (the sample itself when it names no step). */
export function agentEpisodeOf(sample: string): string {
  return sample.replace(/#step\d+$/, '');
}
