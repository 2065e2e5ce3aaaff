// A follow-up experiment (write-back, propagation, tools) as a suite (SuiteV1, issue #27 item 1): its arguments, its
// units in loop order, one group per memory system (loaded and opened once for its units, closed after the last), how
// one unit runs, and its summary over `<experiment>.jsonl`. `pnpm eval --experiment <id>` runs it (./eval-phase.ts),
// handing its setup the run's models, systems and control plane.
import { join } from 'node:path';
import { z } from 'zod';
import { memorySystemArgsShape } from '../eval-args.js';
import type { BackendSettings, MemoryBackend } from '../../../backends/memory-backend.js';
import type { Embedder } from '../../../backends/embedder.js';
import type { ExtractionModel } from '../../../backends/extraction-model.js';
import type { ExploitScenario } from '../../../scenarios/exploit-scenario.js';
import type { Scenario } from '../../../scenarios/scenario.js';
import { type FollowUpSummary, type RunHead, summarizeFollowUp } from '../../../analysis/index.js';
import { UnsupportedFeatureError } from '#core/errors.js';
import type { BatchTransport } from '../../batch/batch-transport.js';
import type { AxisChoice } from '../../defences/axes/index.js';
import type { DecisionModel } from '../../models/decision-model.js';
import type { SuiteGroupV1, SuiteRunInfo, SuiteUnit, SuiteV1 } from '../../run/suite.js';
import type { FollowUpSettings, FollowUpSteps } from './experiment.js';
import { followUpUnitIdOf, type FollowUpKey, type FollowUpRecord } from './follow-up-log.js';
import { enumerateFollowUpUnits, followUpRecords, type FollowUpUnitServices, runFollowUpUnit } from './phase.js';

/** What a follow-up run measures: its identity, resolved (the scenario set loaded, the models built). */
export interface FollowUpArgs {
  /** The scenario set loaded for the run (policy or exploit scenarios), in grid order: what the units run on. */
  scenarioIds: string[];
  systems: string[];
  modes: FollowUpKey['mode'][];
  arms: string[];
  /** The decision models' aliases. */
  models: string[];
  trials: number;
  k: number;
  settings: FollowUpSettings;
  /** The defence axes' values (`--guard`, `--poem`, `--taint`); an absent axis is off. */
  axes: AxisChoice;
  /** `--limit N`: the N units the limit keeps (pipeline/run/unit-limit.ts); null: all. */
  limit: number | null;
}

const followUpArgsSchema = z
  .object({
    ...memorySystemArgsShape,
    k: z.number().int().min(1),
    settings: z.object({ hops: z.number().int().min(0), toolSteps: z.number().int().min(1) }).strict(),
  })
  .strict() as unknown as z.ZodType<FollowUpArgs>;

/** One unit: its key, in the group of its memory system. */
export type FollowUpUnit = SuiteUnit & { readonly key: FollowUpKey; readonly group: string };

/** What the units share: the loaded scenarios and models, the system loader, and the run's services. */
export interface FollowUpSetup extends FollowUpUnitServices {
  runId: string;
  runDir: string;
  scenarios: ReadonlyMap<string, Scenario | ExploitScenario>;
  /** The decision models by alias. */
  models: ReadonlyMap<string, DecisionModel>;
  embedder: Embedder;
  extraction: ExtractionModel;
  loadBackend: (id: string, settings: BackendSettings) => Promise<MemoryBackend>;
  /** Units of one system in flight at once, where its namespaces are independent. */
  concurrency: number;
  /**
   * `--batch`: the transport's round barrier. Every unit of a system then runs at once (not `concurrency` at a time)
   * and joins the barrier, so each round's decision calls go out together, one job per chunk.
   */
  rounds: Pick<BatchTransport, 'join'> | null;
}

/** What the summary reads besides the records: the run's manifest, as analysis reads it. */
export type FollowUpRunInfo = SuiteRunInfo & { readonly head: RunHead };

/** `leave` callable any number of times, leaving once. */
function once(leave: () => void): () => void {
  let left = false;
  return () => {
    if (left) return;
    left = true;
    leave();
  };
}

/**
 * Loads and opens memory system `system` for its pending units: one at a time, each alone on the engine, when its
 * ranking statistics span namespaces; under `--batch` all at once, each joined to the round barrier before any starts.
 */
async function openSystem(
  experiment: FollowUpSteps,
  system: string,
  units: readonly FollowUpUnit[],
  setup: FollowUpSetup,
): Promise<SuiteGroupV1<MemoryBackend>> {
  const backend = await setup.loadBackend(system, {
    embedder: setup.embedder,
    extraction: setup.extraction,
    runId: setup.runId,
    workDir: join(setup.runDir, 'work', system),
  });
  const { rounds } = setup;
  const independent = backend.description.independentNamespaces !== false;
  // Units that must run one at a time, each alone on the engine, cannot share a round: each call would be a job.
  if (rounds && !independent) {
    await backend.close();
    throw new UnsupportedFeatureError(
      system,
      `--batch with --experiment ${experiment.id}`,
      'its follow-up units run one at a time, each alone on the engine (its ranking statistics span namespaces), so every decision call would wait on a Batch API job of its own; run it without --batch',
    );
  }
  await backend.open();
  // Every unit joins before any starts, so the barrier never sends a round before its last unit has queued; a unit
  // that never starts (the run stopped first) leaves when the system closes.
  const leaves = new Map(rounds ? units.map((unit) => [unit.id, once(rounds.join())] as const) : []);
  return {
    shared: backend,
    // A store whose ranking statistics span namespaces runs one unit at a time, each alone in the store; under
    // --batch every unit runs at once, so a round's calls are all queued before its jobs are sent.
    concurrency: rounds ? Math.max(units.length, 1) : independent ? setup.concurrency : 1,
    run: (unit, work) => {
      // The unit's namespace lives from its first write to its reset: alone on the engine when rankings span namespaces.
      if (!rounds) return backend.exclusive ? backend.exclusive(work) : work();
      // Under --batch outside the engine's exclusive section (statistics per namespace, checked above): a unit
      // holding it while its call waits for the round would hold up every other unit of the round.
      return work().finally(leaves.get(unit.id));
    },
    async close() {
      for (const leave of leaves.values()) leave();
      await backend.close();
    },
  };
}

/**
 * The suite of follow-up experiment `experiment`. Its setup is the caller's (`pnpm eval` builds the models with the
 * run's budget and cache, and loads systems in its session); it has no exit rule of its own (the run's ending is the
 * exit code) and no renderer (its run kind, analysis/follow-ups/run-kind.ts, reports it).
 *
 * @example const units = createFollowUpSuite(FOLLOW_UP_EXPERIMENTS.writeback).plan(args);
 */
export function createFollowUpSuite(
  experiment: FollowUpSteps,
): SuiteV1<FollowUpArgs, FollowUpUnit, FollowUpRecord, FollowUpSummary, FollowUpSetup, MemoryBackend, FollowUpRunInfo> {
  return {
    specificationVersion: 'v1',
    id: experiment.id,
    args: followUpArgsSchema,
    plan: (args) =>
      enumerateFollowUpUnits({
        experiment,
        modes: args.modes,
        systems: args.systems,
        scenarios: args.scenarioIds.map((id) => ({ id })),
        models: args.models.map((id) => ({ description: { id } })),
        trials: args.trials,
        axes: args.axes,
        arms: args.arms,
        limit: args.limit,
      }).map((key) => {
        const { scenario: _scenario, trial: _trial, ...cell } = key;
        return { id: followUpUnitIdOf(key), cell: JSON.stringify(cell), group: key.system, key };
      }),
    records: followUpRecords(experiment.id),
    // A unit any of whose steps raised is recorded as an error: `--retry-errors` runs it again.
    rerun: (record) => record.status === 'error',
    openGroup: (system, units, setup) => openSystem(experiment, system, units, setup),
    runUnit: (unit, { setup, group, signal }) =>
      runFollowUpUnit(
        experiment,
        unit.key,
        group,
        setup.scenarios.get(unit.key.scenario)!,
        setup.models.get(unit.key.model)!,
        setup,
        signal,
      ),
    summarize: (records, _args, run) => summarizeFollowUp(run.head, records),
    exitCode: () => 0,
  };
}
