// Runs the selected edits on every selected target, one fresh store per cell, and computes each target's metric.
import type { IntegrityTarget, TargetDescription } from '../targets/integrity-target.js';
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

/** A target as it described itself, or why none of its cells can run here. */
export interface DescribedTarget {
  description: TargetDescription;
  /** Null when the target can run; else why every cell is `not-evaluable`. */
  unavailable: string | null;
}

/** Asks a target for its description and whether it can run here; never throws (a failure makes it unavailable). */
export async function describeTarget(target: IntegrityTarget): Promise<DescribedTarget> {
  try {
    const description = await target.describe();
    return { description, unavailable: (await target.unavailable?.())?.reason ?? null };
  } catch (error) {
    return {
      description: fallbackDescription(target.id),
      unavailable: `the target could not describe itself: ${describeError(error)}`,
    };
  }
}

/** Runs one edit on a fresh store of a described target (or records it not evaluable) and says so on `progress`. */
export async function measureCell(
  target: IntegrityTarget,
  described: DescribedTarget,
  selection: EditSelection,
  progress: ProgressSink,
  options: CellOptions = {},
): Promise<CellResult> {
  const cell = described.unavailable
    ? skippedCell(selection, 'not-evaluable', `not evaluable: ${described.unavailable}`, described.description.position)
    : await runCell(target, described.description, selection, options);
  progress(
    `${target.id} ${cell.attack}: ${cell.verdict}${cell.detection ? ` (${cell.detection})` : ''}${cell.reason ? ` — ${cell.reason}` : ''}`,
  );
  return cell;
}

/** One target's row from its description and its cells in column order. */
export function targetResult(id: string, described: DescribedTarget, cells: CellResult[]): TargetResult {
  return {
    id,
    version: versionText(described.description),
    config: described.description.config,
    description: described.description,
    unavailable: described.unavailable,
    cells,
    metric: computeMetric(cells),
  };
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
  const described = await describeTarget(target);
  const cells: CellResult[] = [];
  for (const selection of edits) cells.push(await measureCell(target, described, selection, progress, options));
  return targetResult(target.id, described, cells);
}

/** One line of records.jsonl: the cell as the command reports it, and the target as it described itself. */
export interface IntegrityRecord {
  target: string;
  described: DescribedTarget;
  cell: CellResult;
}
