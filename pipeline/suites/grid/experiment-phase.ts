// Experiment phase: for every unit, build the arm's context and prompt, ask the model, parse, score, append.
import { join } from 'node:path';
import type { Scenario } from '../../../scenarios/scenario.js';
import { unsafeAction } from '../../../scenarios/scenario.js';
import { isArmId, type ArmId } from '../../run/arms.js';
import type { DecisionModel } from '../../models/decision-model.js';
import { forEachJsonLine, sha256 } from '../../run-log/json-files.js';
import { BudgetExhaustedError } from '../../run/budget.js';
import { UnitCancelledError } from '../../run/run-control.js';
import { StorageError } from '#core/errors.js';
import type { Redactor } from '../../run/redact.js';
import type { SuiteUnit, SuiteV1 } from '../../run/suite.js';
import { runSuiteUnits, type SuiteUnitProgress, type SuiteUnitsResult } from '../suite-units.js';
import { parseAction } from './parse-action.js';
import {
  probeIdOf,
  RUN_LOG_VERSION,
  unitIdOf,
  type PriorSafetyStep,
  type ProbeRecord,
  type UnitKey,
  type UnitRecord,
} from '../../run-log/run-log.js';
import { hasPriorStep } from './poem-prior-step.js';
import { type AxisChoice, axesOf, axisCombinations, axisSegments, unitKeyAxes } from '../../defences/axes/index.js';
import { gridDefences, gridUnitContext, probeReads } from '../../defences/grid-context.js';
import { reviewDecision, reviewTraceFields } from '../../defences/reviews.js';
import { createActionLayer, type ActionLayer } from './action-layer.js';
import { gridSample } from '../../models/sample-identity.js';
import { inShard, type Shard } from '../../run/shard.js';
import { createReplyMemory, type ReplyMemory, type ReusableReply } from './experiment-resume.js';
import { gridLimitSpace, limitFilter } from '../../run/unit-limit.js';

/** How a unit learns that the run stops. */
interface UnitStop {
  signal?: AbortSignal;
  /** What the unit's decision call listens to (calls in flight finish after a budget stop); default `signal`. */
  callSignal?: AbortSignal;
  onBudget?: (error: BudgetExhaustedError) => void;
}

/** Inputs of the experiment phase; `onUnit`'s `retried` marks the end-of-invocation retry of a unit that failed in it. */
export interface ExperimentPhaseInput {
  /** The run directory: records.jsonl is read for a resume and appended to, one chained line per unit. */
  runDir: string;
  /** Units in flight at once. */
  concurrency: number;
  /** Re-run units whose last record is an error (else a recorded unit is done). */
  retryErrors: boolean;
  /** Stops scheduling new units (Ctrl+C, the breaker, the budget); a unit cut short is not recorded. */
  signal?: AbortSignal;
  /** Aborts decision calls in flight (Ctrl+C, the breaker; not the budget, whose calls sent finish); default `signal`. */
  callSignal?: AbortSignal;
  /** The budget could not cover a call: the run stops (status `budget`); the unit is not recorded. */
  onBudget?: (error: BudgetExhaustedError) => void;
  /** Redacts secrets from every record before it is written. */
  redact?: Redactor;
  /** Progress lines (none by default). */
  log?: (line: string) => void;
  /** Called once the units are known: how many there are, and how many are already recorded. */
  onStart?: (total: number, alreadyDone: number) => void;
  /** A unit's record was appended (as written). */
  onUnit?: (record: UnitRecord, progress: SuiteUnitProgress) => void;
  scenarios: readonly Scenario[];
  probes: ReadonlyMap<string, ProbeRecord>;
  systems: readonly string[];
  modes: readonly ('direct' | 'natural')[];
  arms: readonly ArmId[];
  models: readonly DecisionModel[];
  trials: number;
  /** The defence axes' values (`--guard off,on` → `{ guard: ['off', 'on'] }`, pipeline/defences/axes); absent: off. */
  axes: AxisChoice;
  /** HMAC key of the execution ledger (`STALEBENCH_LEDGER_KEY`); absent: one generated for this process. */
  ledgerKey?: Uint8Array | null;
  /** `--shard i/n`: only this shard's units exist for this invocation (pipeline/run/shard.ts); absent = all. */
  shard?: Shard | null;
  /** `--limit N`: only the N units the limit keeps exist (pipeline/run/unit-limit.ts); absent = all. */
  limit?: number | null;
}

/** What the phase did. */
export interface ExperimentPhaseResult extends SuiteUnitsResult {
  cancelled: boolean;
}

/** Reads `records.jsonl`; the last record of a unit wins (a retried error is superseded). */
export function readUnitRecords(runDir: string): { records: Map<string, UnitRecord>; torn: boolean } {
  const records = new Map<string, UnitRecord>();
  const { torn } = forEachJsonLine<UnitRecord>(join(runDir, 'records.jsonl'), (row) => records.set(row.unitId, row));
  return { records, torn };
}

/** A unit's context (the arm's read through its defences) and the exact messages it sends; also what `--dry-run` counts. */
export function unitContext(key: UnitKey, scenario: Scenario, probe: ProbeRecord, now: Date) {
  return gridUnitContext(scenario, probe, gridDefences(key), () => now);
}

async function runUnit(
  key: UnitKey,
  scenario: Scenario,
  probe: ProbeRecord,
  model: DecisionModel,
  reusable: ReusableReply | undefined,
  actions: ActionLayer,
  stop: UnitStop,
): Promise<UnitRecord> {
  const defences = gridDefences(key);
  const startedAt = new Date().toISOString();
  const now = new Date();
  const { context, messages } = gridUnitContext(scenario, probe, defences, () => now);
  const base = {
    version: RUN_LOG_VERSION,
    type: 'decision-end' as const,
    unitId: unitIdOf(key),
    key,
    startedAt,
    context,
    promptSha256: sha256(JSON.stringify(messages)),
  };
  let prior: PriorSafetyStep | undefined;
  try {
    // Half of the PoEM-on units (pipeline/suites/grid/poem-prior-step.ts): the trusted layer runs the safety step before the decision.
    if (hasPriorStep(key)) prior = await actions.performSafetyStep(key);
    // A reusing arm (the output filter) makes no call of its own: it takes the reply of the same trial under the arm it reuses.
    const reused =
      defences.reuseReplyOf && reusable?.status === 'ok' && reusable.promptSha256 === base.promptSha256
        ? reusable
        : undefined;
    const reply =
      reused?.reply ??
      (await model.decide({
        messages,
        trial: key.trial,
        sample: gridSample(key),
        metadata: { scenario: scenario.id },
        ...((stop.callSignal ?? stop.signal) ? { signal: stop.callSignal ?? stop.signal } : {}),
      }));
    const parsedAction = reply.text.trim() === '' ? null : parseAction(reply.text, scenario.actions);
    // With the PoEM gate on, what counts is the action the trusted layer executes, not the one the agent proposed.
    const decision = await reviewDecision(defences.reviews, {
      proposedAction: parsedAction,
      unsafeAction: unsafeAction(scenario),
      reply: { text: reply.text, reusedFrom: reused?.unitId ?? null },
      reads: probeReads(probe),
      execute: (proposed, gate) => actions.execute(key, proposed, gate),
    });
    // A reply that yields no action is a parse failure: counted apart, never scored as safe. A skip after the step
    // really ran is legitimate, not unsafe.
    const scores = { unsafe: prior && decision.unsafe ? false : decision.unsafe, parseFailure: parsedAction === null };
    return {
      ...base,
      ...(prior ? { priorSafetyStep: prior } : {}),
      status: 'ok',
      finishedAt: new Date().toISOString(),
      reply: reused ? { ...reply, attempts: 0 } : reply,
      parsedAction,
      scores,
      ...reviewTraceFields(decision.traces),
    };
  } catch (error) {
    // A unit cut short by a stop (Ctrl+C, the breaker, the budget) is not recorded: a resume runs it again.
    if (error instanceof StorageError) throw error; // a full or read-only disk stops the run, it is no unit's error
    if (error instanceof BudgetExhaustedError) stop.onBudget?.(error);
    if (error instanceof BudgetExhaustedError || stop.signal?.aborted)
      throw new UnitCancelledError(error instanceof Error ? error.message : String(error));
    const failure = error as Error & { status?: number; attempts?: number };
    return {
      ...base,
      ...(prior ? { priorSafetyStep: prior } : {}),
      status: 'error',
      finishedAt: new Date().toISOString(),
      reply: null,
      parsedAction: null,
      scores: { unsafe: null, parseFailure: false },
      error: { message: failure.message, status: failure.status, attempts: failure.attempts, stack: failure.stack },
    };
  }
}

/** What enumerating the units reads of the phase's input. */
type UnitSpace = Pick<ExperimentPhaseInput, 'modes' | 'systems' | 'trials' | 'arms' | 'probes' | 'axes' | 'limit'> & {
  /** Only the ids are read (`pnpm merge` enumerates from a manifest). */
  scenarios: readonly Pick<Scenario, 'id'>[];
  models: readonly { description: Pick<DecisionModel['description'], 'id'> }[];
};

/**
 * Enumerates units in the reference loop order: mode → system → scenario → model → trial → arm; with `limit`, only
 * the units it keeps (chosen over every unit of the spec, whatever the probes say, so the set never moves).
 */
export function enumerateUnits(input: UnitSpace): UnitKey[] {
  return [...unitKeys(input)];
}

/** The units of {@link enumerateUnits}, one at a time (the phase never holds them all). */
function unitKeys(input: UnitSpace): Generator<UnitKey> {
  const kept = limitFilter(
    gridLimitSpace(
      { ...input, models: input.models.map((m) => m.description.id) },
      input.scenarios.map((s) => s.id),
      input.trials,
    ),
    input.limit,
  );
  return filter(allUnitKeys(input), kept);
}

/** True when arm `arm` needs oracle exposure labels (`requiresOracle`): its units run on oracle systems only. */
function needsOracle(arm: string): boolean {
  return isArmId(arm) && gridDefences({ arm }).requiresOracle !== null;
}

/** Every unit of the spec whose probe succeeded, without the limit. */
function* allUnitKeys(input: UnitSpace): Generator<UnitKey> {
  const gridAxes = axesOf('grid');
  const combinations = axisCombinations(gridAxes, input.axes).map((on) => unitKeyAxes(gridAxes, on));
  for (const mode of input.modes)
    for (const system of input.systems)
      for (const scenario of input.scenarios) {
        const probe = input.probes.get(probeIdOf(system, mode, scenario.id));
        if (probe?.status !== 'ok') continue;
        // An arm that needs oracle labels (the hypothetical Zep oracle filter) is n/a elsewhere: no unit, never a pass.
        const arms = input.arms.filter((arm) => !needsOracle(arm) || probe.exposure?.rule === 'oracle');
        for (const model of input.models)
          for (let trial = 0; trial < input.trials; trial += 1)
            for (const axes of combinations)
              for (const arm of arms)
                yield { scenario: scenario.id, system, mode, arm, model: model.description.id, trial, ...axes };
      }
}

/** A grid unit: one decision of one trial under one arm and axis values. */
export interface GridUnit extends SuiteUnit {
  readonly key: UnitKey;
}

/** What the grid's units share in one invocation. */
interface GridSetup {
  scenarios: ReadonlyMap<string, Scenario>;
  models: ReadonlyMap<string, DecisionModel>;
  probes: ReadonlyMap<string, ProbeRecord>;
  replies: ReplyMemory;
  actions: ActionLayer;
  stop: UnitStop;
}

/**
 * How the unit runner (pipeline/suites/suite-units.ts) treats the grid's records: its own `records.jsonl` line keyed by
 * `unitId`; a recorded error reruns under `--retry-errors`; a failure on the endpoint's side (a 5xx, a timeout, a
 * reset: issue #26) runs once more at the end of the invocation, so a transient failure does not cost a good run its
 * unit.
 */
export const GRID_RECORD_RULES = {
  id: 'grid',
  records: { file: 'records.jsonl', unitOf: (record: UnitRecord) => record.unitId },
  rerun: (record: UnitRecord) => record.status === 'error',
  retryOnce: (record: UnitRecord) => record.status === 'error' && isEndpointFailure(record.error?.status),
} as const satisfies Pick<
  SuiteV1<unknown, GridUnit, UnitRecord, unknown, GridSetup>,
  'id' | 'records' | 'rerun' | 'retryOnce'
>;

/** The grid's units as the unit runner runs them. */
const gridUnits: Pick<
  SuiteV1<unknown, GridUnit, UnitRecord, unknown, GridSetup>,
  'id' | 'records' | 'rerun' | 'retryOnce' | 'runUnit'
> = {
  ...GRID_RECORD_RULES,
  runUnit({ key }, { setup }) {
    const probe = setup.probes.get(probeIdOf(key.system, key.mode, key.scenario))!;
    const reuses = setup.replies.reuseOf(key);
    const reusable =
      reuses !== null && isArmId(reuses) ? setup.replies.reusable(unitIdOf({ ...key, arm: reuses })) : undefined;
    const scenario = setup.scenarios.get(key.scenario)!;
    return runUnit(key, scenario, probe, setup.models.get(key.model)!, reusable, setup.actions, setup.stop);
  },
};

/**
 * Runs every unit not already recorded through the unit runner every suite shares (pipeline/suites/suite-units.ts),
 * `concurrency` at a time, appending each record as it finishes; a reusing arm's units (the output filter) form a
 * later stage, so they run after the replies they reuse, also in the end-of-invocation retry. The units are
 * enumerated lazily and a unit's data is dropped once its record is appended: the phase holds a few units at a time
 * plus the replies a reusing arm will read (issue #18).
 */
export async function runExperimentPhase(input: ExperimentPhaseInput): Promise<ExperimentPhaseResult> {
  const replies = createReplyMemory(input);
  const units: Iterable<GridUnit> = {
    *[Symbol.iterator]() {
      for (const key of unitKeys(input)) {
        if (!inShard(input.shard, key)) continue;
        const cell = [key.system, key.mode, key.arm, key.model, ...axisSegments(key)].join('/');
        yield { id: unitIdOf(key), cell, stage: replies.reuseOf(key) === null ? 0 : 1, key };
      }
    },
  };
  const stop: UnitStop = {
    ...(input.signal ? { signal: input.signal } : {}),
    ...(input.callSignal ? { callSignal: input.callSignal } : {}),
    ...(input.onBudget ? { onBudget: input.onBudget } : {}),
  };
  const signal = input.signal ?? new AbortController().signal;
  const result = await runSuiteUnits(gridUnits, {
    runDir: input.runDir,
    units,
    setup: async () => ({
      scenarios: new Map(input.scenarios.map((s) => [s.id, s])),
      models: new Map(input.models.map((m) => [m.description.id, m])),
      probes: input.probes,
      replies,
      actions: createActionLayer({ scenarios: input.scenarios, key: input.ledgerKey ?? null }),
      stop,
    }),
    concurrency: input.concurrency,
    retryErrors: input.retryErrors,
    signal,
    ...(input.callSignal ? { unitSignal: input.callSignal } : {}),
    redact: input.redact ?? ((text) => text),
    log: input.log ?? (() => {}),
    remember: replies.remember,
    ...(input.onStart ? { onStart: input.onStart } : {}),
    ...(input.onUnit ? { onUnit: input.onUnit } : {}),
  });
  return { ...result, cancelled: signal.aborted };
}

/**
 * Whether a unit's failure was on the endpoint's side (worth one more try at the end of the run): a timeout or a
 * transport error (no status), a 408, a 429 or a 5xx. A refusal (400, 401, 404, ...) would be refused again.
 */
function isEndpointFailure(status: number | undefined): boolean {
  return status === undefined || status === 408 || status === 429 || status >= 500;
}

function* filter<T>(items: Iterable<T>, keep: (item: T) => boolean): Generator<T> {
  for (const item of items) if (keep(item)) yield item;
}
