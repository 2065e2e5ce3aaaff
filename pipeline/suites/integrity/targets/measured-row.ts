// Test helper: runs every edit on a target and returns its row in the words of the scorecard (for pinned-verdict tests).
import { ALL_EDITS } from '../harness/edits.js';
import type { EditSelection, TargetResult } from '../harness/integrity-result.js';
import { runTarget } from '../harness/run-integrity.js';
import type { IntegrityTarget } from './integrity-target.js';

/** Every cell as `T1 accepted`, `T2 rejected/read`, `T6 reported/audit`, plus the full result. */
export async function measuredRow(
  target: IntegrityTarget,
  edits: readonly EditSelection[] = ALL_EDITS.map((edit) => ({ edit, variant: null })),
): Promise<{ row: string[]; result: TargetResult }> {
  const result = await runTarget(target, edits, () => undefined);
  const row = result.cells.map(
    (cell) =>
      `${cell.variant ? `${cell.edit}:${cell.variant}` : cell.edit} ${cell.verdict}${cell.detection ? `/${cell.detection}` : ''}`,
  );
  return { row, result };
}

/** True when every cell ran all three controls successfully (C1, C2, C3 ok). */
export function allControlsHeld(result: TargetResult): boolean {
  return result.cells.every(
    (cell) => cell.controls.c1.ok === true && cell.controls.c2.ok === true && cell.controls.c3.ok === true,
  );
}
