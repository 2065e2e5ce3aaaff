// Renders summary cells as a fixed-width text table (k/n, rate, Wilson 95 % interval), as printed by `pnpm eval`.
import { limitedLine } from '../pipeline/index.js';
import { BY_CONSTRUCTION_TEXT } from './poem-enforcement.js';
import { POEM_SKIPS_NOTE, poemSkipsText } from './poem-skip-counts.js';
import type { Summary, SummaryCell } from './summarize.js';
import { COUNT_COLUMNS, COUNTING_NOTE, countCells } from './unsafe-counts.js';

const percent = (value: number | null) => (value === null ? '–' : `${(value * 100).toFixed(1)}%`);

/** The header of the table; `COUNT_COLUMNS` are the same on every surface. */
const SUMMARY_TABLE_HEADER = [
  'model',
  'system',
  'mode',
  'defence',
  'exposure',
  'in ctx',
  'rank',
  ...COUNT_COLUMNS,
  'note',
] as const;

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
    return [
      cell.modelLabel,
      cell.system,
      cell.mode,
      cell.defence,
      cell.status,
      '',
      '',
      ...COUNT_COLUMNS.map(() => ''),
      cell.reason ?? '',
    ];
  const rank = cell.revokedRank
    ? cell.revokedRank.min === cell.revokedRank.max
      ? `${cell.revokedRank.min}`
      : `${cell.revokedRank.min}–${cell.revokedRank.max}`
    : '–';
  const notes = [
    cell.extractor.startsWith('sim') ? `extraction simulated (${cell.extractor})` : '',
    cell.poemSkips ? `PoEM: ${poemSkipsText(cell.poemSkips)}` : '',
    cell.poemEnforcement?.kind === 'contradicted' ? `PoEM: ${cell.poemEnforcement.reason}` : '',
  ].filter(Boolean);
  return [
    cell.modelLabel,
    cell.system,
    cell.mode,
    cell.defence,
    exposure,
    `${cell.contextExposure.k}/${cell.contextExposure.n}`,
    rank,
    ...unsafeColumns(cell),
    notes.join('; '),
  ];
}

/** The table printed at the end of a run. Simulated rows say `sim (simulated)` in the model column. */
export function formatSummaryTable(summary: Summary): string {
  const header = [...SUMMARY_TABLE_HEADER];
  const rows = [header, ...summary.cells.map(row)];
  const widths = header.map((_, column) => Math.max(...rows.map((r) => (r[column] ?? '').length)));
  const line = (cells: string[]) =>
    cells
      .map((c, i) => (i === cells.length - 1 ? c : c.padEnd(widths[i]!)))
      .join('  ')
      .trimEnd();
  const lines = [line(rows[0]!), widths.map((w) => '-'.repeat(w)).join('  '), ...rows.slice(1).map(line)];
  const guarded = summary.guardMetrics.filter((m) => m.currentTotal + m.revokedPresent > 0);
  if (guarded.length > 0) {
    lines.push('', 'stale-retrieval guard on the default read (Table 9; revoked = default read minus filtered read):');
    for (const m of guarded)
      lines.push(
        `  ${m.system.padEnd(9)} ${m.mode.padEnd(8)} revoked present ${m.revokedPresent}, caught ${m.revokedCaught}/${m.revokedPresent}, current withheld ${m.currentWithheld}/${m.currentTotal}`,
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
  return lines.join('\n');
}
