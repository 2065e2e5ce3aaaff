// The units of a follow-up experiment (its suite, ./suite.ts, runs them): each in a fresh namespace on a live system,
// the experiment's steps, one record for `<experiment>.jsonl`.
import type { MemoryBackend, SeedMode } from '../../../backends/memory-backend.js';
import type { ExploitScenario } from '../../../scenarios/exploit-scenario.js';
import type { Scenario } from '../../../scenarios/scenario.js';
import type { createActionLayer } from '../grid/action-layer.js';
import type { DecisionModel } from '../../models/decision-model.js';
import {
  followUpUnitIdOf,
  type DecisionTrace,
  type FollowUpKey,
  type FollowUpRecord,
  type RecordedCall,
} from './follow-up-log.js';
import { followUpDefences, type UnitContext } from './follow-up-steps.js';
import { sha256 } from '../../run-log/json-files.js';
import type { SuiteRecordsV1 } from '../../run/suite.js';
import { readSuiteRecords } from '../suite-units.js';
import { RUN_LOG_VERSION } from '../../run-log/run-log.js';
import { BudgetExhaustedError } from '../../run/budget.js';
import { UnitCancelledError } from '../../run/run-control.js';
import type { FollowUpSettings, FollowUpSteps } from './experiment.js';
import { recordingModel } from '../../models/recording-model.js';
import { storageFailureIn } from '../../run/storage-failure.js';
import { followUpLimitSpace, limitFilter } from '../../run/unit-limit.js';
import { type AxisChoice, axesOf, axisCombinations, unitKeyAxes } from '../../defences/axes/index.js';

/** What every unit of a follow-up run reads besides its key, scenario, model and system. */
export interface FollowUpUnitServices {
  k: number;
  settings: FollowUpSettings;
  /** The PoEM action layer (safety-step mapping, ledger). */
  actions: ReturnType<typeof createActionLayer>;
  /** The run's stop (Ctrl+C, the breaker, the budget): a unit that fails once it is aborted is cut short, not recorded. */
  stop: AbortSignal;
  /** The budget could not cover a call: the run stops; the unit is not recorded. */
  onBudget?: (error: BudgetExhaustedError) => void;
}

/** The records of a follow-up experiment: `<id>.jsonl`, each record carrying its unit id. */
export function followUpRecords(experiment: string): SuiteRecordsV1<FollowUpRecord> {
  return { file: `${experiment}.jsonl`, unitOf: (record) => record.unitId };
}

/** Reads `<experiment>.jsonl`; the last record of a unit wins (a retried error is superseded). */
export function readFollowUpRecords(runDir: string, experiment: string): Map<string, FollowUpRecord> {
  return readSuiteRecords({ records: followUpRecords(experiment) }, runDir);
}

/** Units in loop order: mode → system → scenario → model → trial → the axes (guard → poem → taint) → arm. */
export function enumerateFollowUpUnits(input: {
  experiment: Pick<FollowUpSteps, 'id'>;
  modes: readonly SeedMode[];
  systems: readonly string[];
  /** In grid order. */
  scenarios: readonly { id: string }[];
  models: readonly { description: { id: string } }[];
  trials: number;
  /** The defence axes' values (`--guard`, `--poem`, `--taint`; pipeline/defences/axes); an absent axis is off. */
  axes: AxisChoice;
  arms: readonly string[];
  /** `--limit N`: only the N units the limit keeps (pipeline/run/unit-limit.ts); absent = all. */
  limit?: number | null;
}): FollowUpKey[] {
  const kept = limitFilter(
    followUpLimitSpace(
      { ...input, models: input.models.map((m) => m.description.id) },
      input.scenarios.map((s) => s.id),
      input.trials,
    ),
    input.limit,
  );
  const followUpAxes = axesOf('follow-up');
  // An axis added after a run was recorded stays out of its keys when off (unit ids and records unchanged).
  const combinations = axisCombinations(followUpAxes, input.axes).map((on) => unitKeyAxes(followUpAxes, on));
  const keys: FollowUpKey[] = [];
  for (const mode of input.modes)
    for (const system of input.systems)
      for (const scenario of input.scenarios)
        for (const model of input.models)
          for (let trial = 0; trial < input.trials; trial += 1)
            for (const axes of combinations)
              for (const arm of input.arms)
                keys.push({
                  experiment: input.experiment.id,
                  scenario: scenario.id,
                  system,
                  mode,
                  arm,
                  model: model.description.id,
                  trial,
                  ...axes,
                });
  return keys.filter(kept);
}

/** The namespace of one unit: its own, so units never see each other's writes. */
function namespaceOf(key: FollowUpKey): string {
  return `${key.experiment}-${key.scenario}-${sha256(followUpUnitIdOf(key)).slice(0, 12)}`;
}

/**
 * Runs one unit on `backend` (opened by its suite) in the unit's own namespace, reset afterwards. A step that fails is
 * the record's error; a full disk, and a unit cut short by a stop (the budget, `services.stop`), throw instead.
 */
export async function runFollowUpUnit(
  experiment: FollowUpSteps,
  key: FollowUpKey,
  backend: MemoryBackend,
  scenario: Scenario | ExploitScenario,
  model: DecisionModel,
  services: FollowUpUnitServices,
  signal: AbortSignal,
): Promise<FollowUpRecord> {
  const startedAt = new Date().toISOString();
  const base = { version: RUN_LOG_VERSION, type: experiment.recordType, unitId: followUpUnitIdOf(key), key, startedAt };
  const reason = experiment.notApplicable(backend.description, key);
  if (reason !== null)
    return {
      ...base,
      status: 'not-applicable',
      reason,
      finishedAt: startedAt,
      ...experiment.empty(),
    } as FollowUpRecord;
  // Every call of the unit is recorded (tool-agent steps keep only their text), for calls, tokens and spend.
  const calls: RecordedCall[] = [];
  const recording = recordingModel(model, calls);
  const context: UnitContext = {
    key,
    backend,
    namespace: namespaceOf(key),
    model: recording,
    actions: services.actions,
    k: services.k,
    defences: followUpDefences(key),
    journals: new Set(),
    signal,
  };
  const { result, done } = experiment.start(context, scenario, services.settings);
  try {
    await done;
    return { ...base, status: 'ok', finishedAt: new Date().toISOString(), ...result, calls } as FollowUpRecord;
  } catch (error) {
    // A full or read-only disk stops the run (it is no unit's error); a unit cut short by a stop (Ctrl+C, the
    // breaker, the budget) is not recorded: a resume runs it again.
    const disk = storageFailureIn(error);
    if (disk) throw disk;
    const budget = budgetErrorIn(error);
    if (budget) services.onBudget?.(budget);
    if (budget || services.stop.aborted)
      throw new UnitCancelledError(error instanceof Error ? error.message : String(error));
    const failure = error as Error & { trace?: DecisionTrace };
    return {
      ...base,
      status: 'error',
      finishedAt: new Date().toISOString(),
      ...result,
      ...(failure.trace ? { failedStep: failure.trace } : {}),
      calls,
      error: { message: failure.message, ...(failure.stack ? { stack: failure.stack } : {}) },
    } as FollowUpRecord;
  } finally {
    await backend.reset(context.namespace).catch(() => undefined);
  }
}

/** The budget error behind a failed step (decision steps wrap provider errors with the trace), if any. */
function budgetErrorIn(error: unknown): BudgetExhaustedError | null {
  for (
    let current = error, depth = 0;
    current && depth < 5;
    current = (current as { cause?: unknown }).cause, depth += 1
  ) {
    if (current instanceof BudgetExhaustedError) return current;
  }
  return null;
}
