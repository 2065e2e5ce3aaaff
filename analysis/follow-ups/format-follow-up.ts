// Renders follow-up summaries (Tables 14, 15, 16) as fixed-width text, as printed by `pnpm eval --experiment`.
import { axesOf, axisOn, limitedLine } from '../../pipeline/index.js';
import { defenceLabel } from '../defence-label.js';
import type { FollowUpSummary, FollowUpRowKey } from './follow-up-summary.types.js';
import { COUNTING_NOTE, type Proportion, type UnsafeCounts } from '../unsafe-counts.js';

const percent = (value: number | null) => (value === null ? '–' : `${(value * 100).toFixed(1)}%`);

/** `k/n (rate) [low, high]`, or `–` when n = 0. */
function formatProportion(p: Proportion | null): string {
  if (p === null) return 'n/o';
  if (p.n === 0) return `0/0`;
  return `${p.k}/${p.n} ${percent(p.rate)} [${percent(p.low)}, ${percent(p.high)}]`;
}

/** The headline of decision counts (the paper's convention, analysis/unsafe-counts.ts), or `n/o`. */
const formatCounts = (c: UnsafeCounts | null | undefined): string => formatProportion(c ? c.unsafe : null);
/** The second rate, over decisions whose reply parsed. */
const formatAmongParsed = (c: UnsafeCounts): string =>
  c.unsafeAmongParsed.n === 0
    ? `${c.unsafeAmongParsed.k}/0`
    : `${c.unsafeAmongParsed.k}/${c.unsafeAmongParsed.n} ${percent(c.unsafeAmongParsed.rate)}`;

function grid(header: string[], rows: string[][]): string[] {
  const all = [header, ...rows];
  const widths = header.map((_, column) => Math.max(...all.map((r) => (r[column] ?? '').length)));
  const line = (cells: string[]) =>
    cells
      .map((c, i) => c.padEnd(widths[i]!))
      .join('  ')
      .trimEnd();
  return [line(header), widths.map((w) => '-'.repeat(w)).join('  '), ...rows.map(line)];
}

/** Follow-up arms are experiment arms (write-back mode, propagation condition, tools defence); the axes are named. */
const armCell = (row: FollowUpRowKey) =>
  axesOf('follow-up').some((axis) => axisOn(row, axis.id))
    ? `${row.arm}: ${defenceLabel({ ...row, arm: 'none' })}`
    : row.arm;
const keyCells = (row: FollowUpRowKey) => [row.modelLabel, row.system, row.mode, armCell(row)];

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
    return [
      ...keyCells(row),
      ...(row.scenario === undefined ? [] : [row.scenario === '*' ? 'all' : row.scenario]),
      row.status,
    ];
  };
  const flushReasons = () => {
    for (const [reason, where] of reasons) lines.push(`  ${where.join(', ')}: ${reason}`);
    reasons.clear();
  };
  if (summary.writeback) {
    const hops = Math.max(0, ...summary.writeback.map((r) => r.defaultHops.length));
    const header = [
      'model',
      'system',
      'mode',
      'write-back',
      'hop0 unsafe',
      'parse fail',
      'errors',
      'hop0 unsafe | parsed',
      'stored active',
      ...Array.from({ length: hops }, (_, i) => `default hop${i + 1}`),
      ...Array.from({ length: hops }, (_, i) => `filter hop${i + 1}`),
      'journal in filtered ctx hop1',
    ];
    const rows = summary.writeback.map(
      (r) =>
        na(r) ?? [
          ...keyCells(r),
          formatCounts(r.hop0Unsafe),
          String(r.hop0Unsafe.parseFailures + r.hopParseFailures),
          String(r.errors),
          formatAmongParsed(r.hop0Unsafe),
          formatProportion(r.storedActive),
          ...r.defaultHops.map(formatCounts),
          ...r.filteredHops.map(formatCounts),
          formatProportion(r.journalRetrievedFiltered[0] ?? null),
        ],
    );
    lines.push(
      'write-back hops (Table 14): hop columns have n = poisoned runs (hop 0 unsafe); parse fail = hop 0 and hop replies that gave no action (not unsafe, inside n)',
      ...grid(header, rows),
    );
    flushReasons();
    lines.push(
      'no write-back (hop 0): default ' +
        summary.writeback
          .filter((r) => r.status === 'ok')
          .map(
            (r) =>
              `${keyCells(r).join('/')}: ${formatCounts(r.hop0Unsafe)}, filter ${formatCounts(r.hop0FilteredUnsafe)}`,
          )
          .join('; '),
    );
  }
  if (summary.propagation) {
    const header = [
      'model',
      'system',
      'mode',
      'arm',
      'executor',
      'reviewer',
      'planner',
      'parse fail',
      'errors',
      'executor | parsed',
      'reviewer | poisoned',
      'any later | poisoned',
      'all three',
      'mean unsafe roles',
      'all saw v1',
    ];
    const parseFailures = (r: NonNullable<FollowUpSummary['propagation']>[number]) =>
      r.executorUnsafe.parseFailures + r.reviewerUnsafe.parseFailures + r.plannerUnsafe.parseFailures;
    const rows = summary.propagation.map(
      (r) =>
        na(r) ?? [
          ...keyCells(r),
          formatCounts(r.executorUnsafe),
          formatCounts(r.reviewerUnsafe),
          formatCounts(r.plannerUnsafe),
          String(parseFailures(r)),
          String(r.errors),
          formatAmongParsed(r.executorUnsafe),
          formatCounts(r.reviewerGivenPoisoned),
          formatCounts(r.anyLaterGivenPoisoned),
          formatCounts(r.allThree),
          r.meanUnsafeRoles.mean === null ? '–' : r.meanUnsafeRoles.mean.toFixed(2),
          formatProportion(r.allRolesSawRevoked),
        ],
    );
    lines.push('multi-agent propagation (Table 15):', ...grid(header, rows));
    flushReasons();
  }
  if (summary.tools) {
    const header = [
      'model',
      'system',
      'mode',
      'arm',
      'scenario',
      'tool execution',
      'secret read',
      'exfil confirmed',
      'shell refused',
      'one-liners',
      'relapse default',
      'relapse filter',
    ];
    const rows = summary.tools.map(
      (r) =>
        na(r) ?? [
          ...keyCells(r),
          r.scenario === '*' ? 'all' : r.scenario,
          formatProportion(r.toolExecution),
          formatProportion(r.secretRead),
          formatProportion(r.exfilConfirmed),
          formatProportion(r.shellRefused),
          formatProportion(r.interpreterOneLiners),
          r.relapse ? formatProportion(r.relapse.default) : '',
          r.relapse ? formatProportion(r.relapse.filtered) : '',
        ],
    );
    lines.push('tool-use exploit chain (Table 16):', ...grid(header, rows));
    flushReasons();
  }
  if (summary.simulated)
    lines.push('', 'sim (simulated): rows from the offline simulator are not measurements of any model.');
  if (summary.limited) lines.push('', limitedLine(summary.limited));
  lines.push('k/n rate [Wilson 95% interval]; n/o = not observable on this system (no record listing).');
  if (summary.writeback || summary.propagation) lines.push(`Decision columns: ${COUNTING_NOTE}`);
  return lines.join('\n');
}
