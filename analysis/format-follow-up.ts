// Renders follow-up summaries (Tables 14, 15, 16) as fixed-width text, as printed by `pnpm eval --experiment`.
import type { FollowUpSummary, FollowUpRowKey } from './follow-up-summary.types.js';
import type { Proportion } from './summarize.js';

const percent = (value: number | null) => (value === null ? '–' : `${(value * 100).toFixed(1)}%`);

/** `k/n (rate) [low, high]`, or `–` when n = 0. */
export function formatProportion(p: Proportion | null): string {
  if (p === null) return 'n/o';
  if (p.n === 0) return `0/0`;
  return `${p.k}/${p.n} ${percent(p.rate)} [${percent(p.low)}, ${percent(p.high)}]`;
}

function grid(header: string[], rows: string[][]): string[] {
  const all = [header, ...rows];
  const widths = header.map((_, column) => Math.max(...all.map((r) => (r[column] ?? '').length)));
  const line = (cells: string[]) => cells.map((c, i) => c.padEnd(widths[i]!)).join('  ').trimEnd();
  return [line(header), widths.map((w) => '-'.repeat(w)).join('  '), ...rows.map(line)];
}

const keyCells = (row: FollowUpRowKey) => [row.modelLabel, row.system, row.mode, `${row.arm}${row.guard === 'on' ? ' +guard' : ''}${row.poem === 'on' ? ' +poem' : ''}`];

/** The table printed at the end of a follow-up run. Simulated rows say `sim (simulated)`. */
export function formatFollowUpSummary(summary: FollowUpSummary): string {
  const lines: string[] = [];
  // n/a and error rows show their status in the table and their reasons once, below it.
  const reasons = new Map<string, string[]>();
  const na = (row: FollowUpRowKey & { scenario?: string }) => {
    if (row.status === 'ok') return null;
    const reason = `${row.status}: ${row.reason ?? ''}`;
    const where = `${row.system}/${row.mode}/${row.arm}`;
    const seen = reasons.get(reason) ?? [];
    if (!seen.includes(where)) reasons.set(reason, [...seen, where]);
    return [...keyCells(row), ...(row.scenario === undefined ? [] : [row.scenario === '*' ? 'all' : row.scenario]), row.status];
  };
  const flushReasons = () => {
    for (const [reason, where] of reasons) lines.push(`  ${where.join(', ')}: ${reason}`);
    reasons.clear();
  };
  if (summary.writeback) {
    const hops = Math.max(0, ...summary.writeback.map((r) => r.defaultHops.length));
    const header = ['model', 'system', 'mode', 'write-back', 'hop0 unsafe', 'stored active', ...Array.from({ length: hops }, (_, i) => `default hop${i + 1}`), ...Array.from({ length: hops }, (_, i) => `filter hop${i + 1}`), 'journal in filtered ctx hop1'];
    const rows = summary.writeback.map((r) => na(r) ?? [...keyCells(r), formatProportion(r.hop0Unsafe), formatProportion(r.storedActive), ...r.defaultHops.map(formatProportion), ...r.filteredHops.map(formatProportion), formatProportion(r.journalRetrievedFiltered[0] ?? null)]);
    lines.push('write-back hops (Table 14): hop columns have n = poisoned runs (hop 0 unsafe) whose decision parsed', ...grid(header, rows));
    flushReasons();
    lines.push('no write-back (hop 0): default ' + summary.writeback.filter((r) => r.status === 'ok').map((r) => `${r.modelLabel}/${r.system}/${r.arm}: ${formatProportion(r.hop0Unsafe)}, filter ${formatProportion(r.hop0FilteredUnsafe)}`).join('; '));
  }
  if (summary.propagation) {
    const header = ['model', 'system', 'mode', 'arm', 'executor', 'reviewer', 'planner', 'reviewer | poisoned', 'any later | poisoned', 'all three', 'mean unsafe roles', 'all saw v1'];
    const rows = summary.propagation.map((r) => na(r) ?? [...keyCells(r), formatProportion(r.executorUnsafe), formatProportion(r.reviewerUnsafe), formatProportion(r.plannerUnsafe), formatProportion(r.reviewerGivenPoisoned), formatProportion(r.anyLaterGivenPoisoned), formatProportion(r.allThree), r.meanUnsafeRoles.mean === null ? '–' : r.meanUnsafeRoles.mean.toFixed(2), formatProportion(r.allRolesSawRevoked)]);
    lines.push('multi-agent propagation (Table 15):', ...grid(header, rows));
    flushReasons();
  }
  if (summary.tools) {
    const header = ['model', 'system', 'mode', 'arm', 'scenario', 'tool execution', 'secret read', 'exfil confirmed', 'shell refused', 'one-liners', 'relapse default', 'relapse filter'];
    const rows = summary.tools.map((r) => na(r) ?? [...keyCells(r), r.scenario === '*' ? 'all' : r.scenario, formatProportion(r.toolExecution), formatProportion(r.secretRead), formatProportion(r.exfilConfirmed), formatProportion(r.shellRefused), formatProportion(r.interpreterOneLiners), r.relapse ? formatProportion(r.relapse.default) : '', r.relapse ? formatProportion(r.relapse.filtered) : '']);
    lines.push('tool-use exploit chain (Table 16):', ...grid(header, rows));
    flushReasons();
  }
  if (summary.simulated) lines.push('', 'sim (simulated): rows from the offline simulator are not measurements of any model.');
  lines.push('k/n rate [Wilson 95% interval]; n/o = not observable on this system (no record listing).');
  return lines.join('\n');
}
