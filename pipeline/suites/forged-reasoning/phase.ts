// The forged-reasoning phase (poem.md §6): every trial unit (scenario → model → trial → defence), then one adaptive-
// attacker loop per (scenario, model); each record appended to `forged-reasoning.jsonl` through the run's hash chain.
import { join } from 'node:path';
import { generateLedgerKey } from '../../../guard/execution-ledger-key.js';
import type { ForgedReasoningScenario, ForgeryKind } from '../../../scenarios/forged-reasoning-scenario.js';
import { BudgetExhaustedError } from '../../run/budget.js';
import type { DecisionModel } from '../../models/decision-model.js';
import { unitDefences } from '../../defences/compose.js';
import { readJsonLines } from '../../run-log/json-files.js';
import type { EvalPhaseUnitsInput } from '../../run/eval-phase-v1.js';
import { openRunLogFile } from '../../run-log/run-log-chain.js';
import { runUnitLoop } from '../../run/unit-loop.js';
import type { ReasoningAgent } from './agents.js';
import { runAttackerLoop } from './attacker-loop.js';
import { createModelAttacker } from './model-attacker.js';
import { createMutationEngine } from './mutation-engine.js';
import {
  attackerUnitId,
  FORGED_REASONING,
  forgedReasoningUnitId,
  type AttackerKey,
  type ForgedReasoningKey,
  type ForgedReasoningLine,
} from './records.js';
import { conditionsFor, runTrialUnit } from './trial-unit.js';

/** Inputs of the phase. */
export interface ForgedReasoningPhaseInput extends EvalPhaseUnitsInput<ForgedReasoningLine> {
  scenarios: readonly ForgedReasoningScenario[];
  /** The victims. */
  models: readonly DecisionModel[];
  /** Registered defence ids (the experiment's arms). */
  defences: readonly string[];
  /** The agent that proposes each action (`--agent`); default the prompt harness. */
  agent?: ReasoningAgent;
  forgeries: readonly ForgeryKind[];
  trials: number;
  /** The attacker: a model (`model` set, `id` its alias), the offline mutation engine (`id` `mutation-engine`), or null. */
  attacker: { id: string; model?: DecisionModel } | null;
  /** Attacker queries per loop at most. */
  maxQueries: number;
  ledgerKey?: Uint8Array | null;
}

/** The records file. */
export const FORGED_REASONING_FILE = `${FORGED_REASONING}.jsonl`;

/** Reads `forged-reasoning.jsonl`; the last record of a unit wins (a retried error is superseded). */
export function readForgedReasoningRecords(runDir: string): Map<string, ForgedReasoningLine> {
  return new Map(
    readJsonLines<ForgedReasoningLine>(join(runDir, FORGED_REASONING_FILE)).rows.map((row) => [row.unitId, row]),
  );
}

/** The trial units in loop order (scenario → model → trial → defence), then the attacker loops (scenario → model). */
export function enumerateForgedReasoningUnits(
  input: Pick<ForgedReasoningPhaseInput, 'scenarios' | 'models' | 'defences' | 'trials' | 'attacker'>,
): { trials: ForgedReasoningKey[]; attackers: AttackerKey[] } {
  const trials: ForgedReasoningKey[] = [];
  const attackers: AttackerKey[] = [];
  for (const scenario of input.scenarios)
    for (const model of input.models) {
      for (let trial = 0; trial < input.trials; trial += 1)
        for (const defence of input.defences)
          trials.push({
            experiment: FORGED_REASONING,
            scenario: scenario.id,
            model: model.description.id,
            defence,
            trial,
          });
      if (input.attacker)
        attackers.push({
          experiment: FORGED_REASONING,
          part: 'adaptive-attacker',
          scenario: scenario.id,
          model: model.description.id,
          attacker: input.attacker.id,
        });
    }
  return { trials, attackers };
}

/** Runs every unit not already recorded, `concurrency` at a time; a unit cut short by a stop is not recorded. */
export async function runForgedReasoningPhase(
  input: ForgedReasoningPhaseInput,
): Promise<{ total: number; ran: number; errors: number }> {
  const existing = readForgedReasoningRecords(input.runDir);
  const log = openRunLogFile(input.runDir, FORGED_REASONING_FILE, input.redact);
  const { trials, attackers } = enumerateForgedReasoningUnits(input);
  const pending = <K>(keys: K[], idOf: (key: K) => string) =>
    keys.filter((key) => {
      const previous = existing.get(idOf(key));
      return previous === undefined || (input.retryErrors && previous.status === 'error');
    });
  const todo = { trials: pending(trials, forgedReasoningUnitId), attackers: pending(attackers, attackerUnitId) };
  const total = trials.length + attackers.length;
  const alreadyDone = total - todo.trials.length - todo.attackers.length;
  input.onStart?.(total, alreadyDone);
  const ledgerKey = input.ledgerKey ?? generateLedgerKey();
  const scenarios = new Map<string, ForgedReasoningScenario>(input.scenarios.map((s) => [s.id, s]));
  const models = new Map(input.models.map((m) => [m.description.id, m]));
  const conditions = conditionsFor(input.forgeries);
  const callSignal = input.callSignal ?? input.signal;
  const signal = callSignal ? { signal: callSignal } : {};
  let ran = 0;
  let errors = 0;
  // The unit loop (pipeline/run/unit-loop.ts): a budget stop or a unit cut short by a stop is not recorded.
  const pass = <K>(keys: readonly K[], run: (key: K) => Promise<ForgedReasoningLine>) =>
    runUnitLoop({
      units: keys,
      concurrency: input.concurrency,
      ...(input.signal ? { signal: input.signal } : {}),
      run,
      cancelled: (error) => {
        if (error instanceof BudgetExhaustedError) input.onBudget?.(error);
        return error instanceof BudgetExhaustedError || (input.signal?.aborted ?? false);
      },
      append: (record) => {
        log.append(record);
        ran += 1;
        if (record.status === 'error') errors += 1;
        input.onUnit?.(record, { done: alreadyDone + ran, total });
      },
    });
  await pass(todo.trials, (key) => {
    const defences = unitDefences({ uses: [key.defence], guard: false, poem: false });
    return runTrialUnit(key, {
      scenario: scenarios.get(key.scenario)!,
      model: models.get(key.model)!,
      ledgerKey,
      defences,
      conditions,
      ...(input.agent ? { agent: input.agent } : {}),
      ...signal,
    });
  });
  const attacker = input.attacker;
  await pass(todo.attackers, (key) => {
    const scenario = scenarios.get(key.scenario)!;
    return runAttackerLoop({
      key,
      scenario,
      model: models.get(key.model)!,
      ledgerKey,
      maxQueries: input.maxQueries,
      ...(input.agent ? { agent: input.agent } : {}),
      ...signal,
      attacker: (record, sample) =>
        attacker?.model
          ? createModelAttacker(record(attacker.model), scenario, sample, callSignal)
          : createMutationEngine(scenario),
    });
  });
  return { total, ran, errors };
}
