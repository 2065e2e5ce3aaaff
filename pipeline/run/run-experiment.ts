// The experiment phases of one run: the grid (setup, then experiment) or a follow-up experiment, each ending with its
// summary written from the stored run log and the final manifest.
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import {
  formatFollowUpSummary,
  formatSummaryTable,
  loadRun,
  readRunHead,
  readRunRecords,
  SUMMARY_VERSION,
  summarizeFollowUpRun,
  summarizeRun,
  type FollowUpSummary,
  type Summary,
} from '../../analysis/index.js';
import type { ArmId } from './arms.js';
import { runExperimentPhase } from '../suites/grid/experiment-phase.js';
import { createAccountedRecordOf } from './accounted-record.js';
import type { FollowUpSteps } from '../suites/follow-ups/experiment.js';
import { readFollowUpRecords, runFollowUpPhase } from '../suites/follow-ups/phase.js';
import { writeJsonAtomic } from '../run-log/json-files.js';
import { accountFollowUp, accountGrid, followUpOutcome, gridOutcome } from './run-accounting.js';
import type { RunContext } from './run-context.js';
import type { RunEnding } from './run-control.js';
import { runSetupPhase } from '../suites/grid/setup-phase.js';
import { axesOf, axisChoiceOf, axisCombinations } from '../defences/axes/index.js';
import { gridDefences } from '../defences/grid-context.js';
import { generateLedgerKey } from '../../guard/execution-ledger-key.js';
import type { RunSpec } from './run-spec.js';

/** True when any unit of the grid runs a defence that consults the revocation ledger. */
const consultsLedger = (spec: RunSpec): boolean =>
  spec.arms.some((arm) =>
    axisCombinations(axesOf('grid'), spec).some((axes) => gridDefences({ arm: arm as ArmId, ...axes }).ledger),
  );

/** How an experiment phase ended: the ending plus its summary and printed result. */
export interface ExperimentOutcome extends RunEnding {
  runDir: string;
  /** The grid summary (`summary.json`); a follow-up run's summary is in `followUp` instead. */
  summary: Summary;
  followUp?: FollowUpSummary;
  /** The printed result: the summary table and the spend lines, or the plan of a `--dry-run`. */
  table: string;
}

/** The summary of a run with no grid cells (a follow-up run, a `--dry-run`). */
export const emptySummary = (simulated: boolean): Summary => ({
  version: SUMMARY_VERSION,
  simulated,
  cells: [],
  guardMetrics: [],
  cache: { hits: 0, misses: 0, hitRate: null },
});

/** Runs a follow-up experiment (write-back, propagation, tools), then writes its summary and the final manifest. */
export async function runFollowUpExperiment(run: RunContext, followUp: FollowUpSteps): Promise<ExperimentOutcome> {
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

/** Runs the grid: the setup phase (inserts, probes), then the experiment phase, then the summary and final manifest. */
export async function runGridExperiment(run: RunContext): Promise<ExperimentOutcome> {
  const { spec, secrets, parts, control } = run;
  const { runId, runDir, scenarios, models, embedder, extraction, priceOf } = parts;
  const probes = await runSetupPhase({
    runId,
    runDir,
    systems: spec.systems,
    modes: spec.modes,
    scenarios,
    k: spec.k,
    embedder,
    extraction,
    loadBackend: run.loadSystem,
    log: run.log,
    verbose: spec.control.verbose,
    ...run.stops,
    tamper: spec.tamper === 'unrevoke' ? spec.tamper : null,
    // The revocation ledger's verdicts are recorded only when a defence of the run consults it.
    ledgerKey: consultsLedger(spec) ? (secrets.ledgerKey ?? generateLedgerKey()) : null,
  });
  rmSync(join(runDir, 'work'), { recursive: true, force: true });
  const result = await runExperimentPhase({
    runDir,
    scenarios,
    probes,
    systems: spec.systems,
    modes: spec.modes,
    arms: spec.arms as ArmId[],
    axes: axisChoiceOf(spec),
    ledgerKey: secrets.ledgerKey ?? null,
    models,
    trials: spec.trials,
    // `--batch`: a job's worth of units wait on their batch at once (their calls are queued, not sent one by one).
    concurrency: spec.control.batch ? spec.control.batch.size : spec.concurrency,
    retryErrors: spec.retryErrors,
    shard: spec.control.shard,
    limit: spec.limit ?? null,
    ...run.stops,
    onStart: control.begin,
    onUnit: (record, { retried }) => {
      control.unitFinished({ ...gridOutcome(record), ...(retried ? { retried } : {}) });
      run.logError(record.unitId, record.status, record.error?.message);
    },
  });
  // One streamed read of the stored run log serves the account and the summary, each record reduced to what they
  // read as it is parsed (issue #18: no full copies of records.jsonl at the end of a run).
  const stored = { ...readRunHead(runDir), records: readRunRecords(runDir, createAccountedRecordOf()) };
  const account = accountGrid(result.total, stored.records.values(), probes.values(), priceOf);
  // The summary is computed from the stored run log only, exactly as `pnpm rescore` recomputes it (its usage is the
  // one the final manifest holds); it is written before the manifest's ending, so a failure here leaves `started`.
  const summary = { ...summarizeRun(stored), usage: account.usage };
  writeJsonAtomic(join(runDir, 'summary.json'), summary);
  const ending = run.finish(account);
  return {
    ...ending,
    runDir,
    summary,
    table: [formatSummaryTable(summary), '', ...run.spendLines(account)].join('\n'),
  };
}
