// The forged-reasoning experiment inside `pnpm eval` (pipeline/run/run.ts): the phase with the run's control plane
// (progress, breaker, budget), its account read back from the stored records, then its summary and the final manifest.
import { join } from 'node:path';
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
