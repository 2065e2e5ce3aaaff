// The forged-reasoning experiment inside `pnpm eval` (its eval phase, ./eval-phase.ts): its plan, and its suite's units
// (./suite.ts) run with the run's models and control plane (progress, breaker, budget), its account read back from the
// stored records, then its summary and the final manifest.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { modelPlan, type PlanInput, type RunPlan } from '../../run/run-plan.js';
import { planForgedReasoning } from './plan.js';
import { formatForgedReasoningSummary } from '../../../analysis/index.js';
import { generateLedgerKey } from '../../../guard/execution-ledger-key.js';
import { writeJsonAtomic } from '../../run-log/json-files.js';
import type { RunContext } from '../../run/run-context.js';
import { emptySummary, type ExperimentOutcome } from '../../run/run-experiment.js';
import { accountForgedReasoning, forgedReasoningOutcome } from './accounting.js';
import { AGENTS } from './agents.js';
import { MUTATION_ENGINE } from './mutation-engine.js';
import { runEvalUnits } from '../eval-units.js';
import { readForgedReasoningRecords } from './records.js';
import { type ForgedReasoningArgs, type ForgedReasoningSetup, forgedReasoningSuite } from './suite.js';
import { conditionsFor } from './trial-unit.js';

/** The suite's arguments for a run: its spec, with the scenario set and the models the run loaded. */
function forgedReasoningArgs(run: RunContext): ForgedReasoningArgs {
  const { spec, parts } = run;
  return forgedReasoningSuite.args.parse({
    scenarios: spec.scenarios,
    scenarioIds: parts.reasoningScenarios.map((scenario) => scenario.id),
    models: run.manifest.models,
    arms: spec.arms,
    forgeries: spec.forgeries,
    trials: spec.trials,
    attacker: spec.attackerModel,
    attackerQueries: spec.attackerQueries,
    agent: spec.agent ?? 'prompt',
  });
}

/** Runs forged-reasoning (poem.md §6) in its own in-process world, no memory system; writes its summary and manifest. */
export async function runForgedReasoningExperiment(run: RunContext): Promise<ExperimentOutcome> {
  const { parts } = run;
  const { runDir, reasoningScenarios, models, attackerModel, priceOf } = parts;
  const args = forgedReasoningArgs(run);
  const units = [...forgedReasoningSuite.plan(args)];
  // The suite's setup: the run's models (their budget, cache and breaker), its agent and its ledger key.
  const setup = async (): Promise<ForgedReasoningSetup> => ({
    scenarios: new Map(reasoningScenarios.map((scenario) => [scenario.id, scenario])),
    models: new Map(models.map((model) => [model.description.id, model])),
    agent: await AGENTS.get(args.agent).load(),
    ledgerKey: run.secrets.ledgerKey ?? generateLedgerKey(),
    attacker:
      args.attacker === null
        ? null
        : args.attacker === MUTATION_ENGINE || attackerModel === null
          ? { id: MUTATION_ENGINE }
          : { id: args.attacker, model: attackerModel },
    conditions: conditionsFor(args.forgeries),
    maxQueries: args.attackerQueries,
  });
  await runEvalUnits(run, forgedReasoningSuite, { units, setup, outcome: forgedReasoningOutcome });
  const records = readForgedReasoningRecords(runDir);
  const account = accountForgedReasoning(units.length, records.values(), priceOf);
  // The summary first (from the stored records only, as `pnpm rescore` would), then the manifest's ending.
  const summary = {
    // An eval manifest records no command line; this summary reads none of the run info.
    ...forgedReasoningSuite.summarize([...records.values()], args, {
      startedAt: run.manifest.createdAt,
      command: 'pnpm eval',
      runtime: run.manifest.runtime,
    }),
    usage: account.usage,
  };
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
