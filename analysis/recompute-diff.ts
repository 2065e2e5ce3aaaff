// Where a stored value and its recomputation first differ, and JSONL rows with their line numbers.
import { existsSync, readFileSync } from 'node:fs';
import { AXES, axisOn, readJsonLines } from '../pipeline/index.js';

/** One stored value that differs from what the run directory's own inputs recompute to. */
export interface RecomputeDifference {
  /** The file of the run directory that holds the value (`records.jsonl`, `setup.jsonl`, `summary.json`, ...). */
  file: string;
  /** 1-based line of a JSONL file; null for a JSON file (or when the lines could not be numbered). */
  line: number | null;
  /** What the value belongs to: a unit id, a probe id (`system/mode/scenario`) or a summary cell or row. */
  record: string;
  /** Path of the value inside the record (`scores.unsafe`, `context.labels[2]`, `cells[4].unsafe.k`). */
  field: string;
  /** The value as stored (`undefined`: absent). */
  stored: unknown;
  /** The value recomputed, or a parenthesised sentence saying what was expected where no value can be. */
  recomputed: unknown;
}

/** A JSON round trip: `undefined` fields vanish, as they do in the stored file. */
const asStored = (value: unknown): unknown => (value === undefined ? undefined : JSON.parse(JSON.stringify(value)));

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** The first path (depth first, stored key order) where two JSON values differ, or null when they are equal. */
export function firstDifference(
  stored: unknown,
  recomputed: unknown,
  path: string,
): { field: string; stored: unknown; recomputed: unknown } | null {
  return walk(asStored(stored), asStored(recomputed), path);
}

function walk(a: unknown, b: unknown, path: string): { field: string; stored: unknown; recomputed: unknown } | null {
  if (Array.isArray(a) && Array.isArray(b)) {
    for (let i = 0; i < Math.max(a.length, b.length); i += 1) {
      if (i >= a.length || i >= b.length) return { field: `${path}[${i}]`, stored: a[i], recomputed: b[i] };
      const found = walk(a[i], b[i], `${path}[${i}]`);
      if (found) return found;
    }
    return null;
  }
  if (isObject(a) && isObject(b)) {
    for (const key of [...Object.keys(a), ...Object.keys(b).filter((k) => !Object.hasOwn(a, k))]) {
      const found = walk(a[key], b[key], path === '' ? key : `${path}.${key}`);
      if (found) return found;
    }
    return null;
  }
  return Object.is(a, b) ? null : { field: path, stored: a, recomputed: b };
}

/** Collects differences in the order the checks run (file order), so the first one is the first in the run. */
export class DifferenceLog {
  readonly differences: RecomputeDifference[] = [];

  /** Records the first difference between `stored` and `recomputed` under `field`, if any; true when they differ. */
  compare(
    where: Pick<RecomputeDifference, 'file' | 'line' | 'record'>,
    field: string,
    stored: unknown,
    recomputed: unknown,
  ): boolean {
    const found = firstDifference(stored, recomputed, field);
    if (found) this.differences.push({ ...where, ...found });
    return found !== null;
  }

  /** Records a difference that no value comparison expresses (a missing trace, a reply the run does not hold). */
  add(difference: RecomputeDifference): void {
    this.differences.push(difference);
  }
}

/** A difference as one line: where, which field, stored and recomputed values (long values cut). */
export function describeDifference(difference: RecomputeDifference): string {
  const show = (value: unknown) => {
    const text =
      value === undefined
        ? '(absent)'
        : typeof value === 'string' && value.startsWith('(') && value.endsWith(')')
          ? value
          : JSON.stringify(value);
    return text.length > 160 ? `${text.slice(0, 157)}...` : text;
  };
  const at = difference.line === null ? difference.file : `${difference.file}:${difference.line}`;
  return `${at} (${difference.record}) ${difference.field}: stored ${show(difference.stored)}, recomputed ${show(difference.recomputed)}`;
}

/**
 * The rows of a JSONL file (as `readJsonLines` reads them) with their 1-based line numbers. Line numbers are
 * those of the non-blank, newline-terminated lines; if they cannot be paired with the rows, they are null.
 */
export function numberedJsonLines<T>(path: string): { line: number | null; row: T }[] {
  const { rows } = readJsonLines<T>(path);
  if (!existsSync(path)) return [];
  const lines = readFileSync(path, 'utf8').split('\n');
  lines.pop();
  const numbers = lines.flatMap((text, index) => (text.trim() === '' ? [] : [index + 1]));
  const paired = numbers.length === rows.length;
  return rows.map((row, index) => ({ line: paired ? numbers[index]! : null, row }));
}

/** A summary cell or follow-up row named by its grouping fields (`sim/graphiti/direct/none/+guard`; `*` = all models). */
export function rowLabel(row: unknown): string {
  if (!isObject(row)) return '';
  const parts = [
    row.model,
    row.system,
    row.mode,
    row.arm,
    ...AXES.map((axis) => (axisOn(row, axis.id) ? `+${axis.id}` : '')),
    row.scenario,
  ];
  return parts.filter((part) => typeof part === 'string' && part !== '').join('/');
}
