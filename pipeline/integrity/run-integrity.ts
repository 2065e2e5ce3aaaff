// Runs the selected edits on every selected target, one fresh store per cell, and computes each target's metric.
import type { IntegrityTarget, TargetDescription } from '../../backends/integrity/integrity-target.js';
import { describeError } from './controls.js';
import type { CellResult, EditSelection, TargetResult } from './integrity-result.js';
import { computeMetric } from './metric.js';
import { runCell, skippedCell, type CellOptions } from './procedure.js';

/** Progress lines (stderr in the CLI); never the results themselves. */
export type ProgressSink = (line: string) => void;

/** The description used when a target cannot even describe itself (its cells are then not evaluable). */
function fallbackDescription(id: string): TargetDescription {
  return {
    label: id,
    model: false,
    versions: {},
    store: 'unknown',
    config: {},
    detection: 'read',
    contexts: 2,
    tooling: 'none',
  };
}

/** `name version` pairs joined, e.g. `mem0ai 3.3.1, better-sqlite3 12.11.1`. */
function versionText(description: TargetDescription): string {
  return (
    Object.entries(description.versions)
      .map(([name, version]) => `${name} ${version}`)
      .join(', ') || 'unknown'
  );
}

/**
 * Measures one target: every selected edit in its own cell, in order. A target that is unavailable here (no
 * Neo4j, a Python store that could not be installed) still gets every cell, each `not-evaluable` with the reason.
 */
export async function runTarget(
  target: IntegrityTarget,
  edits: readonly EditSelection[],
  progress: ProgressSink,
  options: CellOptions = {},
): Promise<TargetResult> {
  let description: TargetDescription;
  let unavailable: string | null = null;
  try {
    description = await target.describe();
    unavailable = (await target.unavailable?.())?.reason ?? null;
  } catch (error) {
    description = fallbackDescription(target.id);
    unavailable = `the target could not describe itself: ${describeError(error)}`;
  }
  const cells: CellResult[] = [];
  for (const selection of edits) {
    const cell = unavailable
      ? skippedCell(selection, 'not-evaluable', `not evaluable: ${unavailable}`)
      : await runCell(target, description, selection, options);
    progress(
      `${target.id} ${cell.attack}: ${cell.verdict}${cell.detection ? ` (${cell.detection})` : ''}${cell.reason ? ` — ${cell.reason}` : ''}`,
    );
    cells.push(cell);
  }
  return {
    id: target.id,
    version: versionText(description),
    config: description.config,
    description,
    unavailable,
    cells,
    metric: computeMetric(cells),
  };
}
