// The follow-up experiments' eval phase (write-back, propagation, tools; pipeline/run/eval-phase-v1.ts): each unit runs
// its experiment's steps on a memory system (`<id>.jsonl`), then the summary from the stored records and the manifest.
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { formatFollowUpSummary, readRunHead, SUMMARY_VERSION } from '../../../analysis/index.js';
import type { ExploitScenario } from '../../../scenarios/exploit-scenario.js';
import type { Scenario } from '../../../scenarios/scenario.js';
import { createActionLayer } from '../grid/action-layer.js';
import { readSuiteRecords } from '../suite-units.js';
import { runEvalUnits } from '../eval-units.js';
import { axisChoiceOf } from '../../defences/axes/index.js';
import { writeJsonAtomic } from '../../run-log/json-files.js';
import { EXPERIMENTS } from '../../run/experiments.js';
import { accountFollowUp, followUpOutcome } from '../../run/run-accounting.js';
import {
  checkOwnArms,
  loadExploitScenarioSet,
  loadPolicyScenarioSet,
  loadReasoningScenarioSet,
} from '../../run/run-components.js';
import type { RunContext } from '../../run/run-context.js';
import { emptySummary, endingAsExit, type EvalPhase, type ExperimentOutcome } from '../../run/run-experiment.js';
import { GRID_ONLY, OWN_DECISION_PROMPTS } from '../grid/eval-phase.js';
import { isExploitScenario, type FollowUpSteps } from './experiment.js';
import { planFollowUp } from './follow-up-plan.js';
import { FOLLOW_UP_EXPERIMENTS } from './index.js';
import { createFollowUpSuite, type FollowUpSetup } from './suite.js';

/** Each scenario set an experiment line may name, by its `scenarioKind`. */
const SCENARIO_SETS = {
  policy: loadPolicyScenarioSet,
  exploit: loadExploitScenarioSet,
  'forged-reasoning': loadReasoningScenarioSet,
};

/** The steps of follow-up `experiment` (pipeline/suites/follow-ups/index.ts). */
function stepsOf(experiment: string): FollowUpSteps {
  if (!Object.hasOwn(FOLLOW_UP_EXPERIMENTS, experiment))
    throw new TypeError(`${experiment} is not a follow-up experiment`);
  return FOLLOW_UP_EXPERIMENTS[experiment as keyof typeof FOLLOW_UP_EXPERIMENTS];
}

/** Runs a follow-up experiment (write-back, propagation, tools), then writes its summary and the final manifest. */
async function runFollowUpExperiment(run: RunContext, followUp: FollowUpSteps): Promise<ExperimentOutcome> {
  const { spec, secrets, parts, manifest } = run;
  const { runId, runDir, exploit, exploitScenarios, scenarios, models, embedder, extraction, priceOf } = parts;
  const suite = createFollowUpSuite(followUp);
  const unitScenarios = exploit ? exploitScenarios : scenarios;
  const settings = { hops: spec.hops, toolSteps: spec.toolSteps };
  const args = suite.args.parse({
    scenarioIds: unitScenarios.map((scenario) => scenario.id),
    systems: spec.systems,
    modes: spec.modes,
    arms: spec.arms,
    models: models.map((model) => model.description.id),
    trials: spec.trials,
    k: spec.k,
    settings,
    axes: axisChoiceOf(spec),
    limit: spec.limit ?? null,
  });
  const units = [...suite.plan(args)];
  // The suite's setup: the run's models (budget, cache, breaker), its systems (loaded in its session), its stops.
  const setup = async (): Promise<FollowUpSetup> => ({
    runId,
    runDir,
    scenarios: new Map<string, Scenario | ExploitScenario>(unitScenarios.map((scenario) => [scenario.id, scenario])),
    models: new Map(models.map((model) => [model.description.id, model])),
    embedder,
    extraction,
    loadBackend: run.loadSystem,
    concurrency: spec.concurrency,
    // `--batch`: the units join the transport's round barrier (each round's calls in one job per chunk).
    rounds: parts.batch ?? null,
    k: spec.k,
    settings,
    actions: createActionLayer({
      scenarios,
      exploitScenarios: unitScenarios.filter(isExploitScenario),
      key: secrets.ledgerKey ?? null,
    }),
    stop: run.stops.signal,
    onBudget: run.stops.onBudget,
  });
  await runEvalUnits(run, suite, { units, setup, outcome: followUpOutcome });
  rmSync(join(runDir, 'work'), { recursive: true, force: true });
  const records = readSuiteRecords(suite, runDir);
  const account = accountFollowUp(units.length, records.values(), priceOf);
  // The summary first (from the stored records; the usage that the final manifest will hold), then the manifest's ending.
  const summary = {
    // An eval manifest records no command line; this summary reads the run's head (its manifest) only.
    ...suite.summarize([...records.values()], args, {
      startedAt: manifest.createdAt,
      command: 'pnpm eval',
      runtime: manifest.runtime,
      head: readRunHead(runDir),
    }),
    usage: account.usage,
  };
  writeJsonAtomic(join(runDir, 'summary.json'), { version: SUMMARY_VERSION, ...summary });
  const ending = run.finish(account);
  return {
    ...ending,
    runDir,
    summary: emptySummary(manifest.simulated),
    followUp: summary,
    table: [formatFollowUpSummary(summary), '', ...run.spendLines(account)].join('\n'),
  };
}

/** The follow-ups: their own arms and steps per unit, on the memory systems, as one process (no shards). */
export const followUpEvalPhase: EvalPhase = {
  specificationVersion: 'v1',
  id: 'follow-up',
  memorySystems: true,
  ownArms: true,
  refuses: { ...GRID_ONLY, ...OWN_DECISION_PROMPTS },
  axes: 'follow-up',
  specIdentity: (experiment, args) => ({ experiment, ...args }),
  runIdPrefix: (experiment) => `${experiment}_`,
  scenarios: (spec) => SCENARIO_SETS[EXPERIMENTS.get(spec.experiment).scenarioKind](spec),
  checkComponents: checkOwnArms,
  extraModels: () => [],
  components: () => [],
  plan: (input) => planFollowUp(input, stepsOf(input.spec.experiment)),
  run: (run) => runFollowUpExperiment(run, stepsOf(run.spec.experiment)),
  exitRule: endingAsExit,
};
