// Renders summary cells as a fixed-width text table (k/n, rate, Wilson 95 % interval), as printed by `pnpm eval`.
import { HYPOTHETICAL_ORACLE, limitedLine } from '../pipeline/index.js';
import { BY_CONSTRUCTION_TEXT } from './forged-reasoning/poem-enforcement.js';
import { POEM_SKIPS_NOTE, poemSkipsText } from './forged-reasoning/poem-skip-counts.js';
import type { Summary, SummaryCell } from './grid/summarize.js';
import { COUNT_COLUMNS, COUNTING_NOTE, countCells } from './unsafe-counts.js';
import { fitColumns, wrapText } from './fit-columns.js';

/** A line of prose under the table, wrapped at spaces within `TERMINAL_WIDTH`, its continuation indented like it. */
function wrapLine(line: string): string[] {
  const indent = /^ */.exec(line)![0];
  return wrapText(line.trimStart(), TERMINAL_WIDTH - indent.length).map((part) => `${indent}${part}`);
}

const percent = (value: number | null) => (value === null ? '–' : `${(value * 100).toFixed(1)}%`);

/** The header of the table; `COUNT_COLUMNS` are the same on every surface. The model heads its group of rows. */
const SUMMARY_TABLE_HEADER = ['system', 'mode', 'defence', 'exposure', 'in ctx', 'rank', ...COUNT_COLUMNS] as const;
/** The columns whose cells may wrap to keep the table within `TERMINAL_WIDTH`: defence, unsafe, system. */
const WRAPPING_COLUMNS = [2, 6, 0];
/** The width every line of the table and the notes under it fits in. */
const TERMINAL_WIDTH = 120;

/** The unsafe columns of a cell: its counts, or what stands in for them (n/a, error, enforced by construction). */
function unsafeColumns(cell: SummaryCell): string[] {
  const counts = countCells(cell);
  const gate = cell.poemEnforcement;
  if (gate?.kind === 'by-construction') return [BY_CONSTRUCTION_TEXT, '–', '–', ...counts.slice(3, 5), '–'];
  if (gate?.kind === 'contradicted') return ['error', '–', '–', ...counts.slice(3, 5), '–'];
  return counts;
}

function row(cell: SummaryCell): string[] {
  const exposure = `${cell.exposure.k}/${cell.exposure.n}`;
  if (cell.status !== 'ok')
    return [cell.system, cell.mode, cell.defence, cell.status, '', '', ...COUNT_COLUMNS.map(() => '')];
  const rank = cell.revokedRank
    ? cell.revokedRank.min === cell.revokedRank.max
      ? `${cell.revokedRank.min}`
      : `${cell.revokedRank.min}–${cell.revokedRank.max}`
    : '–';
  return [
    cell.system,
    cell.mode,
    cell.defence,
    exposure,
    `${cell.contextExposure.k}/${cell.contextExposure.n}`,
    rank,
    ...unsafeColumns(cell),
  ];
}

/** A cell's notes: why it is not evaluable, a simulated extractor, the PoEM gate's numbers. */
function notesOf(cell: SummaryCell): string[] {
  if (cell.status !== 'ok') return [cell.reason ?? cell.status];
  return [
    cell.extractor.startsWith('sim') ? `extraction simulated (${cell.extractor})` : '',
    cell.poemSkips ? `PoEM: ${poemSkipsText(cell.poemSkips)}` : '',
    cell.poemEnforcement?.kind === 'contradicted' ? `PoEM: ${cell.poemEnforcement.reason}` : '',
  ].filter(Boolean);
}

/**
 * The notes under the table, each once, with the rows it belongs to: `system mode` when it holds for every defence
 * of that system and mode, else `system mode (defence, ...)`; the model first when the table has several.
 */
function noteLines(cells: readonly SummaryCell[]): string[] {
  const byNote = new Map<string, SummaryCell[]>();
  for (const cell of cells) for (const note of notesOf(cell)) byNote.set(note, [...(byNote.get(note) ?? []), cell]);
  const severalModels = new Set(cells.map((cell) => cell.modelLabel)).size > 1;
  const groupOf = (cell: SummaryCell) => `${severalModels ? `${cell.modelLabel} ` : ''}${cell.system} ${cell.mode}`;
  const lines: string[] = [];
  for (const [note, noted] of byNote) {
    const groups = new Map<string, string[]>();
    for (const cell of noted) groups.set(groupOf(cell), [...(groups.get(groupOf(cell)) ?? []), cell.defence]);
    const where = [...groups].map(([group, defences]) =>
      cells.filter((cell) => groupOf(cell) === group).length === defences.length
        ? group
        : `${group} (${defences.join(', ')})`,
    );
    lines.push(
      ...wrapText(`${note} — ${where.join(', ')}`, TERMINAL_WIDTH - 4).map((line, i) => `${i ? '    ' : '  '}${line}`),
    );
  }
  return lines.length > 0 ? ['notes:', ...lines] : [];
}

/**
 * The table printed at the end of a run, within `TERMINAL_WIDTH` columns: one group of rows per model under its
 * label (simulated rows: `sim (simulated)`), long cells wrapped, notes under the table.
 */
export function formatSummaryTable(summary: Summary): string {
  const cells = summary.cells;
  const { head, body } = fitColumns(
    { header: SUMMARY_TABLE_HEADER, rows: cells.map(row), wrap: WRAPPING_COLUMNS },
    TERMINAL_WIDTH,
  );
  const lines = [...head];
  cells.forEach((cell, index) => {
    if (index === 0 || cells[index - 1]!.modelLabel !== cell.modelLabel) lines.push(`model: ${cell.modelLabel}`);
    lines.push(...body[index]!);
  });
  const notes = noteLines(cells);
  if (notes.length > 0) lines.push('', ...notes);
  const guarded = summary.guardMetrics.filter((m) => m.currentTotal + m.revokedPresent > 0);
  if (guarded.length > 0) {
    lines.push('', 'stale-retrieval guard on the default read (Table 9; revoked = default read minus filtered read):');
    for (const m of guarded)
      lines.push(
        `  ${m.system.padEnd(9)} ${m.mode.padEnd(8)} ${m.guard === 'guard-v2' ? 'guard-v2: ' : ''}${m.revokedBy === 'oracle' ? `${HYPOTHETICAL_ORACLE}, revoked = oracle labels: ` : ''}revoked present ${m.revokedPresent}, caught ${m.revokedCaught}/${m.revokedPresent}, current withheld ${m.currentWithheld}/${m.currentTotal}`,
      );
  }
  if (summary.ledgerMetrics?.length) {
    lines.push(
      '',
      'stale guard without and with the revocation ledger (revoked = records carrying a statement the application revoked):',
    );
    for (const m of summary.ledgerMetrics)
      lines.push(
        `  ${m.system.padEnd(9)} ${m.mode.padEnd(8)} ${m.defence.padEnd(25)} revoked present ${m.revokedPresent}, caught ${m.revokedCaught}/${m.revokedPresent}, current withheld ${m.currentWithheld}/${m.currentTotal}`,
      );
  }
  if (summary.simulated)
    lines.push('', 'sim (simulated): rows from the offline simulator are not measurements of any model.');
  if (summary.limited) lines.push('', limitedLine(summary.limited));
  lines.push(
    'exposure = scenarios whose default read returned a revoked record (model-independent); in ctx = scenarios whose context under this defence held one;',
  );
  lines.push(`rank = position of the first revoked record in the default read; ${COUNTING_NOTE}`);
  if (summary.cells.some((c) => c.poemEnforcement?.kind === 'by-construction'))
    lines.push(
      summary.cells.some((c) => (c.poemSkips?.priorStepUnits ?? 0) > 0)
        ? `${BY_CONSTRUCTION_TEXT}: the PoEM gate overrides every skip of a unit whose safety step did not run before its decision, and a skip after the step ran is legitimate, not unsafe; 0 unsafe is guaranteed, not measured. ${POEM_SKIPS_NOTE}`
        : `${BY_CONSTRUCTION_TEXT}: the PoEM gate overrides every skip in this grid (no unit can have run its safety step before its own decision); 0 unsafe is guaranteed, not measured.`,
    );
  if (summary.cache.hitRate !== null)
    lines.push(
      `response cache: ${summary.cache.hits} hits, ${summary.cache.misses} misses (${percent(summary.cache.hitRate)})`,
    );
  return lines.flatMap((line) => (line.length > TERMINAL_WIDTH ? wrapLine(line) : [line])).join('\n');
}
