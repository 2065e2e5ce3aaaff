// The forged-reasoning experiment inside `pnpm eval` (pipeline/run.ts): the phase with the run's control plane
// (progress, breaker, budget), then its account read back from the stored records.
import type { ForgedReasoningScenario } from '../../scenarios/forged-reasoning-scenario.js';
import type { BudgetExhaustedError } from '../budget.js';
import type { DecisionModel } from '../decision-model.js';
import type { Redactor } from '../redact.js';
import type { RunAccount } from '../run-accounting.js';
import type { UnitOutcome } from '../run-control.js';
import type { RunSpec } from '../run-spec.js';
import { accountForgedReasoning, forgedReasoningOutcome } from './accounting.js';
import { MUTATION_ENGINE } from './mutation-engine.js';
import { readForgedReasoningRecords, runForgedReasoningPhase } from './phase.js';

/** What the phase needs from the run. */
export interface StandalonePhaseInput {
  spec: RunSpec;
  runDir: string;
  scenarios: readonly ForgedReasoningScenario[];
  /** The victims. */
  models: readonly DecisionModel[];
  /** `--attacker-model <alias>` as a model, else null (the mutation engine, or no attacker when the spec says off). */
  attackerModel: DecisionModel | null;
  ledgerKey: Uint8Array | null;
  priceOf: (model: string) => { input: number; output: number } | null;
  control: { begin(total: number, alreadyDone: number): void; unitFinished(outcome: UnitOutcome): void };
  signal?: AbortSignal;
  onBudget?: (error: BudgetExhaustedError) => void;
  redact?: Redactor;
  logError: (unitId: string, status: string, message: string | undefined) => void;
}

/** Runs the phase and accounts every recorded unit. */
export async function runStandalonePhase(input: StandalonePhaseInput): Promise<{ account: RunAccount }> {
  const { spec } = input;
  const attacker = spec.attackerModel === null ? null : spec.attackerModel === MUTATION_ENGINE || input.attackerModel === null ? { id: MUTATION_ENGINE } : { id: spec.attackerModel, model: input.attackerModel };
  const result = await runForgedReasoningPhase({
    runDir: input.runDir,
    scenarios: input.scenarios,
    models: input.models,
    defences: spec.arms,
    forgeries: spec.forgeries,
    trials: spec.trials,
    concurrency: spec.concurrency,
    retryErrors: spec.retryErrors,
    attacker,
    maxQueries: spec.attackerQueries,
    ledgerKey: input.ledgerKey,
    ...(input.signal ? { signal: input.signal } : {}),
    ...(input.onBudget ? { onBudget: input.onBudget } : {}),
    ...(input.redact ? { redact: input.redact } : {}),
    onStart: (total, done) => input.control.begin(total, done),
    onUnit: (record) => {
      input.control.unitFinished(forgedReasoningOutcome(record));
      input.logError(record.unitId, record.status, record.error?.message);
    },
  });
  return { account: accountForgedReasoning(result.total, readForgedReasoningRecords(input.runDir).values(), input.priceOf) };
}
