// The grid's decisions as a suite (SuiteV1, issue #27 item 1): its arguments (the spec's values and what the setup
// phase's probes found), its units in the reference loop order (made as they are pulled: a 45k grid is never held),
// how one unit runs, which records rerun or retry, and its summary over records.jsonl. `pnpm eval` runs it
// (./eval-phase.ts) after the setup phase, handing its units the run's models, probes, ledger and stops.
import { z } from 'zod';
import { memorySystemArgsShape } from '../eval-args.js';
import type { Scenario } from '../../../scenarios/scenario.js';
import { type RunHead, type Summary, type SummaryRecord, summarizeRun } from '../../../analysis/index.js';
import { isArmId, type ArmId } from '../../run/arms.js';
import {
  type AxisChoice,
  axesOf,
  axisChoiceOf,
  axisCombinations,
  axisSegments,
  unitKeyAxes,
} from '../../defences/axes/index.js';
import type { RunSpec } from '../../run/run-spec.js';
import { gridDefences } from '../../defences/grid-context.js';
import type { DecisionModel } from '../../models/decision-model.js';
import { probeIdOf, unitIdOf, type ProbeRecord, type UnitKey, type UnitRecord } from '../../run-log/run-log.js';
import type { SuiteRunInfo, SuiteUnit, SuiteV1 } from '../../run/suite.js';
import type { ActionLayer } from './action-layer.js';
import { replyReuse, type ReplyMemory } from './reply-memory.js';
import { isEndpointFailure, runGridUnit, type UnitStop } from './experiment-phase.js';
import { gridLimitSpace, limitFilter } from '../../run/unit-limit.js';

/** What a grid run decides on: the spec's values, resolved, and what its setup phase found. */
export interface GridArgs {
  /** The scenario set loaded for the run, in grid order. */
  scenarioIds: string[];
  systems: string[];
  modes: ('direct' | 'natural')[];
  arms: ArmId[];
  /** The decision models' aliases. */
  models: string[];
  trials: number;
  /** The defence axes' values (`--guard`, `--poem`, `--taint`); an absent axis is off. */
  axes: AxisChoice;
  /** `--limit N`: the N units the limit keeps (over every unit of the spec, whatever the probes say); null: all. */
  limit: number | null;
  /**
   * Each probe of the setup phase that succeeded, by probe id, with the exposure rule that labelled its read (null:
   * none): a unit exists only where its probe succeeded, and an arm that needs oracle labels only where the rule is
   * `oracle` (the paper's protocol: a system that could not be seeded or read has no decisions, never a pass).
   */
  probed: Record<string, string | null>;
}

const gridArgsSchema = z
  .object({
    ...memorySystemArgsShape,
    probed: z.record(z.string(), z.string().nullable()),
  })
  .strict() as unknown as z.ZodType<GridArgs>;

/** The probes of a setup phase (by probe id) as the grid's arguments read them: each that succeeded, with its rule. */
function probedOf(probes: ReadonlyMap<string, ProbeRecord>): GridArgs['probed'] {
  const probed: GridArgs['probed'] = {};
  for (const [id, probe] of probes) if (probe.status === 'ok') probed[id] = probe.exposure?.rule ?? null;
  return probed;
}

/**
 * The grid's arguments for a run spec (its scenario set and models by id: those loaded, or a manifest's) and the
 * probes of its setup phase by probe id: what `pnpm eval`, `--dry-run` and `pnpm merge` plan the grid from. Checked
 * by the suite's schema.
 *
 * @example const units = [...gridSuite.plan(gridArgsOf(manifest.spec, manifest.spec, lastProbes(shard)))];
 */
export function gridArgsOf(
  spec: Pick<RunSpec, 'systems' | 'modes' | 'arms' | 'trials' | 'limit'> & AxisChoice,
  ids: { readonly scenarios: readonly string[]; readonly models: readonly string[] },
  probes: ReadonlyMap<string, ProbeRecord>,
): GridArgs {
  return gridSuite.args.parse({
    scenarioIds: ids.scenarios,
    systems: spec.systems,
    modes: spec.modes,
    arms: spec.arms,
    models: ids.models,
    trials: spec.trials,
    axes: axisChoiceOf(spec),
    limit: spec.limit ?? null,
    probed: probedOf(probes),
  });
}

/** One decision of one trial under one arm and axis values; a reusing arm's units (the output filter) are stage 1. */
export interface GridUnit extends SuiteUnit {
  readonly key: UnitKey;
}

/** What the grid's units share in one invocation. */
export interface GridSetup {
  scenarios: ReadonlyMap<string, Scenario>;
  /** The decision models by alias. */
  models: ReadonlyMap<string, DecisionModel>;
  probes: ReadonlyMap<string, ProbeRecord>;
  /** The replies a reusing arm reads (kept from what the runner reads and writes: `remember`). */
  replies: ReplyMemory;
  /** The trusted action layer (the PoEM ledger and its prior step). */
  actions: ActionLayer;
  stop: UnitStop;
}

/** What the summary reads besides the records: the run's manifest and probes, as analysis reads them. */
export type GridRunInfo = SuiteRunInfo & { readonly head: RunHead };

/** True when arm `arm` needs oracle exposure labels (`requiresOracle`): its units run on oracle systems only. */
function needsOracle(arm: string): boolean {
  return isArmId(arm) && gridDefences({ arm }).requiresOracle !== null;
}

/**
 * Every unit of the arguments whose probe succeeded, in the reference loop order (mode → system → scenario →
 * model → trial → axes → arm), without the limit.
 */
function* allUnitKeys(args: GridArgs): Generator<UnitKey> {
  const gridAxes = axesOf('grid');
  const combinations = axisCombinations(gridAxes, args.axes).map((on) => unitKeyAxes(gridAxes, on));
  for (const mode of args.modes)
    for (const system of args.systems)
      for (const scenario of args.scenarioIds) {
        const rule = args.probed[probeIdOf(system, mode, scenario)];
        if (rule === undefined) continue;
        // An arm that needs oracle labels (the hypothetical Zep oracle filter) is n/a elsewhere: no unit, never a pass.
        const arms = args.arms.filter((arm) => !needsOracle(arm) || rule === 'oracle');
        for (const model of args.models)
          for (let trial = 0; trial < args.trials; trial += 1)
            for (const axes of combinations)
              for (const arm of arms) yield { scenario, system, mode, arm, model, trial, ...axes };
      }
}

/**
 * The grid. Its setup is the caller's (`pnpm eval` seeds and probes the systems in its setup phase, builds the models
 * with the run's budget and cache); its exit rule is the eval phase's (`--fail-on`), not a summary's; its run kind
 * (analysis/grid) reports it. Its summary takes the records as stored or reduced to what summarising reads
 * (`summaryRecordOf`), so the end of a 45k run need not hold whole records.
 *
 * @example for (const unit of gridSuite.plan(args)) console.log(unit.id);
 */
export const gridSuite = {
  specificationVersion: 'v1',
  id: 'grid',
  args: gridArgsSchema,
  /**
   * The units in the reference loop order, made as they are pulled; with `limit`, only the units it keeps (chosen over
   * every unit of the spec, whatever the probes say, so the set never moves).
   */
  plan: (args: GridArgs): Iterable<GridUnit> => ({
    *[Symbol.iterator]() {
      const kept = limitFilter(gridLimitSpace(args, args.scenarioIds, args.trials), args.limit);
      const reuseOf = replyReuse();
      for (const key of allUnitKeys(args)) {
        if (!kept(key)) continue;
        const cell = [key.system, key.mode, key.arm, key.model, ...axisSegments(key)].join('/');
        yield { id: unitIdOf(key), cell, stage: reuseOf(key) === null ? 0 : 1, key };
      }
    },
  }),
  records: { file: 'records.jsonl', unitOf: (record: UnitRecord) => record.unitId },
  // A recorded error reruns under --retry-errors.
  rerun: (record: UnitRecord) => record.status === 'error',
  // A failure on the endpoint's side (a 5xx, a timeout, a reset: issue #26) runs once more at the end of the
  // invocation, so a transient failure does not cost a good run its unit; a refusal (400, 401, 404) would recur.
  retryOnce: (record: UnitRecord) => record.status === 'error' && isEndpointFailure(record.error?.status),
  runUnit({ key }: GridUnit, { setup }: { setup: GridSetup }): Promise<UnitRecord> {
    const probe = setup.probes.get(probeIdOf(key.system, key.mode, key.scenario))!;
    const reused = setup.replies.reuseOf(key);
    const reusable =
      reused !== null && isArmId(reused) ? setup.replies.reusable(unitIdOf({ ...key, arm: reused })) : undefined;
    const scenario = setup.scenarios.get(key.scenario)!;
    return runGridUnit(key, scenario, probe, setup.models.get(key.model)!, reusable, setup.actions, setup.stop);
  },
  summarize: (records: readonly SummaryRecord[], _args: GridArgs, run: GridRunInfo): Summary =>
    summarizeRun({ ...run.head, records }),
  exitCode: () => 0,
} satisfies SuiteV1<GridArgs, GridUnit, UnitRecord, Summary, GridSetup, undefined, GridRunInfo>;
