// Readable names of a defence: the arm's registered defences (pipeline/defences) with the guard and PoEM axes on top.
import {
  AXES,
  type AxisId,
  axisDefenceId,
  axisOn,
  defenceOf,
  defenceStages,
  flattenDefences,
  isArmId,
} from '../pipeline/index.js';

/** The axes a cell ran with, as summary cells and follow-up rows carry them (an absent axis is off). */
export type DefenceAxes = { arm: string } & { readonly [K in AxisId]?: 'off' | 'on' | boolean };

/** The registered defences an arm runs, by id, each with stages of its own (`none` runs none); null for an unknown arm. */
function armParts(arm: string): string[] | null {
  if (!isArmId(arm)) return null;
  return flattenDefences([arm]).filter((id) => Object.values(defenceStages(id)).some((stage) => stage !== undefined));
}

/**
 * The defence of a cell in words: the labels of what the arm runs (the paper's Table 5 wording), then `+ stale guard`
 * (guard axis) and `+ PoEM gate` (PoEM axis), each axis on (pipeline/defences/axes) in registry order. An axis whose defence the arm already runs runs once, and says so.
 * An arm this code does not register (an older run) is named by its id.
 *
 * @example defenceLabel({ arm: 'store-filter', guard: 'on', poem: 'on' }) // 'store filter + stale guard + PoEM gate'
 * @example defenceLabel({ arm: 'none', guard: 'off', poem: 'on' }) // 'PoEM gate'
 */
export function defenceLabel(cell: DefenceAxes): string {
  const ids = armParts(cell.arm);
  const labels = ids === null ? [cell.arm] : ids.map((id) => defenceOf(id).label);
  for (const axis of AXES) {
    if (!axisOn(cell, axis.id)) continue;
    const id = axisDefenceId(axis);
    const index = ids?.indexOf(id) ?? -1;
    if (index >= 0) labels[index] = `${labels[index]} (arm and axis: one pass)`;
    else labels.push(defenceOf(id).label);
  }
  return labels.join(' + ') || 'no defence';
}
