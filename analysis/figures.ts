// Standalone SVG figures (grouped bars with Wilson-interval whiskers) drawn by hand from PaperTable cells only.
import { InvalidInputError } from '../pipeline/core/errors.js';
import type { Figure, PaperTable, TableCell } from './paper-table.js';
import type { PaperTableId } from './tables/index.js';
import { wilson } from './statistics.js';

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
  ['14', writeBackHopsFigure],
  ['15', propagationByRoleFigure],
];

/**
 * Every figure whose source table is present (the first table with that id), in a fixed order.
 *
 * @example figuresFor(tables).map((f) => f.id) // ['unsafe-by-model', 'unsafe-by-system', 'exposure-by-system', ...]
 */
export function figuresFor(tables: PaperTable[]): Figure[] {
  return FIGURES.flatMap(([id, draw]) => {
    const table = tables.find((candidate) => candidate.id === id);
    return table ? [draw(table)] : [];
  });
}
