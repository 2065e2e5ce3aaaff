// The eval-phase contract, version v1 (types only, issue #27 items 1–2): what one kind of `pnpm eval` experiment (the
// grid, the follow-ups, the standalone forged-reasoning world) declares so that the run mechanics (spec, parts, plan,
// shard, limit, manifest, merge, command line) ask it instead of branching on its kind. Shaped like suite.ts's SuiteV1
// and models/decision-model.ts: a version literal, an id, a plan, a run that ends with its summary, an exit rule.
//
// The runner's own types (its spec, context, plan, outcome) are a type parameter, so this file imports none of them:
// the mechanics below the phases (run-spec.ts, shard.ts, unit-limit.ts, run-components.ts, run-parts.ts) take a phase,
// or the few members they need, as an argument, and no import cycle forms (pipeline/core/layers.test.ts). What a phase
// runs is a SuiteV1 (pipeline/run/suite.ts: the grid's, the follow-ups', forged reasoning's units, plan and summary),
// through pipeline/suites/eval-units.ts: this contract adds what a run that calls models needs around it.
import type { ComponentArgs, ComponentRecord } from '#core/registry.js';
import type { AxisPhase } from '../defences/axes/axis-v1.js';

/** Run settings a phase can refuse, each named by its flag when refused (`--shard`, `--fail-on`, ...). */
export type EvalPhaseSetting = 'shard' | 'sarif' | 'failOn' | 'batch' | 'limit' | 'tamper' | 'agent';

/** Why a phase refuses a setting, for an experiment of it (`splits the grid only; --experiment tools runs as one process`). */
export type EvalPhaseRefusal = (experiment: string) => string;

/**
 * What a phase declares before anything runs: read by the spec (identity, run id, refusals), the run's parts
 * (scenarios, models, components) and the limit. Pure but for `scenarios`, which reads scenario files.
 */
export interface EvalPhaseRulesV1<Spec, Scenarios> {
  /** The contract version this phase implements. */
  readonly specificationVersion: 'v1';
  /** Registry id (`grid`, `follow-up`, `standalone`): the `phase` of an experiment line (pipeline/run/experiments.ts). */
  readonly id: string;
  /**
   * Whether its units run on memory systems and seeding modes: `--systems` defaults to every registered system and
   * both lists need one id at least. False: its memory is in process, and `--systems`/`--modes` must be empty.
   */
  readonly memorySystems: boolean;
  /**
   * Whether its arms are its experiment line's own (listed under it in `--help`, checked against that line); false:
   * the grid's arm registry (pipeline/run/arms.ts), listed under `--arms`.
   */
  readonly ownArms: boolean;
  /**
   * The settings it cannot honour, each with the reason its refusal gives; a setting absent here applies. A phase that
   * refuses `shard` has no shards for `pnpm merge` either.
   */
  readonly refuses: Readonly<Partial<Record<EvalPhaseSetting, EvalPhaseRefusal>>>;
  /**
   * The defence axes its units vary along (pipeline/defences/axes `axesOf`), which `--limit` groups units by (a cell is
   * a unit's key but its scenario and trial); null: none.
   */
  readonly axes: AxisPhase | null;
  /**
   * The part of a spec's identity (its hash, hence its run id) that names the experiment, from its arguments. The grid
   * returns nothing, so grid runs keep the run ids they had before other experiments existed.
   */
  specIdentity(experiment: string, args: ComponentArgs): Readonly<Record<string, unknown>>;
  /** What a default run id starts with (`writeback_`; the grid: nothing), before the models and the spec hash. */
  runIdPrefix(experiment: string): string;
  /** Loads the scenario set its experiment runs on (policy, exploit or forged-reasoning scenarios) from the spec. */
  scenarios(spec: Spec): Promise<Scenarios>;
  /** Checks the spec's arms (and what else only it knows) against the registries; throws naming the flag. */
  checkComponents(spec: Spec): void;
  /** Decision-model aliases it calls besides `--model` (forged-reasoning's attacker), preflighted and built alike. */
  extraModels(spec: Spec): string[];
  /** Manifest components it adds after the experiment's own line (forged-reasoning: its agent). */
  components(spec: Spec): ComponentRecord[];
}

/** The runner's types a phase is written against (bound once in pipeline/run/run-experiment.ts as `EvalPhase`). */
export interface EvalPhaseTypes {
  /** The validated run spec. */
  spec: object;
  /** The scenario sets of a run. */
  scenarios: object;
  /** What the plan of a run reads (spec, run directory, components). */
  planInput: object;
  /** The plan `--dry-run` prints and the cost confirmation reads. */
  plan: object;
  /** The started run: spec, parts, manifest, control plane, stops. */
  context: object;
  /** How the run ended: status, exit code and why, summary, printed table. */
  outcome: { runDir: string; exitCode: number; why: string | null };
}

/**
 * An eval phase: its rules, then how it plans, runs and ends. One registry line each (pipeline/suites/eval-phases.ts);
 * the per-suite `eval-phase.ts` files implement it.
 *
 * @example export const gridEvalPhase: EvalPhase = { specificationVersion: 'v1', id: 'grid', memorySystems: true, ... };
 */
export interface EvalPhaseV1<T extends EvalPhaseTypes> extends EvalPhaseRulesV1<T['spec'], T['scenarios']> {
  /** The plan of a run before any money moves: its units (done and pending), calls and cost per model. Sends nothing. */
  plan(input: T['planInput']): Promise<T['plan']>;
  /**
   * Runs (or resumes) its units inside the run's session, then writes its summary (from the stored records only) and
   * the final manifest, and returns how it ended with its printed table.
   */
  run(context: T['context']): Promise<T['outcome']>;
  /** The exit rule: the process exit code and why, from how the run ended (the grid applies `--fail-on`, `--sarif`). */
  exitRule(
    outcome: T['outcome'],
    spec: T['spec'],
    sarifBase: string,
  ): { readonly exitCode: number; readonly why: string | null };
}
