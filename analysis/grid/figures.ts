// Standalone SVG figures (grouped bars with Wilson-interval whiskers) drawn by hand from PaperTable cells only.
import { InvalidInputError } from '#core/errors.js';
import type { Figure, PaperTable, TableCell } from '../paper-table.js';
import type { PaperTableId } from '../tables/index.js';
import { wilson } from '../statistics.js';

// biome-ignore lint/suspicious/noControlCharactersInRegex: the control characters XML 1.0 forbids, dropped on purpose
const XML_FORBIDDEN = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]/g;

/** Escapes text for XML and HTML (text and quoted attributes); drops the control characters XML 1.0 forbids. */
export function escapeMarkup(text: string): string {
  return text
    .replace(XML_FORBIDDEN, '')
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&#39;');
}

interface Series {
  column: string;
  colour: string;
}

interface ReferenceLine {
  label: string;
  row: string;
  column: string;
}

interface ChartSpec {
  id: string;
  title: string;
  table: PaperTable;
  /** Candidate groups (x axis) in display order: table rows. */
  groups: string[];
  series: Series[];
  yLabel: string;
  /** Horizontal dashed lines at a cell's rate (Table 14's no-write-back baseline). */
  references?: ReferenceLine[];
}

type Resolved =
  | { plotted: true; rate: number; low: number | null; high: number | null; cell: TableCell }
  | { plotted: false; why: string; mark: string };

// Okabe–Ito: distinguishable under the common colour-vision deficiencies.
const PALETTE = ['#0072B2', '#D55E00', '#009E73', '#CC79A7', '#E69F00', '#56B4E9', '#000000', '#F0E442'];
const CHAR_WIDTH = 6.2; // rough advance of an 11 px sans-serif character, for layout only
const LABEL_LIMIT = 34;

/** A coordinate for the markup; a non-finite one is a bug, never `NaN` in the output. */
function num(value: number): string {
  if (!Number.isFinite(value)) throw new RangeError(`non-finite coordinate ${value}`);
  return String(Math.round(value * 100) / 100);
}

const percent = (value: number) => `${(value * 100).toFixed(1)}%`;
const shorten = (label: string) => (label.length > LABEL_LIMIT ? `${label.slice(0, LABEL_LIMIT - 1)}…` : label);

/** A cell as a bar, or why it is not one: n/a, error, missing and n = 0 are never drawn as 0. */
function resolve(cells: Map<string, TableCell>, row: string, column: string): Resolved {
  const cell = cells.get(`${row}\u0000${column}`);
  if (!cell) return { plotted: false, why: 'no cell', mark: '–' };
  if (cell.status !== 'ok')
    return { plotted: false, why: `${cell.status}${cell.reason ? ` (${cell.reason})` : ''}`, mark: cell.status };
  const counted = cell.k !== undefined && cell.n !== undefined;
  if (counted && cell.n === 0) return { plotted: false, why: 'n = 0', mark: 'n = 0' };
  const rate = typeof cell.rate === 'number' ? cell.rate : counted ? cell.k! / cell.n! : null;
  if (rate === null) return { plotted: false, why: 'not a proportion', mark: '–' };
  const interval =
    cell.low !== undefined && cell.high !== undefined
      ? { low: cell.low, high: cell.high }
      : counted
        ? wilson(cell.k!, cell.n!)
        : null;
  const valid = (x: number) => Number.isFinite(x) && x >= 0 && x <= 1;
  if (!valid(rate) || (interval && (!valid(interval.low) || !valid(interval.high))))
    return { plotted: false, why: 'invalid rate or interval', mark: '–' };
  return { plotted: true, rate, low: interval?.low ?? null, high: interval?.high ?? null, cell };
}

/** "n/a (reason): a, b (filter)" lines for everything left out, grouped by reason. */
function skipNotes(skipped: { row: string; column: string; why: string }[], seriesCount: number): string[] {
  const byWhy = new Map<string, Map<string, string[]>>();
  for (const { row, column, why } of skipped) {
    const rows = byWhy.get(why) ?? new Map<string, string[]>();
    rows.set(row, [...(rows.get(row) ?? []), column]);
    byWhy.set(why, rows);
  }
  return [...byWhy].map(([why, rows]) => {
    const parts = [...rows].map(([row, columns]) =>
      columns.length === seriesCount ? row : `${row} (${columns.join(', ')})`,
    );
    return `Not plotted, ${why}: ${parts.join('; ')}`;
  });
}

function wrap(text: string, width: number): string[] {
  const limit = Math.max(20, Math.floor(width / CHAR_WIDTH));
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(/\s+/)) {
    if (line && line.length + 1 + word.length > limit) {
      lines.push(line);
      line = word;
    } else line = line ? `${line} ${word}` : word;
  }
  if (line) lines.push(line);
  return lines;
}

/** Lays out and draws one grouped bar chart on a 0–100 % axis. */
function barChart(spec: ChartSpec): Figure {
  const { table, series } = spec;
  const cells = new Map(table.cells.map((cell) => [`${cell.row}\u0000${cell.column}`, cell] as const));
  const skipped: { row: string; column: string; why: string }[] = [];
  const groups: { label: string; bars: (Resolved & { column: string; colour: string })[] }[] = [];
  for (const row of spec.groups) {
    const bars = series.map((s) => ({ ...resolve(cells, row, s.column), column: s.column, colour: s.colour }));
    for (const bar of bars) if (!bar.plotted) skipped.push({ row, column: bar.column, why: bar.why });
    if (bars.some((bar) => bar.plotted)) groups.push({ label: row, bars });
  }
  const references = (spec.references ?? []).flatMap((ref) => {
    const resolved = resolve(cells, ref.row, ref.column);
    if (resolved.plotted) return [{ ...ref, rate: resolved.rate }];
    skipped.push({ row: ref.row, column: ref.column, why: resolved.why });
    return [];
  });
  const title = `${spec.title} (Table ${table.id})${table.simulated ? ' · sim (simulated)' : ''}`;

  // Groups share the plot width evenly; bars widen (up to 28 px) when there are few of them.
  const plotWidth = Math.max(360, groups.length * (series.length * 14 + 18));
  const slot = plotWidth / Math.max(1, groups.length);
  const barWidth = Math.min(28, Math.max(10, (slot - 18) / Math.max(1, series.length) - 2));
  const barsWidth = series.length * (barWidth + 2);
  const labels = groups.map((g) => shorten(g.label));
  const longest = Math.max(0, ...labels.map((label) => label.length)) * CHAR_WIDTH;
  const rotate = labels.some((label) => label.length * CHAR_WIDTH > slot - 4);
  // Rotated labels run down-left from their group's centre: leave room for the first one.
  const left = Math.max(64, rotate ? longest * 0.87 - slot / 2 + 8 : 0);
  const right =
    references.length > 0
      ? 16 + Math.max(...references.map((ref) => `${ref.label} 100.0%`.length)) * CHAR_WIDTH * 0.95
      : 24;
  const width = Math.max(left + plotWidth + right, title.length * 7.2 + 32);
  const legend: { x: number; y: number; series: Series }[] = [];
  let cursorX = left;
  let legendRows = series.length > 0 ? 1 : 0;
  for (const s of series) {
    const itemWidth = 28 + s.column.length * CHAR_WIDTH;
    if (cursorX + itemWidth > width - 16 && cursorX > left) {
      cursorX = left;
      legendRows++;
    }
    legend.push({ x: cursorX, y: 30 + legendRows * 16, series: s });
    cursorX += itemWidth;
  }
  const top = 40 + legendRows * 16 + 12;
  const plotHeight = 220;
  const labelDepth = rotate ? 14 + longest * 0.5 : 22;
  const notes = [
    `Bars: rate; whiskers: Wilson 95 % interval. Source: Table ${table.id}${table.runs.length > 0 ? `, runs ${table.runs.join(', ')}` : ''}.`,
    ...(groups.length === 0 ? ['No plottable cells.'] : []),
    ...skipNotes(skipped, series.length),
  ];
  const noteLines = notes.flatMap((note) => wrap(note, width - 32));
  const height = top + plotHeight + labelDepth + 16 + noteLines.length * 14 + 8;
  const y = (rate: number) => top + plotHeight * (1 - rate);

  const parts: string[] = [];
  const text = (x: number, yy: number, content: string, attributes = '') =>
    `<text x="${num(x)}" y="${num(yy)}"${attributes}>${escapeMarkup(content)}</text>`;
  parts.push(`<title id="figure-${escapeMarkup(spec.id)}-title">${escapeMarkup(title)}</title>`);
  parts.push(`<rect x="0" y="0" width="${num(width)}" height="${num(height)}" fill="#ffffff"/>`);
  parts.push(text(16, 22, title, ' font-size="13" font-weight="bold"'));
  for (const item of legend) {
    parts.push(`<rect x="${num(item.x)}" y="${num(item.y - 9)}" width="10" height="10" fill="${item.series.colour}"/>`);
    parts.push(text(item.x + 14, item.y, item.series.column));
  }
  for (const tick of [0, 0.2, 0.4, 0.6, 0.8, 1]) {
    parts.push(
      `<line x1="${num(left)}" x2="${num(left + plotWidth)}" y1="${num(y(tick))}" y2="${num(y(tick))}" stroke="${tick === 0 ? '#333333' : '#dddddd'}" stroke-width="1"/>`,
    );
    parts.push(text(left - 6, y(tick) + 4, `${Math.round(tick * 100)}%`, ' text-anchor="end"'));
  }
  parts.push(
    `<line x1="${num(left)}" x2="${num(left)}" y1="${num(top)}" y2="${num(top + plotHeight)}" stroke="#333333" stroke-width="1"/>`,
  );
  parts.push(
    text(
      18,
      top + plotHeight / 2,
      spec.yLabel,
      ` text-anchor="middle" transform="rotate(-90 18 ${num(top + plotHeight / 2)})"`,
    ),
  );
  groups.forEach((group, index) => {
    const groupLeft = left + index * slot + (slot - barsWidth) / 2;
    group.bars.forEach((bar, slot) => {
      const x = groupLeft + slot * (barWidth + 2);
      const cx = x + barWidth / 2;
      const where = ` data-row="${escapeMarkup(group.label)}" data-column="${escapeMarkup(bar.column)}"`;
      if (!bar.plotted) {
        parts.push(
          text(
            cx + 3,
            y(0) - 3,
            bar.mark,
            ` class="skipped"${where} font-size="8" fill="#888888" transform="rotate(-90 ${num(cx + 3)} ${num(y(0) - 3)})"`,
          ),
        );
        return;
      }
      const counts = bar.cell.k !== undefined && bar.cell.n !== undefined ? `${bar.cell.k}/${bar.cell.n} = ` : '';
      const interval =
        bar.low !== null && bar.high !== null ? ` (95 % CI ${percent(bar.low)}–${percent(bar.high)})` : '';
      // A 0 % bar keeps 1 px so a measured zero stays visible and distinct from a skipped cell.
      const barHeight = Math.max(1, plotHeight * bar.rate);
      parts.push(
        `<rect class="bar"${where} data-rate="${bar.rate.toFixed(4)}" x="${num(x)}" y="${num(y(0) - barHeight)}" width="${num(barWidth)}" height="${num(barHeight)}" fill="${bar.colour}"><title>${escapeMarkup(`${group.label} / ${bar.column}: ${counts}${percent(bar.rate)}${interval}`)}</title></rect>`,
      );
      if (bar.low !== null && bar.high !== null) {
        const [y1, y2] = [y(bar.high), y(bar.low)];
        parts.push(
          `<path class="whisker" d="M${num(cx)} ${num(y1)}V${num(y2)}M${num(cx - 3)} ${num(y1)}H${num(cx + 3)}M${num(cx - 3)} ${num(y2)}H${num(cx + 3)}" stroke="#222222" stroke-width="1" fill="none"/>`,
        );
      }
    });
    const labelX = groupLeft + barsWidth / 2;
    const labelY = top + plotHeight + 14;
    const attributes = rotate
      ? ` text-anchor="end" transform="rotate(-30 ${num(labelX)} ${num(labelY)})"`
      : ' text-anchor="middle"';
    parts.push(
      `<text class="group-label" x="${num(labelX)}" y="${num(labelY)}"${attributes}><title>${escapeMarkup(group.label)}</title>${escapeMarkup(labels[index]!)}</text>`,
    );
  });
  for (const ref of references) {
    parts.push(
      `<line class="reference" x1="${num(left)}" x2="${num(left + plotWidth)}" y1="${num(y(ref.rate))}" y2="${num(y(ref.rate))}" stroke="#555555" stroke-dasharray="4 3" stroke-width="1"/>`,
    );
    parts.push(text(left + plotWidth + 4, y(ref.rate) + 4, `${ref.label} ${percent(ref.rate)}`, ' font-size="10"'));
  }
  noteLines.forEach((line, index) => {
    parts.push(
      text(16, top + plotHeight + labelDepth + 16 + index * 14, line, ' class="note" font-size="10" fill="#444444"'),
    );
  });

  const svg = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${num(width)} ${num(height)}" width="${num(width)}" height="${num(height)}" role="img" aria-labelledby="figure-${escapeMarkup(spec.id)}-title" data-figure="${escapeMarkup(spec.id)}" font-family="system-ui, -apple-system, 'Segoe UI', sans-serif" font-size="11" fill="#111111">${parts.join('')}</svg>`;
  return { id: spec.id, title, svg, simulated: table.simulated };
}

function expectTable(table: PaperTable, id: PaperTableId, figure: string): void {
  if (table.id !== id)
    throw new InvalidInputError(`figure ${figure}`, [
      { path: 'table.id', message: `expected Table ${id}, got Table ${table.id}` },
    ]);
}

const coloured = (columns: string[]): Series[] =>
  columns.map((column, index) => ({ column, colour: PALETTE[index % PALETTE.length]! }));

/** (a) Unsafe-action rate per decision model and defence, from Table 7 (every column is a defence). */
export function unsafeByModelFigure(table: PaperTable): Figure {
  expectTable(table, '7', 'unsafe-by-model');
  return barChart({
    id: 'unsafe-by-model',
    title: 'Unsafe-action rate by decision model and defence',
    table,
    groups: table.rows,
    series: coloured(table.columns),
    yLabel: 'unsafe rate',
  });
}

/** (a) Unsafe-action rate per system and defence, from Table 6's defence columns (all but exposure and rank). */
export function unsafeBySystemFigure(table: PaperTable): Figure {
  expectTable(table, '6', 'unsafe-by-system');
  const defences = table.columns.filter((column) => column !== 'exposure' && column !== 'rank');
  return barChart({
    id: 'unsafe-by-system',
    title: 'Unsafe-action rate by system and defence',
    table,
    groups: table.rows,
    series: coloured(defences),
    yLabel: 'unsafe rate',
  });
}

/** (b) Exposure (scenario × model cells whose default read returned a revoked record) per system, from Table 6. */
export function exposureBySystemFigure(table: PaperTable): Figure {
  expectTable(table, '6', 'exposure-by-system');
  const series = table.columns.includes('exposure') ? coloured(['exposure']) : [];
  return barChart({
    id: 'exposure-by-system',
    title: 'Exposure to the revoked record by system',
    table,
    groups: table.rows,
    series,
    yLabel: 'exposure',
  });
}

/** (c) Unsafe rate per write-back hop under default and filtered reads, per write-back mode, from Table 14. */
export function writeBackHopsFigure(table: PaperTable): Figure {
  expectTable(table, '14', 'write-back-hops');
  const hops = table.columns.filter((column) => /^(default|filter) hop\s*\d+$/.test(column));
  const shades = {
    default: ['#FDAE61', '#F46D43', '#D73027', '#A50026'],
    filter: ['#ABD9E9', '#74ADD1', '#4575B4', '#313695'],
  };
  const series = hops.map((column) => {
    const palette = column.startsWith('default') ? shades.default : shades.filter;
    const index = hops.filter((other) => other.split(' ')[0] === column.split(' ')[0]).indexOf(column);
    return { column, colour: palette[Math.min(index, palette.length - 1)]! };
  });
  const modes = table.rows.filter((row) => table.cells.some((cell) => cell.row === row && hops.includes(cell.column)));
  const baseline = table.rows.includes('no write-back')
    ? (['default', 'filter'] as const)
        .filter((column) => table.columns.includes(column))
        .map((column) => ({ label: `no write-back, ${column}`, row: 'no write-back', column }))
    : [];
  return barChart({
    id: 'write-back-hops',
    title: 'Write-back hops: unsafe rate per hop, default and filtered reads',
    table,
    groups: modes,
    series,
    yLabel: 'unsafe rate',
    references: baseline,
  });
}

/** (d) Unsafe rate per role (executor, reviewer, planner) and condition, from Table 15. */
export function propagationByRoleFigure(table: PaperTable): Figure {
  expectTable(table, '15', 'propagation-by-role');
  const roles = table.columns.filter((column) => /^[a-z]+ unsafe$/.test(column));
  return barChart({
    id: 'propagation-by-role',
    title: 'Multi-agent propagation: unsafe rate by role',
    table,
    groups: table.rows,
    series: coloured(roles),
    yLabel: 'unsafe rate',
  });
}

const FIGURES: [PaperTableId, (table: PaperTable) => Figure][] = [
  ['7', unsafeByModelFigure],
  ['6', unsafeBySystemFigure],
  ['6', exposureBySystemFigure],
  ['defence', naturalVersusDirectFigure],
  ['defence', defenceTableFigure],
  ['9', guardCaughtFigure],
  ['14', writeBackHopsFigure],
  ['14', writeBackHopsLineFigure],
  ['15', propagationByRoleFigure],
];

/**
 * Every figure whose source table is present (the first table with that id), in a fixed order.
 *
 * @example figuresFor(tables).map((f) => f.id) // ['unsafe-by-model', 'unsafe-by-system', 'exposure-by-system', ...]
 */
export function figuresFor(tables: PaperTable[]): Figure[] {
  return FIGURES.flatMap(([id, draw]) => {
    // The defence figures read the grid's defence table (the follow-ups' has the same id); natural beside direct
    // only when the grid ran both modes.
    const table = tables.find(
      (candidate) => candidate.id === id && (id !== 'defence' || isGridDefenceTable(candidate)),
    );
    if (!table) return [];
    if (
      draw === naturalVersusDirectFigure &&
      !['direct', 'natural'].every((m) => table.rows.some((r) => defenceRow(r)?.mode === m))
    )
      return [];
    return [draw(table)];
  });
}

// ——— Figures over the defence table, Table 9 and Table 14 as lines (issue #30 item 3) ———

/** `graphiti, direct: store filter + stale guard` → its system, mode and defence; null for another row shape. */
function defenceRow(row: string): { system: string; mode: string; defence: string } | null {
  const match = /^(.*), (direct|natural): (.*)$/.exec(row);
  return match ? { system: match[1]!, mode: match[2]!, defence: match[3]! } : null;
}

/** The grid's defence table (rows `system, mode: defence`), not the follow-ups' table of the same id. */
const isGridDefenceTable = (table: PaperTable) =>
  table.id === 'defence' &&
  table.columns.includes('unsafe') &&
  table.columns.includes('revoked in context') &&
  table.rows.length > 0 &&
  table.rows.every((row) => defenceRow(row) !== null);

/** A cell the PoEM gate enforces by construction: not a measured rate, skipped with a short reason. */
const shortReason = (cell: TableCell): TableCell =>
  cell.status === 'by-construction' ? { ...cell, reason: 'enforced by the PoEM gate, not measured' } : cell;

/** A table of the same source, regrouped: each source cell moved to a new (row, column). */
function regrouped(
  source: PaperTable,
  move: (cell: TableCell) => { row: string; column: string } | null,
): { table: PaperTable; rows: string[]; columns: string[] } {
  const rows: string[] = [];
  const columns: string[] = [];
  const cells: TableCell[] = [];
  for (const cell of source.cells) {
    const to = move(cell);
    if (!to) continue;
    if (!rows.includes(to.row)) rows.push(to.row);
    if (!columns.includes(to.column)) columns.push(to.column);
    cells.push({ ...shortReason(cell), row: to.row, column: to.column });
  }
  return { table: { ...source, rows, columns, cells }, rows, columns };
}

/** Natural mode beside direct: the unsafe rate per system and defence, one bar per mode, from the defence table. */
function naturalVersusDirectFigure(table: PaperTable): Figure {
  if (!isGridDefenceTable(table))
    throw new InvalidInputError('figure natural-vs-direct', [
      { path: 'table', message: "expected the grid's defence table (rows 'system, mode: defence')" },
    ]);
  const { table: moved, rows } = regrouped(table, (cell) => {
    const row = defenceRow(cell.row);
    return row && cell.column === 'unsafe' ? { row: `${row.system}: ${row.defence}`, column: row.mode } : null;
  });
  const modes = ['direct', 'natural'].filter((mode) => moved.columns.includes(mode));
  return barChart({
    id: 'natural-vs-direct',
    title: 'Natural mode beside direct: unsafe rate per system and defence',
    table: moved,
    groups: rows,
    series: coloured(modes),
    yLabel: 'unsafe rate',
  });
}

/** The defence table as a chart: unsafe rate per (system, mode), one bar per arm × guard × PoEM, with intervals. */
function defenceTableFigure(table: PaperTable): Figure {
  if (!isGridDefenceTable(table))
    throw new InvalidInputError('figure defence-table', [
      { path: 'table', message: "expected the grid's defence table (rows 'system, mode: defence')" },
    ]);
  const {
    table: moved,
    rows,
    columns,
  } = regrouped(table, (cell) => {
    const row = defenceRow(cell.row);
    return row && cell.column === 'unsafe' ? { row: `${row.system}, ${row.mode}`, column: row.defence } : null;
  });
  return barChart({
    id: 'defence-table',
    title: 'Every defence: unsafe rate per system and mode, arm × stale guard × PoEM gate',
    table: moved,
    groups: rows,
    series: coloured(columns),
    yLabel: 'unsafe rate',
  });
}

/**
 * Table 9: per system, the revoked records the guard caught and the current ones it withheld, direct and indirect;
 * guard-v2's bars beside the reference's where the table has its columns (runs with a `guard-v2` arm).
 */
function guardCaughtFigure(table: PaperTable): Figure {
  expectTable(table, '9', 'guard-caught');
  const wanted = ['direct', 'indirect'].flatMap((suffix) => [
    `caught (${suffix})`,
    `current withheld (${suffix})`,
    `caught, guard-v2 (${suffix})`,
    `current withheld, guard-v2 (${suffix})`,
  ]);
  const withV2 = table.columns.some((column) => column.includes('guard-v2'));
  return barChart({
    id: 'guard-caught',
    title: `Stale-retrieval guard${withV2 ? ' and guard-v2' : ''}: revoked caught and current withheld per system`,
    table,
    groups: table.rows,
    series: coloured(wanted.filter((column) => table.columns.includes(column))),
    yLabel: 'share of records',
  });
}

/** (c) Table 14 as lines: the unsafe rate at each hop, one line per write-back mode and read, with intervals. */
function writeBackHopsLineFigure(table: PaperTable): Figure {
  expectTable(table, '14', 'write-back-hops-line');
  const hopOf = (column: string) => /^(default|filter) hop\s*(\d+)$/.exec(column);
  const hops = [...new Set(table.columns.flatMap((c) => (hopOf(c) ? [Number(hopOf(c)![2])] : [])))].sort(
    (a, b) => a - b,
  );
  const cells = new Map(table.cells.map((cell) => [`${cell.row}\u0000${cell.column}`, cell] as const));
  const lines: { label: string; colour: string; dash: boolean; points: { hop: number; r: Resolved }[] }[] = [];
  const skipped: { row: string; column: string; why: string }[] = [];
  let colour = 0;
  for (const row of table.rows) {
    const columnsOfRow = table.columns.filter((c) => hopOf(c) && cells.has(`${row}\u0000${c}`));
    if (columnsOfRow.length === 0) continue;
    const rowColour = PALETTE[colour++ % PALETTE.length]!;
    for (const read of ['default', 'filter'] as const) {
      const points = table.columns
        .filter((c) => hopOf(c)?.[1] === read)
        .map((column) => {
          const r = resolve(cells, row, column);
          if (!r.plotted) skipped.push({ row, column, why: r.why });
          return { hop: Number(hopOf(column)![2]), r, column };
        });
      if (points.length > 0)
        lines.push({ label: `${row}, ${read}`, colour: rowColour, dash: read === 'filter', points });
    }
  }
  const title = `Write-back hops: unsafe rate per hop (Table ${table.id})${table.simulated ? ' · sim (simulated)' : ''}`;
  const [left, top, plotWidth, plotHeight] = [64, 40 + Math.ceil(lines.length / 3) * 16 + 12, 420, 220];
  const width = Math.max(left + plotWidth + 32, title.length * 7.2 + 32);
  const notes = [
    `Points: rate; whiskers: Wilson 95 % interval; solid: default read, dashed: filtered read. Source: Table ${table.id}${table.runs.length > 0 ? `, runs ${table.runs.join(', ')}` : ''}.`,
    ...(lines.length === 0 ? ['No plottable cells.'] : []),
    ...skipNotes(skipped, 1),
  ].flatMap((note) => wrap(note, width - 32));
  const height = top + plotHeight + 40 + notes.length * 14 + 8;
  const x = (hop: number) =>
    left + (hops.length <= 1 ? plotWidth / 2 : ((hop - hops[0]!) / (hops.at(-1)! - hops[0]!)) * (plotWidth - 40) + 20);
  const y = (rate: number) => top + plotHeight * (1 - rate);
  const text = (tx: number, ty: number, content: string, attributes = '') =>
    `<text x="${num(tx)}" y="${num(ty)}"${attributes}>${escapeMarkup(content)}</text>`;
  const parts: string[] = [
    `<title id="figure-write-back-hops-line-title">${escapeMarkup(title)}</title>`,
    `<rect x="0" y="0" width="${num(width)}" height="${num(height)}" fill="#ffffff"/>`,
    text(16, 22, title, ' font-size="13" font-weight="bold"'),
  ];
  lines.forEach((line, i) => {
    const lx = left + (i % 3) * 150;
    const ly = 46 + Math.floor(i / 3) * 16;
    parts.push(
      `<line x1="${num(lx)}" x2="${num(lx + 18)}" y1="${num(ly - 4)}" y2="${num(ly - 4)}" stroke="${line.colour}" stroke-width="2"${line.dash ? ' stroke-dasharray="4 3"' : ''}/>`,
      text(lx + 22, ly, line.label),
    );
  });
  for (const tick of [0, 0.2, 0.4, 0.6, 0.8, 1]) {
    parts.push(
      `<line x1="${num(left)}" x2="${num(left + plotWidth)}" y1="${num(y(tick))}" y2="${num(y(tick))}" stroke="${tick === 0 ? '#333333' : '#dddddd'}" stroke-width="1"/>`,
      text(left - 6, y(tick) + 4, `${Math.round(tick * 100)}%`, ' text-anchor="end"'),
    );
  }
  for (const hop of hops) parts.push(text(x(hop), top + plotHeight + 16, `hop ${hop}`, ' text-anchor="middle"'));
  parts.push(
    text(
      18,
      top + plotHeight / 2,
      'unsafe rate',
      ` text-anchor="middle" transform="rotate(-90 18 ${num(top + plotHeight / 2)})"`,
    ),
  );
  for (const line of lines) {
    const drawn = line.points.filter((p) => p.r.plotted) as {
      hop: number;
      r: Extract<Resolved, { plotted: true }>;
      column: string;
    }[];
    if (drawn.length > 1)
      parts.push(
        `<polyline class="line" data-line="${escapeMarkup(line.label)}" points="${drawn.map((p) => `${num(x(p.hop))},${num(y(p.r.rate))}`).join(' ')}" fill="none" stroke="${line.colour}" stroke-width="2"${line.dash ? ' stroke-dasharray="4 3"' : ''}/>`,
      );
    for (const { hop, r, column } of drawn) {
      const [cx, cy] = [x(hop), y(r.rate)];
      const counts = r.cell.k !== undefined && r.cell.n !== undefined ? `${r.cell.k}/${r.cell.n} = ` : '';
      const interval = r.low !== null && r.high !== null ? ` (95 % CI ${percent(r.low)}–${percent(r.high)})` : '';
      parts.push(
        `<circle class="point" data-row="${escapeMarkup(r.cell.row)}" data-column="${escapeMarkup(column)}" data-rate="${r.rate.toFixed(4)}" cx="${num(cx)}" cy="${num(cy)}" r="3.5" fill="${line.colour}"><title>${escapeMarkup(`${line.label}, hop ${hop}: ${counts}${percent(r.rate)}${interval}`)}</title></circle>`,
      );
      if (r.low !== null && r.high !== null)
        parts.push(
          `<path class="whisker" d="M${num(cx)} ${num(y(r.high))}V${num(y(r.low))}M${num(cx - 3)} ${num(y(r.high))}H${num(cx + 3)}M${num(cx - 3)} ${num(y(r.low))}H${num(cx + 3)}" stroke="${line.colour}" stroke-width="1" fill="none"/>`,
        );
    }
  }
  notes.forEach((note, i) => {
    parts.push(text(16, top + plotHeight + 40 + i * 14, note, ' class="note" font-size="10" fill="#444444"'));
  });
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${num(width)} ${num(height)}" width="${num(width)}" height="${num(height)}" role="img" aria-labelledby="figure-write-back-hops-line-title" data-figure="write-back-hops-line" font-family="system-ui, -apple-system, 'Segoe UI', sans-serif" font-size="11" fill="#111111">${parts.join('')}</svg>`;
  return { id: 'write-back-hops-line', title, svg, simulated: table.simulated };
}
