// integrity.md §7.1 metric (with T1–T5 and T6–T8 sub-rates, T9 apart) and §7.2 exit codes with precedence 2 > 3 > 1 > 0.
import { crossedCells, parseThresholds } from '../../../run/thresholds.js';
import { INTEGRITY_GATE, integrityGateCells } from './integrity-findings.js';
import type { CellResult, EditId, IntegrityMetric, Rate, TargetResult } from './integrity-result.js';

const TAMPER: readonly EditId[] = ['T1', 'T2', 'T3', 'T4', 'T5'];
const BINDING: readonly EditId[] = ['T6', 'T7', 'T8'];
const JUDGED = new Set(['accepted', 'rejected', 'reported']);

const isPass = (cell: CellResult) =>
  cell.verdict === 'rejected' || (cell.verdict === 'reported' && cell.detection === 'read');
const isPartial = (cell: CellResult) => cell.verdict === 'reported' && cell.detection === 'audit';
const controlFailure = (cell: CellResult) => cell.controls.c1.ok === false || cell.controls.c2.ok === false;

/** (passes + 0.5 · partial) / N over the group's applicable cells; null when one of them has no verdict or was not run. */
function rate(cells: readonly CellResult[], group: readonly EditId[]): Rate {
  const applicable = cells.filter((cell) => cell.verdict !== 'n/a');
  if (applicable.length === 0 || group.some((edit) => !cells.some((cell) => cell.edit === edit)))
    return { value: null, n: applicable.length };
  if (applicable.some((cell) => !JUDGED.has(cell.verdict))) return { value: null, n: applicable.length };
  const score = applicable.filter(isPass).length + 0.5 * applicable.filter(isPartial).length;
  return { value: score / applicable.length, n: applicable.length };
}

/**
 * The metric over the cells of one target. Only the method's edits count (variants such as `T8:unrevoke` are
 * reported beside it). The value is not computed when C1 or C2 failed on any cell (§4), when one of T1–T8 was not
 * run (`--edits` chose a subset), or when an applicable cell has no verdict (not evaluable or error): a missing
 * cell is never a pass.
 */
export function computeMetric(cells: readonly CellResult[]): IntegrityMetric {
  const core = cells.filter((cell) => cell.variant === null);
  const draft = core.filter((cell) => cell.edit !== 'T9');
  const applicable = draft.filter((cell) => cell.verdict !== 'n/a');
  const t9 = core.find((cell) => cell.edit === 'T9');
  const counts = {
    n: applicable.length,
    passes: applicable.filter(isPass).length,
    partial: applicable.filter(isPartial).length,
    accepted: applicable.filter((cell) => cell.verdict === 'accepted').length,
  };
  const failedControl = core.find(controlFailure);
  const missing = applicable
    .filter((cell) => !JUDGED.has(cell.verdict))
    .map((cell) => `${cell.edit} (${cell.verdict})`);
  const notRun = [...TAMPER, ...BINDING].filter((edit) => !draft.some((cell) => cell.edit === edit));
  const reason = failedControl
    ? `not computed: a control failed on ${failedControl.edit} (${failedControl.reason ?? 'no reason'})`
    : notRun.length > 0
      ? `not computed: ${notRun.join(', ')} not run`
      : missing.length > 0
        ? `not computed: no verdict for ${missing.join(', ')}`
        : applicable.length === 0
          ? 'not computed: no applicable T1–T8 cell was run'
          : null;
  const value = reason === null ? (counts.passes + 0.5 * counts.partial) / counts.n : null;
  const sub = (group: readonly EditId[]): Rate =>
    failedControl
      ? { value: null, n: 0 }
      : rate(
          draft.filter((cell) => group.includes(cell.edit)),
          group,
        );
  return { value, reason, ...counts, tamperEvidence: sub(TAMPER), binding: sub(BINDING), t9: t9?.verdict ?? null };
}

/**
 * What `--fail-on` selects: `accepted` (default; the rule `accepted > 0` of pipeline/run/thresholds.ts) fails the check on
 * any ACCEPTED cell; `none` only records; a list holds the rules of several flags or of a rule file (`@<file>`), e.g.
 * `target=mem0-py edit=T9 accepted > 0`. A lone keyword stays a string, as run directories have always recorded it.
 */
export type FailOn = 'accepted' | 'none' | readonly string[];

/**
 * integrity.md §7.2: 2 when nothing could be evaluated (no cell of any target has a verdict), else 3 when an edit
 * did not land or the adapter failed mid-edit (an `error` cell), else 1 when a cell crossed a `--fail-on` rule (by
 * default: was ACCEPTED), else 0.
 */
export function exitCode(targets: readonly TargetResult[], failOn: FailOn = 'accepted'): 0 | 1 | 2 | 3 {
  const cells = targets.flatMap((target) => target.cells);
  if (!cells.some((cell) => JUDGED.has(cell.verdict))) return 2;
  if (cells.some((cell) => cell.verdict === 'error')) return 3;
  const rules = parseThresholds(typeof failOn === 'string' ? [failOn] : failOn, INTEGRITY_GATE);
  if (crossedCells(rules, integrityGateCells(targets)).length > 0) return 1;
  return 0;
}
