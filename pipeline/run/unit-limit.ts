// `--limit N` (inspect_ai's `--limit`): at most N units of a grid or follow-up run, taken round-robin across the plan's
// cells so that every cell gets units before any cell gets a second, and recorded as `limited` on every surface.
import {
  type AxisChoice,
  type AxisV1,
  axesOf,
  axisCombinations,
  axisOn,
  type UnitKeyAxes,
} from '../defences/axes/index.js';
import { gridDefences } from '../defences/grid-context.js';
import type { ArmId } from './arms.js';
import type { EvalPhaseRulesV1 } from './eval-phase-v1.js';
import type { LimitedMark } from '../run-log/run-log.js';
import type { RunSpec } from './run-spec.js';

/** What a limit selects from: a unit's cell and its place in that cell. */
export interface LimitSpace<K> {
  /** Every cell (a table cell: everything of a unit but its scenario and trial), in the order a round visits them. */
  cells: readonly string[];
  /** The cell of a unit, one of `cells`. */
  cellOf: (key: K) => string;
  /** The run's scenario ids in grid order. */
  scenarios: readonly string[];
  trials: number;
}

/**
 * The units a limit keeps. Within a cell, units are ordered trial-major (every scenario of trial 0, then of trial 1,
 * ...); rounds take the next unit of every cell, cells in `space.cells` order; the first `limit` units are kept. The
 * choice depends only on the spec (not on what is recorded, nor on the shard), so the same command resumes the same
 * set and `--shard i/n` splits it.
 *
 * @example limitFilter({ cells: ['a', 'b'], cellOf: (k) => k.cell, scenarios: ['s'], trials: 2 }, 3) // a0 b0 a1
 */
export function limitFilter<K extends { scenario: string; trial: number }>(
  space: LimitSpace<K>,
  limit: number | null | undefined,
): (key: K) => boolean {
  if (limit === null || limit === undefined) return () => true;
  const cellIndex = new Map(space.cells.map((cell, index) => [cell, index]));
  const scenarioIndex = new Map(space.scenarios.map((id, index) => [id, index]));
  return (key) => {
    const position = key.trial * space.scenarios.length + scenarioIndex.get(key.scenario)!;
    return position * space.cells.length + cellIndex.get(space.cellOf(key))! < limit;
  };
}

/** The grid axes a cell is made of (a unit key without scenario and trial). */
interface GridCellAxes {
  modes: readonly string[];
  systems: readonly string[];
  models: readonly string[];
  /** The defence axes' values (pipeline/defences/axes). */
  axes: AxisChoice;
  arms: readonly ArmId[];
}

/** A unit's cell: everything of its key but the scenario and the trial (axes off when absent). */
type CellKey = { mode: string; system: string; model: string; arm: string } & Partial<UnitKeyAxes>;

/** A cell's id: mode, system, model, the phase's axes in registry order, arm. */
const cellIdOf = (axes: readonly AxisV1[]) => (key: CellKey) =>
  JSON.stringify([key.mode, key.system, key.model, ...axes.map((axis) => axisOn(key, axis.id)), key.arm]);

/**
 * The grid's limit space: cells in plan order (mode, system, model, guard, PoEM, arm), the arms that reuse another
 * arm's reply (the output filter reuses `none`) last in each round, so a kept reusing unit always finds the reply it
 * reuses kept too and costs no call of its own.
 */
export function gridLimitSpace(
  axes: GridCellAxes,
  scenarios: readonly string[],
  trials: number,
): LimitSpace<CellKey & { scenario: string; trial: number }> {
  const gridAxes = axesOf('grid');
  const gridCellOf = cellIdOf(gridAxes);
  const cells: { id: string; reusing: boolean }[] = [];
  for (const mode of axes.modes)
    for (const system of axes.systems)
      for (const model of axes.models)
        for (const on of axisCombinations(gridAxes, axes.axes))
          for (const arm of axes.arms)
            cells.push({
              id: gridCellOf({ mode, system, model, ...on, arm }),
              reusing: gridDefences({ arm, ...on }).reuseReplyOf !== null,
            });
  return {
    cells: [...cells.filter((c) => !c.reusing), ...cells.filter((c) => c.reusing)].map((c) => c.id),
    cellOf: gridCellOf,
    scenarios,
    trials,
  };
}

/** The follow-up experiments' limit space: cells in plan order (mode, system, model, guard, PoEM, taint, arm). */
export function followUpLimitSpace(
  axes: Omit<GridCellAxes, 'arms'> & { arms: readonly string[] },
  scenarios: readonly string[],
  trials: number,
): LimitSpace<CellKey & { scenario: string; trial: number }> {
  const followUpAxes = axesOf('follow-up');
  const cellOf = cellIdOf(followUpAxes);
  const cells: string[] = [];
  for (const mode of axes.modes)
    for (const system of axes.systems)
      for (const model of axes.models)
        for (const on of axisCombinations(followUpAxes, axes.axes))
          for (const arm of axes.arms) cells.push(cellOf({ mode, system, model, ...on, arm }));
  return { cells, cellOf, scenarios, trials };
}

/** The `limited` mark of a spec (null without `--limit`); `of` counts every axis of the plan. */
export function limitedOf(
  spec: Pick<RunSpec, 'modes' | 'systems' | 'models' | 'arms' | 'scenarios' | 'trials'> &
    AxisChoice & { limit?: number | null | undefined },
  phase: Pick<EvalPhaseRulesV1<unknown, unknown>, 'axes'>,
): LimitedMark | null {
  if (spec.limit === null || spec.limit === undefined) return null;
  const of =
    spec.modes.length *
    spec.systems.length *
    spec.models.length *
    axisCombinations(phase.axes === null ? [] : axesOf(phase.axes), spec).length *
    spec.arms.length *
    spec.scenarios.length *
    spec.trials;
  return { limit: spec.limit, units: Math.min(spec.limit, of), of };
}

/** `limited: 20 of 1,080 units (--limit 20, round-robin over the plan's cells)`: the line every surface prints. */
export function limitedLine(mark: LimitedMark): string {
  return `limited: ${mark.units.toLocaleString('en-US')} of ${mark.of.toLocaleString('en-US')} units (--limit ${mark.limit}, taken round-robin over the plan's cells; not the full run)`;
}
