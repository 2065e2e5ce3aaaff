// The defence-axis specification, version 1 (types only): an on/off choice, spelled `--<id> off,on`, that adds one
// registered defence on top of every arm of a unit.
import type { DefenceId, DefenceV1 } from '../defence-v1.js';

/** The experiment phases whose units an axis varies. */
export type AxisPhase = 'grid' | 'follow-up';

/** What an axis may ask of an experiment it is turned on for (pipeline/run/experiments.ts). */
export interface AxisExperiment {
  /** The experiment's id (`grid`, `writeback`, …). */
  id: string;
  /** It journals decisions back into memory. */
  writesJournals: boolean;
}

/**
 * A defence axis: one file exporting one of these, plus one line in `pipeline/defences/axes/index.ts`. The command
 * line (`--<id>`), the run spec, the unit key, the unit id, the plan, the manifest's defence records, the summary
 * cells and the defence table all read it from the registry, never by name.
 *
 * @example
 * export const guardAxis = {
 *   specificationVersion: 'axis-v1', id: 'guard', defence: 'guard', phases: ['grid', 'follow-up'], stored: 'always',
 *   usage: ['run every arm without and/or with the stale-retrieval guard on its context'],
 * } as const satisfies AxisV1;
 */
export interface AxisV1 {
  /** The version of this specification the axis implements. */
  readonly specificationVersion: 'axis-v1';
  /** The flag (`--<id> off,on`), the run-spec and unit-key field, and the unit id's segment when on (kebab case). */
  readonly id: string;
  /**
   * The defence `on` adds on top of the arm, once even when the arm has it: a registered defence's id
   * (pipeline/defences), or the axis's own defence, defined in the axis's file and registered with it.
   */
  readonly defence: DefenceId | DefenceV1;
  /** The experiment phases whose units vary along it (their plans, keys, summaries and tables carry it). */
  readonly phases: readonly AxisPhase[];
  /**
   * `always`: the spec and unit key always hold the field (`guard`, `poem`: recorded so before the registry);
   * `when-on`: only when given or on, so a run recorded before the axis existed keeps its keys and run id.
   */
  readonly stored: 'always' | 'when-on';
  /** What `--<id> off,on` does, as `pnpm eval --help` prints it after the flag: one line, then any continuation lines. */
  readonly usage: readonly string[];
  /**
   * Why `--<id> on` cannot apply to `experiment` (the spec error's message), or null; `experiments` lists every
   * registered one. Absent: it applies wherever its phases run.
   */
  notApplicable?(experiment: AxisExperiment, experiments: readonly AxisExperiment[]): string | null;
}
