// The follow-up experiments' eval phase (write-back, propagation, tools; pipeline/run/eval-phase-v1.ts): each unit runs
// its experiment's steps on a memory system (`<id>.jsonl`), then the summary from the stored records and the manifest.
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { formatFollowUpSummary, loadRun, SUMMARY_VERSION, summarizeFollowUpRun } from '../../../analysis/index.js';
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
import type { FollowUpSteps } from './experiment.js';
import { planFollowUp } from './follow-up-plan.js';
import { FOLLOW_UP_EXPERIMENTS } from './index.js';
import { readFollowUpRecords, runFollowUpPhase } from './phase.js';

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
  const { spec, secrets, parts, control, manifest } = run;
  const { runId, runDir, exploit, exploitScenarios, scenarios, models, embedder, extraction, priceOf } = parts;
  const result = await runFollowUpPhase({
    experiment: followUp,
    runId,
    runDir,
    scenarios: exploit ? exploitScenarios : scenarios,
    policyScenarios: scenarios,
    systems: spec.systems,
    modes: spec.modes,
    arms: spec.arms,
    models,
    trials: spec.trials,
    k: spec.k,
    settings: { hops: spec.hops, toolSteps: spec.toolSteps },
    axes: axisChoiceOf(spec),
    limit: spec.limit ?? null,
    concurrency: spec.concurrency,
    // `--batch`: the units join the transport's round barrier (each round's calls in one job per chunk).
    rounds: parts.batch,
    retryErrors: spec.retryErrors,
    embedder,
    extraction,
    loadBackend: run.loadSystem,
    ledgerKey: secrets.ledgerKey ?? null,
    ...run.stops,
    onStart: control.begin,
    onUnit: (record) => {
      control.unitFinished(followUpOutcome(record));
      run.logError(record.unitId, record.status, record.error?.message);
    },
  });
  rmSync(join(runDir, 'work'), { recursive: true, force: true });
  const account = accountFollowUp(result.total, readFollowUpRecords(runDir, followUp.id).values(), priceOf);
  // The summary first (from the stored records; the usage that the final manifest will hold), then the manifest's ending.
  const summary = { ...summarizeFollowUpRun(loadRun(runDir))!, usage: account.usage };
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
