// The follow-up experiment interface (types only): one file per experiment plus one line in ./index.ts.
import type { BackendDescription } from '../../backends/memory-backend.js';
import type { ExploitScenario } from '../../scenarios/exploit-scenario.js';
import type { Scenario } from '../../scenarios/scenario.js';
import type { FollowUpExperimentId, FollowUpKey, PropagationRecord, ToolsRecord, WritebackRecord } from '../follow-up-log.js';
import type { UnitContext } from '../follow-up-steps.js';

/** Settings every experiment reads from the run spec. */
export interface FollowUpSettings {
  /** Write-back hops after hop 0 (paper: 3). */
  hops: number;
  /** Model calls per tool episode at most (paper: 4). */
  toolSteps: number;
}

/** The part of a record an experiment fills in; the phase adds identity, status and timing. */
export type ExperimentResult<R> = Omit<R, 'version' | 'type' | 'unitId' | 'key' | 'status' | 'reason' | 'startedAt' | 'finishedAt' | 'error'>;

/** What the phase knows about each experiment. */
export interface FollowUpExperiment<R extends WritebackRecord | PropagationRecord | ToolsRecord = WritebackRecord | PropagationRecord | ToolsRecord> {
  id: FollowUpExperimentId;
  /** The record `type` written to `<id>.jsonl`. */
  recordType: R['type'];
  /** Arm ids in the paper's order (every one runs unless `--arms` narrows them). */
  arms: readonly string[];
  /** One line per arm, for `--help` and the manifest. */
  armDescriptions: Readonly<Record<string, string>>;
  /** Which scenario set the experiment runs on. */
  scenarioKind: 'policy' | 'exploit';
  /** Why this unit cannot run on this system (`n/a`), or null. Decided from the description only. */
  notApplicable(description: BackendDescription, key: FollowUpKey): string | null;
  /**
   * Runs one unit in its own namespace, filling `result` as it goes, so that a provider failure (thrown; the
   * phase records the error) leaves every finished step in the record.
   */
  run(context: UnitContext, scenario: R extends ToolsRecord ? ExploitScenario : Scenario, settings: FollowUpSettings, result: ExperimentResult<R>): Promise<void>;
  /** An empty result, for `n/a` and error records. */
  empty(): ExperimentResult<R>;
}
