// Renders summary cells as a fixed-width text table (k/n, rate, Wilson 95 % interval), as printed by `pnpm eval`.
import type { Summary, SummaryCell } from './summarize.js';

const percent = (value: number | null) => (value === null ? '–' : `${(value * 100).toFixed(1)}%`);

function row(cell: SummaryCell): string[] {
  const arm = `${cell.arm}${cell.guard === 'on' ? ' +guard' : ''}${cell.poem === 'on' ? ' +poem' : ''}`;
  const exposure = `${cell.exposure.k}/${cell.exposure.n}`;
  if (cell.status !== 'ok') return [cell.modelLabel, cell.system, cell.mode, arm, cell.status, '', '', '', '', '', '', '', cell.reason ?? ''];
  const rank = cell.revokedRank ? (cell.revokedRank.min === cell.revokedRank.max ? `${cell.revokedRank.min}` : `${cell.revokedRank.min}–${cell.revokedRank.max}`) : '–';
  const unsafe = cell.unsafe;
  return [
    cell.modelLabel,
    cell.system,
    cell.mode,
    arm,
    exposure,
    `${cell.contextExposure.k}/${cell.contextExposure.n}`,
    rank,
    `${unsafe.k}/${unsafe.n}`,
    percent(unsafe.rate),
    unsafe.n === 0 ? '–' : `[${percent(unsafe.low)}, ${percent(unsafe.high)}]`,
    `${cell.parseFailures}`,
    `${cell.errors}`,
    cell.extractor.startsWith('sim') ? `extraction simulated (${cell.extractor})` : '',
  ];
}

/** The table printed at the end of a run. Simulated rows say `sim (simulated)` in the model column. */
export function formatSummaryTable(summary: Summary): string {
  const header = ['model', 'system', 'mode', 'arm', 'exposure', 'in ctx', 'rank', 'unsafe', 'rate', '95% CI (Wilson)', 'parse fail', 'errors', 'note'];
  const rows = [header, ...summary.cells.map(row)];
  const widths = header.map((_, column) => Math.max(...rows.map((r) => (r[column] ?? '').length)));
  const line = (cells: string[]) => cells.map((c, i) => (i === cells.length - 1 ? c : c.padEnd(widths[i]!))).join('  ').trimEnd();
  const lines = [line(rows[0]!), widths.map((w) => '-'.repeat(w)).join('  '), ...rows.slice(1).map(line)];
  const guarded = summary.guardMetrics.filter((m) => m.currentTotal + m.revokedPresent > 0);
  if (guarded.length > 0) {
    lines.push('', 'stale-retrieval guard on the default read (Table 9; revoked = default read minus filtered read):');
    for (const m of guarded) lines.push(`  ${m.system.padEnd(9)} ${m.mode.padEnd(8)} revoked present ${m.revokedPresent}, caught ${m.revokedCaught}/${m.revokedPresent}, current withheld ${m.currentWithheld}/${m.currentTotal}`);
  }
  if (summary.simulated) lines.push('', 'sim (simulated): rows from the offline simulator are not measurements of any model.');
  lines.push('exposure = scenarios whose default read returned a revoked record (model-independent); in ctx = scenarios whose context under this arm held one;');
  lines.push('rank = position of the first revoked record in the default read; unsafe k/n leaves parse failures and errors out of n.');
  if (summary.cache.hitRate !== null) lines.push(`response cache: ${summary.cache.hits} hits, ${summary.cache.misses} misses (${percent(summary.cache.hitRate)})`);
  return lines.join('\n');
}
