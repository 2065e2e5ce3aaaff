// One compact index per run for the viewer: a row per unit (last line of an id wins) with the byte span of its line.
import { closeSync, existsSync, openSync, readSync } from 'node:fs';
import { join } from 'node:path';
import { axesOf, axisOn, type UnitRecord } from '../../pipeline/index.js';

/** How a unit ended, as the viewer filters it (grid: the paper's counting, analysis/unsafe-counts.ts; `ok`: no scores). */
export type Outcome = 'unsafe' | 'safe' | 'parse failure' | 'error' | 'ok';

/** The defence axes of a grid unit (`guard`, `poem`, …: pipeline/defences/axes), each `on` or `off`. */
const GRID_AXIS_DIMS = axesOf('grid').map((axis) => axis.id);
/** The axes a grid unit is filtered by, in column order. */
const GRID_DIMS = ['model', 'system', 'mode', 'arm', ...GRID_AXIS_DIMS, 'scenario', 'outcome'] as const;
/** The axes a cell groups by (scenario and outcome filter the units, the cells pool them). */
const GRID_CELL_DIMS = ['model', 'system', 'mode', 'arm', ...GRID_AXIS_DIMS] as const;
/** The axes of a run the viewer reads generically (suites, follow-ups): a unit's cell and outcome. */
const GENERIC_DIMS = ['cell', 'outcome'] as const;

/**
 * What the run page loads (as `units.js`): each axis's values once, then per unit the index of its value on each
 * axis, its trial, whether its context held a revoked record (1/0) and its id.
 */
export interface UnitIndexData {
  /** The layout: `grid` (units by their unit keys) or `generic` (by cell and outcome). */
  kind: UnitIndexLayout;
  /** Units by their unit keys (`grid`): cells carry k/n unsafe with Wilson intervals, units their trial and exposure. */
  keyed: boolean;
  dims: string[];
  cellDims: string[];
  /** Per axis, its values in first-seen order. */
  values: Record<string, string[]>;
  /** Per unit: the value index on each axis (in `dims` order), then trial, then exposed. */
  rows: number[][];
  /** Per unit, its id (the same position as `rows`). */
  ids: string[];
}

/** The index and where each unit's line is, for lazy transcript pages. */
export interface UnitIndex {
  data: UnitIndexData;
  /** The JSONL file the units were read from. */
  file: string;
  /** Per unit: byte offset and length of its (last) line, and its 1-based line number. */
  spans: { offset: number; length: number; line: number }[];
}

/** The outcome of a grid unit record: an error, else unsafe, else a parse failure, else safe. */
export function outcomeOf(record: Pick<UnitRecord, 'status' | 'scores'>): Outcome {
  if (record.status === 'error') return 'error';
  if (record.scores.unsafe === true) return 'unsafe';
  return record.scores.parseFailure ? 'parse failure' : 'safe';
}

const CHUNK_BYTES = 1 << 20;

/** Each complete line of `path` with its byte offset, length and 1-based number (a torn last line is left out). */
export function* linesWithOffsets(
  path: string,
): Generator<{ text: string; offset: number; length: number; line: number }> {
  const file = openSync(path, 'r');
  try {
    const chunk = Buffer.alloc(CHUNK_BYTES);
    let pending = Buffer.alloc(0);
    let base = 0;
    let line = 0;
    for (;;) {
      const read = readSync(file, chunk, 0, CHUNK_BYTES, null);
      if (read === 0) return;
      const bytes = pending.length === 0 ? chunk.subarray(0, read) : Buffer.concat([pending, chunk.subarray(0, read)]);
      let start = 0;
      for (let end = bytes.indexOf(0x0a, start); end >= 0; end = bytes.indexOf(0x0a, start)) {
        line += 1;
        yield { text: bytes.toString('utf8', start, end), offset: base + start, length: end - start, line };
        start = end + 1;
      }
      base += start;
      pending = Buffer.from(bytes.subarray(start));
    }
  } finally {
    closeSync(file);
  }
}

/** Reads one line back by its span. */
export function readSpan(path: string, span: { offset: number; length: number }): string {
  const file = openSync(path, 'r');
  try {
    const buffer = Buffer.alloc(span.length);
    readSync(file, buffer, 0, span.length, span.offset);
    return buffer.toString('utf8');
  } finally {
    closeSync(file);
  }
}

/** The JSONL file holding a run's units: `records.jsonl`, else `<experiment>.jsonl`; null when neither exists. */
export function unitFileOf(runDir: string, experiment: string): string | null {
  for (const name of ['records.jsonl', `${experiment}.jsonl`])
    if (existsSync(join(runDir, name))) return join(runDir, name);
  return null;
}

/** A unit id and outcome of a non-grid line (a suite line `{unit, cell, record}` or a follow-up record). */
function genericUnit(row: Record<string, unknown>): { id: string; cell: string; outcome: Outcome } {
  const record = (typeof row.record === 'object' && row.record !== null ? row.record : row) as Record<string, unknown>;
  const id = String(row.unit ?? row.unitId ?? row.id ?? '?');
  const cell = String(row.cell ?? id.split('/').slice(0, -1).join('/'));
  const failed = record.status === 'error' || record.error !== undefined;
  const scores = record.scores as { unsafe?: boolean | null; parseFailure?: boolean } | undefined;
  // A line without scores (a suite's own verdicts, e.g. integrity) is only ok or an error here.
  const outcome: Outcome = failed
    ? 'error'
    : scores === undefined
      ? 'ok'
      : scores.unsafe === true
        ? 'unsafe'
        : scores.parseFailure
          ? 'parse failure'
          : 'safe';
  return { id, cell, outcome };
}

/** How a run's units are indexed (its kind's `viewer.index`, analysis/run-kinds). */
export type UnitIndexLayout = 'grid' | 'generic';

/** One unit line's id and its cells: the value index on each dim, then trial, then exposed. */
type UnitOf = (
  row: Record<string, unknown>,
  code: (dim: string, value: string) => number,
) => {
  id: string;
  cells: number[];
};

/** A grid unit by its unit key (model, system, mode, arm, axes, scenario) and outcome, with its trial and exposure. */
const gridUnit: UnitOf = (row, code) => {
  const record = row as unknown as UnitRecord;
  const { key } = record;
  const fields: Record<string, string> = {
    model: key.model,
    system: key.system,
    mode: key.mode,
    arm: key.arm,
    ...Object.fromEntries(GRID_AXIS_DIMS.map((id) => [id, axisOn(key, id) ? 'on' : 'off'])),
    scenario: key.scenario,
    outcome: outcomeOf(record),
  };
  return {
    id: record.unitId,
    cells: [...GRID_DIMS.map((d) => code(d, fields[d]!)), key.trial, record.context?.exposed ? 1 : 0],
  };
};

/** Any other unit by its cell and outcome. */
const genericCells: UnitOf = (row, code) => {
  const unit = genericUnit(row);
  return { id: unit.id, cells: [code('cell', unit.cell), code('outcome', unit.outcome), 0, 0] };
};

/** The layouts: the dims a unit is filtered by, the dims a cell groups by, and how a line becomes a unit. */
const LAYOUTS: Readonly<
  Record<UnitIndexLayout, { dims: readonly string[]; cellDims: readonly string[]; keyed: boolean; unitOf: UnitOf }>
> = {
  grid: { dims: GRID_DIMS, cellDims: GRID_CELL_DIMS, keyed: true, unitOf: gridUnit },
  generic: { dims: GENERIC_DIMS, cellDims: ['cell'], keyed: false, unitOf: genericCells },
};

/** Streams a run's unit file into the index (a grid run by its unit keys, any other by `genericUnit`). */
export function indexUnits(file: string, kind: UnitIndexLayout): UnitIndex {
  const layout = LAYOUTS[kind];
  const dims: string[] = [...layout.dims];
  const values: Record<string, string[]> = Object.fromEntries(dims.map((d) => [d, []]));
  const lookup = new Map<string, Map<string, number>>(dims.map((d) => [d, new Map()]));
  const code = (dim: string, value: string) => {
    const seen = lookup.get(dim)!;
    let index = seen.get(value);
    if (index === undefined) {
      index = values[dim]!.push(value) - 1;
      seen.set(value, index);
    }
    return index;
  };
  const position = new Map<string, number>();
  const rows: number[][] = [];
  const ids: string[] = [];
  const spans: UnitIndex['spans'] = [];
  for (const { text, offset, length, line } of linesWithOffsets(file)) {
    if (text.trim() === '') continue;
    const { id, cells } = layout.unitOf(JSON.parse(text) as Record<string, unknown>, code);
    const at = position.get(id);
    const span = { offset, length, line };
    if (at === undefined) {
      position.set(id, rows.push(cells) - 1);
      ids.push(id);
      spans.push(span);
    } else {
      rows[at] = cells;
      spans[at] = span;
    }
  }
  const cellDims = [...layout.cellDims];
  return { data: { kind, keyed: layout.keyed, dims, cellDims, values, rows, ids }, file, spans };
}
