// The grid's eval phase (pipeline/run/eval-phase-v1.ts): setup (inserts, probes), then one decision per unit, then the
// summary from the stored run log and the final manifest. It alone honours shards, `--fail-on`, `--sarif` and `--tamper`.
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { generateLedgerKey } from '../../../guard/execution-ledger-key.js';
import { formatSummaryTable, readRunHead, readRunRecords } from '../../../analysis/index.js';
import { axesOf, axisCombinations } from '../../defences/axes/index.js';
import { gridDefences } from '../../defences/grid-context.js';
import { writeJsonAtomic } from '../../run-log/json-files.js';
import type { ArmId } from '../../run/arms.js';
import { createAccountedRecordOf } from '../../run/accounted-record.js';
import { gateGridRun } from '../../run/grid-gate.js';
import { accountGrid, gridOutcome } from '../../run/run-accounting.js';
import { checkGridArms, loadPolicyScenarioSet } from '../../run/run-components.js';
import type { RunContext } from '../../run/run-context.js';
import type { EvalPhase, ExperimentOutcome } from '../../run/run-experiment.js';
import type { RunSpec } from '../../run/run-spec.js';
import { createActionLayer } from './action-layer.js';
import { createReplyMemory } from './reply-memory.js';
import { type GridSetup, type GridUnit, gridArgsOf, gridSuite } from './suite.js';
import { runEvalUnits } from '../eval-units.js';
import { inShard } from '../../run/shard.js';
import { planGrid } from './grid-plan.js';
import { runSetupPhase } from './setup-phase.js';

/** What only the grid honours; a phase without grid cells, shards or probes to tamper with refuses these. */
export const GRID_ONLY: EvalPhase['refuses'] = {
  shard: (experiment) => `splits the grid only; --experiment ${experiment} runs as one process`,
  sarif: (experiment) => `grid cells only; ${experiment} has none`,
  failOn: () => 'grid cells only; this experiment has none',
  tamper: () => 'applies to the grid only',
};

/** `--agent` picks forged-reasoning's agent; a phase that sends its own decision prompts refuses another one. */
export const OWN_DECISION_PROMPTS: EvalPhase['refuses'] = {
  agent: (experiment) => `applies to forged-reasoning only; ${experiment} runs its own decision prompts`,
};

/** True when any unit of the grid runs a defence that consults the revocation ledger. */
const consultsLedger = (spec: RunSpec): boolean =>
  spec.arms.some((arm) =>
    axisCombinations(axesOf('grid'), spec).some((axes) => gridDefences({ arm: arm as ArmId, ...axes }).ledger),
  );

/** Runs the grid: the setup phase (inserts, probes), then the experiment phase, then the summary and final manifest. */
async function runGridExperiment(run: RunContext): Promise<ExperimentOutcome> {
  const { spec, secrets, parts } = run;
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
  const args = gridArgsOf(
    spec,
    { scenarios: scenarios.map((scenario) => scenario.id), models: models.map((model) => model.description.id) },
    probes,
  );
  const { shard } = spec.control;
  const plan = gridSuite.plan(args);
  const units: Iterable<GridUnit> = {
    *[Symbol.iterator]() {
      for (const unit of plan) if (inShard(shard, unit.key)) yield unit;
    },
  };
  const replies = createReplyMemory({ arms: args.arms, shard });
  // The units' setup: the run's models (budget, cache, breaker), the probes, the reply memory, the trusted action
  // layer with the ledger key, and the stops.
  const setup = async (): Promise<GridSetup> => ({
    scenarios: new Map(scenarios.map((scenario) => [scenario.id, scenario])),
    models: new Map(models.map((model) => [model.description.id, model])),
    probes,
    replies,
    actions: createActionLayer({ scenarios, key: secrets.ledgerKey ?? null }),
    stop: run.stops,
  });
  const result = await runEvalUnits(run, gridSuite, {
    units,
    setup,
    outcome: gridOutcome,
    // `--batch`: a job's worth of units wait on their batch at once (their calls are queued, not sent one by one).
    concurrency: spec.control.batch ? spec.control.batch.size : spec.concurrency,
    remember: replies.remember,
  });
  // One streamed read of the stored run log serves the account and the summary, each record reduced to what they
  // read as it is parsed (issue #18: no full copies of records.jsonl at the end of a run).
  const stored = { ...readRunHead(runDir), records: readRunRecords(runDir, createAccountedRecordOf()) };
  const account = accountGrid(result.total, stored.records.values(), probes.values(), priceOf);
  // The summary is computed from the stored run log only, exactly as `pnpm rescore` recomputes it (its usage is the
  // one the final manifest holds); it is written before the manifest's ending, so a failure here leaves `started`.
  const summary = {
    ...gridSuite.summarize([...stored.records.values()], args, {
      startedAt: stored.manifest.createdAt,
      command: 'pnpm eval',
      runtime: stored.manifest.runtime,
      head: stored,
    }),
    usage: account.usage,
  };
  writeJsonAtomic(join(runDir, 'summary.json'), summary);
  const ending = run.finish(account);
  return {
    ...ending,
    runDir,
    summary,
    table: [formatSummaryTable(summary), '', ...run.spendLines(account)].join('\n'),
  };
}

/** The main grid: one decision per unit on every system, mode, arm, axis value, model and trial. */
export const gridEvalPhase: EvalPhase = {
  specificationVersion: 'v1',
  id: 'grid',
  memorySystems: true,
  ownArms: false,
  refuses: OWN_DECISION_PROMPTS,
  axes: 'grid',
  specIdentity: () => ({}),
  runIdPrefix: () => '',
  scenarios: loadPolicyScenarioSet,
  checkComponents: checkGridArms,
  extraModels: () => [],
  components: () => [],
  plan: planGrid,
  run: runGridExperiment,
  exitRule: (outcome, spec, sarifBase) => gateGridRun(outcome.runDir, outcome, spec.control, sarifBase),
};
