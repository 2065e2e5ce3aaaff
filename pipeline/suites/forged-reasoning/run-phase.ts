// The forged-reasoning experiment inside `pnpm eval` (its eval phase, ./eval-phase.ts): its plan, and the phase with the
// run's control plane (progress, breaker, budget), its account read back from the stored records, then its summary
// and the final manifest.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { modelPlan, type PlanInput, type RunPlan } from '../../run/run-plan.js';
import { planForgedReasoning } from './plan.js';
import { formatForgedReasoningSummary, loadRun, summarizeForgedReasoningRun } from '../../../analysis/index.js';
import { writeJsonAtomic } from '../../run-log/json-files.js';
import type { RunContext } from '../../run/run-context.js';
import { emptySummary, type ExperimentOutcome } from '../../run/run-experiment.js';
import { accountForgedReasoning, forgedReasoningOutcome } from './accounting.js';
import { AGENTS } from './agents.js';
import { MUTATION_ENGINE } from './mutation-engine.js';
import { readForgedReasoningRecords, runForgedReasoningPhase } from './phase.js';

/** Runs forged-reasoning (poem.md §6) in its own in-process world, no memory system; writes its summary and manifest. */
export async function runForgedReasoningExperiment(run: RunContext): Promise<ExperimentOutcome> {
  const { spec, parts, control } = run;
  const { runDir, reasoningScenarios, models, attackerModel, priceOf } = parts;
  const attacker =
    spec.attackerModel === null
      ? null
      : spec.attackerModel === MUTATION_ENGINE || attackerModel === null
        ? { id: MUTATION_ENGINE }
        : { id: spec.attackerModel, model: attackerModel };
  const result = await runForgedReasoningPhase({
    runDir,
    scenarios: reasoningScenarios,
    models,
    defences: spec.arms,
    agent: await AGENTS.get(spec.agent ?? 'prompt').load(),
    forgeries: spec.forgeries,
    trials: spec.trials,
    concurrency: spec.concurrency,
    retryErrors: spec.retryErrors,
    attacker,
    maxQueries: spec.attackerQueries,
    ledgerKey: run.secrets.ledgerKey ?? null,
    ...run.stops,
    onStart: control.begin,
    onUnit: (record) => {
      control.unitFinished(forgedReasoningOutcome(record));
      run.logError(record.unitId, record.status, record.error?.message);
    },
  });
  const account = accountForgedReasoning(result.total, readForgedReasoningRecords(runDir).values(), priceOf);
  // The summary first (from the stored records only, as `pnpm rescore` would), then the manifest's ending.
  const summary = { ...summarizeForgedReasoningRun(loadRun(runDir)), usage: account.usage };
  writeJsonAtomic(join(runDir, 'summary.json'), summary);
  const ending = run.finish(account);
  return {
    ...ending,
    runDir,
    summary: emptySummary(run.manifest.simulated),
    table: [formatForgedReasoningSummary(summary), '', ...run.spendLines(account)].join('\n'),
  };
}

/** forged-reasoning's plan: exact prompts and cache hits for the trial units, a range for the attacker loops. */
export async function planForgedReasoningRun(input: PlanInput): Promise<RunPlan> {
  const { spec } = input;
  const attackerModel = input.attackerModel ?? null;
  const attacker =
    spec.attackerModel === null
      ? null
      : attackerModel
        ? { id: spec.attackerModel, model: attackerModel }
        : { id: MUTATION_ENGINE };
  const existing = existsSync(input.runDir) ? readForgedReasoningRecords(input.runDir) : new Map();
  const { rows, calls } = planForgedReasoning({
    scenarios: input.reasoningScenarios ?? [],
    models: input.models,
    defences: spec.arms,
    forgeries: spec.forgeries,
    trials: spec.trials,
    retryErrors: spec.retryErrors,
    attacker,
    maxQueries: spec.attackerQueries,
    agent: await AGENTS.get(spec.agent ?? 'prompt').load(),
    existing,
    cacheLookup: input.cacheLookup ?? (() => false),
  });
  const models = await Promise.all(
    [...input.models, ...(attackerModel ? [attackerModel] : [])].map(async (model) => {
      const entry = calls.get(model.description.id) ?? { min: 0, max: 0, cached: 0, prompts: [] };
      return modelPlan(input, model, entry.min - entry.cached, entry.max - entry.cached, entry.cached, entry.prompts);
    }),
  );
  const notes = [
    'forged-reasoning: trial-unit prompts are exact (the write-time screens are deterministic); attacker loops are a range (they stop at ten successes), their prompts estimated with one adaptive note',
  ];
  return {
    rows: rows.map((row) => ({ experiment: spec.experiment, system: 'in-process', mode: '-', ...row })),
    models,
    notes,
  };
}
