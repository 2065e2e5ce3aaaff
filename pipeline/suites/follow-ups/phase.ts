// The follow-up phase: for every unit of one experiment, a fresh namespace on a live system, the experiment's
// steps, one record appended to `<experiment>.jsonl`. Resumable: finished units are never repeated.
import { join } from 'node:path';
import type { BackendSettings, MemoryBackend, SeedMode } from '../../../backends/memory-backend.js';
import type { Embedder } from '../../../backends/embedder.js';
import type { ExtractionModel } from '../../../backends/extraction-model.js';
import type { ExploitScenario } from '../../../scenarios/exploit-scenario.js';
import type { Scenario } from '../../../scenarios/scenario.js';
import { createActionLayer } from '../grid/action-layer.js';
import type { DecisionModel } from '../../models/decision-model.js';
import {
  followUpUnitIdOf,
  type DecisionTrace,
  type FollowUpKey,
  type FollowUpRecord,
  type RecordedCall,
} from './follow-up-log.js';
import { followUpDefences, type UnitContext } from './follow-up-steps.js';
import { readJsonLines, sha256 } from '../../run-log/json-files.js';
import { openRunLogFile } from '../../run-log/run-log-chain.js';
import { RUN_LOG_VERSION } from '../../run-log/run-log.js';
import { BudgetExhaustedError } from '../../run/budget.js';
import type { BatchTransport } from '../../batch/batch-transport.js';
import { UnsupportedFeatureError } from '#core/errors.js';
import { UnitCancelledError } from '../../run/run-control.js';
import { runUnitLoop } from '../../run/unit-loop.js';
import type { EvalPhaseUnitsInput } from '../../run/eval-phase-v1.js';
import { isExploitScenario, type FollowUpSettings, type FollowUpSteps } from './experiment.js';
import { recordingModel } from '../../models/recording-model.js';
import { storageFailureIn } from '../../run/storage-failure.js';
import { followUpLimitSpace, limitFilter } from '../../run/unit-limit.js';
import { type AxisChoice, axesOf, axisCombinations, unitKeyAxes } from '../../defences/axes/index.js';

/** Inputs of the follow-up phase. */
export interface FollowUpPhaseInput extends EvalPhaseUnitsInput<FollowUpRecord> {
  experiment: FollowUpSteps;
  runId: string;
  /** Policy scenarios (write-back, propagation) or exploit scenarios (tools), in grid order. */
  scenarios: readonly (Scenario | ExploitScenario)[];
  /** Policy scenarios for the PoEM action layer's safety-step mapping. */
  policyScenarios: readonly Scenario[];
  systems: readonly string[];
  modes: readonly SeedMode[];
  arms: readonly string[];
  models: readonly DecisionModel[];
  trials: number;
  k: number;
  settings: FollowUpSettings;
  /** The defence axes' values (`--guard`, `--poem`, `--taint`; pipeline/defences/axes); an absent axis is off. */
  axes: AxisChoice;
  /** `--limit N`: only the N units the limit keeps (pipeline/run/unit-limit.ts); absent = all. */
  limit?: number | null;
  /**
   * `--batch`: the transport's round barrier. Every unit of a system then runs at once (not `concurrency` at a time)
   * and joins the barrier, so each round's decision calls go out together, one job per chunk.
   */
  rounds?: Pick<BatchTransport, 'join'> | null;
  embedder: Embedder;
  extraction: ExtractionModel;
  loadBackend: (id: string, settings: BackendSettings) => Promise<MemoryBackend>;
  ledgerKey?: Uint8Array | null;
}

/** What the phase did. */
export interface FollowUpPhaseResult {
  total: number;
  ran: number;
  skippedAsDone: number;
  errors: number;
  cancelled: boolean;
}

/** The records file of an experiment. */
function followUpRecordsPath(runDir: string, experiment: string): string {
  return join(runDir, `${experiment}.jsonl`);
}

/** Reads `<experiment>.jsonl`; the last record of a unit wins (a retried error is superseded). */
export function readFollowUpRecords(runDir: string, experiment: string): Map<string, FollowUpRecord> {
  return new Map(
    readJsonLines<FollowUpRecord>(followUpRecordsPath(runDir, experiment)).rows.map((row) => [row.unitId, row]),
  );
}

/** Units in loop order: mode → system → scenario → model → trial → the axes (guard → poem → taint) → arm. */
export function enumerateFollowUpUnits(
  input: Pick<
    FollowUpPhaseInput,
    'experiment' | 'modes' | 'systems' | 'scenarios' | 'models' | 'trials' | 'axes' | 'arms' | 'limit'
  >,
): FollowUpKey[] {
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

/** Runs every unit not already recorded, `concurrency` at a time per system, appending each record as it finishes. */
export async function runFollowUpPhase(input: FollowUpPhaseInput): Promise<FollowUpPhaseResult> {
  const { experiment } = input;
  const existing = readFollowUpRecords(input.runDir, experiment.id);
  const recordsLog = openRunLogFile(input.runDir, `${experiment.id}.jsonl`, input.redact);
  const keys = enumerateFollowUpUnits(input);
  const pending = keys.filter((key) => {
    const previous = existing.get(followUpUnitIdOf(key));
    return previous === undefined || (input.retryErrors && previous.status === 'error');
  });
  const scenarios = new Map(input.scenarios.map((s) => [s.id, s]));
  const models = new Map(input.models.map((m) => [m.description.id, m]));
  const exploitScenarios = input.scenarios.filter(isExploitScenario);
  const actions = createActionLayer({
    scenarios: input.policyScenarios,
    exploitScenarios,
    key: input.ledgerKey ?? null,
  });
  let done = keys.length - pending.length;
  input.onStart?.(keys.length, done);
  let ran = 0;
  let errors = 0;
  for (const system of input.systems) {
    const batch = pending.filter((key) => key.system === system);
    if (batch.length === 0 || input.signal?.aborted) continue;
    const backend = await input.loadBackend(system, {
      embedder: input.embedder,
      extraction: input.extraction,
      runId: input.runId,
      workDir: join(input.runDir, 'work', system),
    });
    const rounds = input.rounds ?? null;
    const independent = backend.description.independentNamespaces !== false;
    // Units that must run one at a time, each alone on the engine, cannot share a round: each call would be a job.
    if (rounds && !independent) {
      await backend.close();
      throw new UnsupportedFeatureError(
        system,
        `--batch with --experiment ${experiment.id}`,
        'its follow-up units run one at a time, each alone on the engine (its ranking statistics span namespaces), so every decision call would wait on a Batch API job of its own; run it without --batch',
      );
    }
    await backend.open();
    // A store whose ranking statistics span namespaces runs one unit at a time, each alone in the store; under
    // --batch every unit runs at once, so a round's calls are all queued before its jobs are sent.
    const concurrency = rounds ? Math.max(batch.length, 1) : independent ? input.concurrency : 1;
    // Every unit joins before any starts, so the barrier never sends a round before its last unit has queued; a unit
    // that never starts (the run stopped first) leaves once the loop is over.
    const leaves = new Map(rounds ? batch.map((key) => [key, once(rounds.join())] as const) : []);
    try {
      // The unit loop (pipeline/run/unit-loop.ts): a unit that throws (a full disk, a bug) ends the phase, and the
      // backend is closed only once the units already running have settled (they would otherwise fail on a closed store).
      await runUnitLoop({
        units: batch,
        concurrency,
        ...(input.signal ? { signal: input.signal } : {}),
        run: (key) => {
          // The unit's namespace lives from its first write to its reset: alone on the engine when rankings span namespaces.
          const work = () =>
            runUnit(experiment, key, backend, scenarios.get(key.scenario)!, models.get(key.model)!, input, actions);
          if (!rounds) return backend.exclusive ? backend.exclusive(work) : work();
          // Under --batch outside the engine's exclusive section (statistics per namespace, checked above): a unit
          // holding it while its call waits for the round would hold up every other unit of the round.
          return work().finally(leaves.get(key));
        },
        append: (record) => {
          recordsLog.append(record);
          ran += 1;
          done += 1;
          if (record.status === 'error') errors += 1;
          input.onUnit?.(record, { done, total: keys.length });
        },
      });
    } finally {
      for (const leave of leaves.values()) leave();
      await backend.close();
    }
  }
  return {
    total: keys.length,
    ran,
    skippedAsDone: keys.length - pending.length,
    errors,
    cancelled: input.signal?.aborted ?? false,
  };
}

async function runUnit(
  experiment: FollowUpSteps,
  key: FollowUpKey,
  backend: MemoryBackend,
  scenario: Scenario | ExploitScenario,
  model: DecisionModel,
  input: FollowUpPhaseInput,
  actions: ReturnType<typeof createActionLayer>,
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
    actions,
    k: input.k,
    defences: followUpDefences(key),
    journals: new Set(),
    ...((input.callSignal ?? input.signal) ? { signal: input.callSignal ?? input.signal } : {}),
  };
  const { result, done } = experiment.start(context, scenario, input.settings);
  try {
    await done;
    return { ...base, status: 'ok', finishedAt: new Date().toISOString(), ...result, calls } as FollowUpRecord;
  } catch (error) {
    // A full or read-only disk stops the run (it is no unit's error); a unit cut short by a stop (Ctrl+C, the
    // breaker, the budget) is not recorded: a resume runs it again.
    const disk = storageFailureIn(error);
    if (disk) throw disk;
    const budget = budgetErrorIn(error);
    if (budget) input.onBudget?.(budget);
    if (budget || input.signal?.aborted)
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

/** `leave` callable any number of times, leaving once. */
function once(leave: () => void): () => void {
  let left = false;
  return () => {
    if (left) return;
    left = true;
    leave();
  };
}
