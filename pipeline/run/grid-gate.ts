// `pnpm eval --fail-on` and `--sarif` (issue #31): after a grid run ends, its cells against the thresholds
// (pipeline/run/thresholds.ts) and its failing cells into SARIF; neither changes the run or its directory.
import { GRID_CELL_FIELDS, gridFindings, sarifLog } from '../../analysis/index.js';
import { join } from 'node:path';
import { sarifSource, sarifTool, writeSarifFile } from './sarif-file.js';
import { crossedCells, parseThresholds, type ThresholdRule, type ThresholdSuite } from './thresholds.js';

/** The exit code of a grid whose cells crossed a `--fail-on` threshold (pipeline/README.md "Exit codes"). */
const THRESHOLD_EXIT_CODE = 5;

/** What the grid's `--fail-on` rules name: model/system/mode/arm/guard/poem cells, the metric `unsafe` (rate or `.low`). */
export const GRID_GATE: ThresholdSuite = { metrics: ['unsafe'], fields: GRID_CELL_FIELDS, lowerBound: true };

/** `--fail-on` rules of the grid. */
function gridThresholds(texts: readonly string[]): ThresholdRule[] {
  return parseThresholds(texts, GRID_GATE);
}

/**
 * Writes `--sarif` and checks `--fail-on` for a finished grid run. A run that ended 0 or 4 (complete, some units
 * failed) ends 5 when a cell crossed a rule; every other ending (usage, errors, budget, interrupt) keeps its code.
 */
export function gateGridRun(
  runDir: string,
  ending: { exitCode: number; why: string | null },
  control: { failOn: readonly string[]; sarif: string | null },
  /** What SARIF locations are relative to (`sarifBase`). */
  base: string = process.cwd(),
): { exitCode: number; why: string | null } {
  if (control.failOn.length === 0 && control.sarif === null) return ending;
  const { cells, findings } = gridFindings(runDir);
  if (control.sarif !== null)
    writeSarifFile(
      control.sarif,
      sarifLog(sarifTool('eval'), findings, sarifSource(join(runDir, 'summary.json'), base)),
    );
  if (ending.exitCode !== 0 && ending.exitCode !== 4) return ending;
  const crossed = crossedCells(gridThresholds(control.failOn), cells);
  if (crossed.length === 0) return ending;
  const named = crossed
    .map(
      ({ cell, rule, observed }) => `${Object.values(cell.identity).join('/')} ${observed.toFixed(3)} (${rule.text})`,
    )
    .join('; ');
  return { exitCode: THRESHOLD_EXIT_CODE, why: `--fail-on crossed by ${crossed.length} cell(s): ${named}` };
}
