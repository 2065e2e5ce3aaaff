// An agmi-style scorecard (one row per target, one column per edit) as Markdown and as a static HTML page.
import type { CellResult, IntegrityReport, TargetResult } from '../../pipeline/index.js';
import { verdictText } from './integrity-report.js';

const COLUMNS = ['T1', 'T2', 'T3', 'T4', 'T5', 'T6', 'T7', 'T8', 'T9'] as const;

/** The method's cell of an edit in a row (variants are listed in the full report), or undefined when not run. */
function cellOf(target: TargetResult, edit: (typeof COLUMNS)[number]): CellResult | undefined {
  return target.cells.find((cell) => cell.edit === edit && cell.variant === null);
}

/** One scorecard row as plain strings: label, version, configuration, T1 … T9, metric. */
function scorecardRow(target: TargetResult): string[] {
  const config = Object.entries(target.config)
    .map(([name, value]) => `${name}: ${value}`)
    .join('; ');
  const metric = target.metric.value === null ? 'not computed' : target.metric.value.toFixed(3);
  return [
    `${target.description.label}${POSITION_MARK[target.description.position ?? ''] ?? ''}`,
    target.version,
    config,
    ...COLUMNS.map((edit) => {
      const cell = cellOf(target, edit);
      return cell ? verdictText(cell) : '';
    }),
    metric,
  ];
}

/** The row label's mark of a declared position; a row that declares none is unmarked (the method's position). */
const POSITION_MARK: Record<string, string> = {
  alive: ' (process alive across the edit)',
  restarted: ' (restarted after the edit)',
};

const HEADER = ['target', 'version', 'configuration', ...COLUMNS, 'metric (T1–T8)'];

/** The scorecard as a Markdown table, with the date and what a blank cell means. */
export function scorecardMarkdown(report: IntegrityReport): string {
  const escape = (text: string) => text.replace(/\|/g, '\\|');
  return [
    `# At-rest integrity scorecard (${report.date})`,
    '',
    `| ${HEADER.join(' | ')} |`,
    `|${HEADER.map(() => '---').join('|')}|`,
    ...report.targets.map((target) => `| ${scorecardRow(target).map(escape).join(' | ')} |`),
    '',
    `A blank cell was not measured, never a pass. ${positionNote(report)}`,
    '',
  ].join('\n');
}

/** Which rows were measured in which position (integrity.md §2.3). */
function positionNote(report: IntegrityReport): string {
  if (!report.targets.some((target) => target.description.position === 'alive'))
    return 'Every row was measured with the system stopped during each edit.';
  return 'Rows marked "process alive across the edit" kept the system up across each edit and read and audited in the same process (integrity.md §2.3); every other row was measured with the system stopped during each edit.';
}

const html = (text: string): string =>
  text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
const CLASS: Record<string, string> = {
  accepted: 'acc',
  rejected: 'rej',
  reported: 'rep',
  'n/a': 'na',
  'not-evaluable': 'ne',
  error: 'err',
};

/** The scorecard as a self-contained HTML page (no scripts, no external resources). */
export function scorecardHtml(report: IntegrityReport): string {
  const rows = report.targets.map((target) => {
    const cells = scorecardRow(target).map((text, index) => {
      const edit =
        index >= 3 && index < 3 + COLUMNS.length
          ? cellOf(target, COLUMNS[index - 3] as (typeof COLUMNS)[number])
          : undefined;
      const title = edit?.reason ? ` title="${html(edit.reason)}"` : '';
      return `<td${edit ? ` class="${CLASS[edit.verdict] ?? ''}"` : ''}${title}>${html(text)}</td>`;
    });
    return `<tr>${cells.join('')}</tr>`;
  });
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>At-rest integrity scorecard</title>
<style>body{font-family:system-ui,sans-serif;margin:2rem}table{border-collapse:collapse}td,th{border:1px solid #bbb;padding:.3rem .5rem;font-size:.85rem;vertical-align:top}
.acc{background:#f8d0d0}.rej{background:#cfeccf}.rep{background:#e6f3c4}.na{color:#777}.ne,.err{background:#eee;color:#a00}</style></head>
<body><h1>At-rest integrity scorecard</h1><p>Measured ${html(report.date)} with <code>${html(report.command)}</code>. Hover a cell for the target's own reason.</p>
<table><thead><tr>${HEADER.map((name) => `<th>${html(name)}</th>`).join('')}</tr></thead><tbody>
${rows.join('\n')}
</tbody></table><p>accepted = served the edited store as genuine; rejected = refused on the read path; reported = named by the system (audit = partial); a blank cell was not measured.</p></body></html>
`;
}
