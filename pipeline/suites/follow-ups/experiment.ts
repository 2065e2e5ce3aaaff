// The follow-up experiment interface (types only, plus the binder that erases a record type): one file per experiment,
// its line in ./experiment-lines.ts (registered in pipeline/run/experiments.ts) and one binding line in ./index.ts.
import type { BackendDescription } from '../../../backends/memory-backend.js';
import type { ExploitScenario } from '../../../scenarios/exploit-scenario.js';
import type { Scenario } from '../../../scenarios/scenario.js';
import type {
  FollowUpExperimentId,
  FollowUpKey,
  FollowUpRecord,
  PropagationRecord,
  ToolsRecord,
  WritebackRecord,
} from './follow-up-log.js';
import type { UnitContext } from './follow-up-steps.js';

/** Settings every experiment reads from the run spec. */
export interface FollowUpSettings {
  /** Write-back hops after hop 0 (paper: 3). */
  hops: number;
  /** Model calls per tool episode at most (paper: 4). */
  toolSteps: number;
}

/** The part of a record an experiment fills in; the phase adds identity, status and timing. */
export type ExperimentResult<R> = Omit<
  R,
  'version' | 'type' | 'unitId' | 'key' | 'status' | 'reason' | 'startedAt' | 'finishedAt' | 'error'
>;

/** The steps of one experiment, typed by its record `R` and its scenario set `S`. */
export interface FollowUpExperiment<
  R extends WritebackRecord | PropagationRecord | ToolsRecord,
  S extends Scenario | ExploitScenario,
> {
  /** The experiment id: its declaration line in pipeline/run/experiments.ts. */
  id: FollowUpExperimentId;
  /** The record `type` written to `<id>.jsonl`. */
  recordType: R['type'];
  /** Why this unit cannot run on this system (`n/a`), or null. Decided from the description only. */
  notApplicable(description: BackendDescription, key: FollowUpKey): string | null;
  /**
   * Runs one unit in its own namespace, filling `result` as it goes, so that a provider failure (thrown; the
   * phase records the error) leaves every finished step in the record.
   */
  run(context: UnitContext, scenario: S, settings: FollowUpSettings, result: ExperimentResult<R>): Promise<void>;
  /** Decision calls one unit of `arm` makes, as a range (later calls depend on the replies): what the plan counts. */
  calls(settings: FollowUpSettings, arm: string): { min: number; max: number };
  /** An empty result, for `n/a` and error records. */
  empty(): ExperimentResult<R>;
}

/** A unit under way: the result that fills as steps finish, and the steps' promise. */
export interface StartedUnit {
  result: Partial<ExperimentResult<FollowUpRecord>>;
  done: Promise<void>;
}

/** An experiment as the phase holds it: its record type erased behind `start`, its scenario checked at the edge. */
export interface FollowUpSteps {
  /** The experiment id (`<id>.jsonl`). */
  id: FollowUpExperimentId;
  /** The record `type` of its records. */
  recordType: FollowUpRecord['type'];
  /** Why this unit cannot run on this system (`n/a`), or null. */
  notApplicable(description: BackendDescription, key: FollowUpKey): string | null;
  /** Decision calls one unit of `arm` makes, as a range (later calls depend on the replies). */
  calls(settings: FollowUpSettings, arm: string): { min: number; max: number };
  /** An empty result, for `n/a` records. */
  empty(): Partial<ExperimentResult<FollowUpRecord>>;
  /** Starts one unit; a scenario of the wrong set fails the unit (`done` rejects), never runs it. */
  start(context: UnitContext, scenario: Scenario | ExploitScenario, settings: FollowUpSettings): StartedUnit;
}

/** A policy scenario (it has actions), as opposed to an exploit scenario. */
export const isPolicyScenario = (scenario: Scenario | ExploitScenario): scenario is Scenario => 'actions' in scenario;

/** An exploit scenario (a tool-use task, no actions). */
export const isExploitScenario = (scenario: Scenario | ExploitScenario): scenario is ExploitScenario =>
  !('actions' in scenario);

/**
 * Binds an experiment's typed steps into the phase's erased form, with the guard that picks its scenario set.
 *
 * @example export const FOLLOW_UP_EXPERIMENTS = { writeback: followUpSteps(writebackExperiment, isPolicyScenario), ... };
 */
export function followUpSteps<
  R extends WritebackRecord | PropagationRecord | ToolsRecord,
  S extends Scenario | ExploitScenario,
>(
  experiment: FollowUpExperiment<R, S>,
  isScenario: (scenario: Scenario | ExploitScenario) => scenario is S,
): FollowUpSteps {
  return {
    id: experiment.id,
    recordType: experiment.recordType,
    notApplicable: (description, key) => experiment.notApplicable(description, key),
    calls: (settings, arm) => experiment.calls(settings, arm),
    empty: () => experiment.empty(),
    start(context, scenario, settings) {
      const result = experiment.empty();
      const done = isScenario(scenario)
        ? experiment.run(context, scenario, settings, result)
        : Promise.reject(
            new Error(`${experiment.id}: scenario ${scenario.id} is not of this experiment's scenario set`),
          );
      return { result, done };
    },
  };
}
