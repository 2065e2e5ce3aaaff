// Readable names of a defence: the arm (stale-retrieval.md §9) with the guard and PoEM axes on top, for every surface.

/** Arm ids → readable names (the paper's Table 5 wording). */
export const ARM_LABELS: Readonly<Record<string, string>> = {
  none: 'no defence',
  'store-filter': 'store filter',
  'prompt-hardening': 'prompt hardening',
  'output-filter': 'output filter',
  'filter-hardening': 'store filter + prompt hardening',
  guard: 'stale guard',
};

/** The axes a cell ran with, as summary cells and follow-up rows carry them. */
export interface DefenceAxes {
  arm: string;
  guard: 'off' | 'on' | boolean;
  poem: 'off' | 'on' | boolean;
}

const isOn = (value: 'off' | 'on' | boolean) => value === true || value === 'on';

/**
 * The defence of a cell in words: the arm, then `+ stale guard` (guard axis) and `+ PoEM gate` (PoEM axis).
 * The guard arm with the guard axis on runs the guard once (pipeline/experiment-phase.ts), and says so.
 *
 * @example defenceLabel({ arm: 'store-filter', guard: 'on', poem: 'on' }) // 'store filter + stale guard + PoEM gate'
 * @example defenceLabel({ arm: 'none', guard: 'off', poem: 'on' }) // 'PoEM gate'
 */
export function defenceLabel(cell: DefenceAxes): string {
  const parts = cell.arm === 'none' ? [] : [ARM_LABELS[cell.arm] ?? cell.arm];
  if (isOn(cell.guard)) parts.push(cell.arm === 'guard' ? '' : 'stale guard');
  if (isOn(cell.poem)) parts.push('PoEM gate');
  const label = parts.filter(Boolean).join(' + ') || 'no defence';
  return cell.arm === 'guard' && isOn(cell.guard) ? label.replace(/^stale guard/, 'stale guard (arm and axis: one pass)') : label;
}
