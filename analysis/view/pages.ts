// The viewer's HTML: the run list, a run's page (its cells and units, filtered by the page script) and page frames.
import { findRunKind } from '../run-kinds/index.js';
import type { RunEntry } from './run-catalog.js';
import { escapeHtml } from './escape-html.js';
import { PAGE_SCRIPT } from './page-script.js';

export { escapeHtml } from './escape-html.js';

const STYLE = `body{font:15px/1.45 system-ui,-apple-system,'Segoe UI',sans-serif;color:#111;margin:0 auto;max-width:1400px;padding:0 16px 48px}
table{border-collapse:collapse;margin:8px 0;font-size:13px}th,td{border:1px solid #ccc;padding:3px 7px;text-align:left;vertical-align:top}
th{background:#f0f0f0}th.sortable{cursor:pointer}.kn{font-variant-numeric:tabular-nums}.ci{color:#555}
.notes{color:#444;font-size:13px}.warning{background:#fde2e2;border:2px solid #a00;padding:6px 10px;font-weight:600}
.sim-banner{background:#fff3b0;border:3px solid #c79a00;padding:6px 10px;font-weight:700}
pre{background:#f6f6f6;padding:8px;overflow-x:auto;font-size:12px;white-space:pre-wrap;word-break:break-word}
#filters label{margin-right:10px;font-size:13px;white-space:nowrap}.revoked{background:#fde2e2}.revoked-tag{color:#a00;font-weight:700}
.withheld{background:#eee;color:#555}.outcome-unsafe td{color:#a00}.state-intact{color:#060}.state-broken,.state-unreadable{color:#a00;font-weight:700}
.state-unverifiable,.state-unfinished{color:#a60}dl{display:grid;grid-template-columns:max-content 1fr;gap:2px 12px}dt{font-weight:600}dd{margin:0}`;

/** Whether runs of this kind have a figures page (`pnpm report` draws their tables): their kind's `viewer.figures`. */
export const drawsFigures = (experiment: string): boolean => findRunKind(experiment)?.viewer.figures === true;

/** A complete page: title, the shared style, the body, optional scripts (by relative URL). */
export function frame(title: string, body: string, scripts: readonly string[] = []): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; script-src 'self' 'unsafe-inline'; style-src 'unsafe-inline'; img-src 'self'">
<title>${escapeHtml(title)}</title><style>${STYLE}</style></head>
<body>${body}${scripts.map((src) => `<script src="${escapeHtml(src)}"></script>`).join('')}</body></html>
`;
}

/** The warning a run that does not verify opens with, naming its first bad line; '' for a run that verifies. */
export function verifyWarning(entry: RunEntry): string {
  if (entry.verify === 'broken' || entry.verify === 'unverifiable')
    return `<p class="warning" id="verify-warning">This run does not verify (pnpm verify-run: ${escapeHtml(entry.verify)}): ${escapeHtml(entry.firstProblem ?? 'no detail')}. What it shows may have been edited after it was written.</p>`;
  if (entry.verify === 'unfinished')
    return `<p class="warning" id="verify-warning">This run did not finish (status started): lines after the recorded heads are not anchored.</p>`;
  return '';
}

const cell = (value: string | number | null) => `<td>${escapeHtml(value === null ? '–' : String(value))}</td>`;

/**
 * The run list: one row per directory given, an unreadable one with its error; then a way to compare two runs: a form
 * picking A and B (`compare: 'form'`, the server's `/compare`), a link to the written page (`--static`), or nothing.
 */
export function runListPage(
  entries: readonly RunEntry[],
  { compare }: { compare: 'form' | 'compare.html' | null } = { compare: null },
): string {
  const rows = entries.map((e) => {
    if (e.readError !== null)
      return `<tr class="run-row unreadable"><td>${escapeHtml(e.dir)}</td><td colspan="8" class="state-unreadable">${escapeHtml(e.readError)}</td></tr>`;
    const verify = `${e.verify}${e.firstProblem ? `: ${e.firstProblem}` : ''}${e.signedBy ? `; signed (${e.signedBy}; pnpm verify-run --pubkey checks it)` : ''}`;
    return `<tr class="run-row"><td><a href="runs/${escapeHtml(e.slug)}/index.html">${escapeHtml(e.dir)}</a></td>${cell(e.experiment)}${cell(e.status)}${cell(e.models.join(', '))}${cell(e.spec)}${cell(e.done === null ? null : `${e.done}/${e.planned ?? '?'}`)}${cell(e.errors)}<td class="state-${escapeHtml(e.verify)}">${escapeHtml(verify)}</td></tr>`;
  });
  return frame(
    'stalebench runs',
    `<h1>Runs</h1><table id="run-table"><thead><tr><th>run</th><th>experiment</th><th>status</th><th>models</th><th>spec</th><th>done/planned</th><th>errors</th><th>verify-run</th></tr></thead><tbody>${rows.join('\n')}</tbody></table>
${compareSection(entries, compare)}
<p class="notes">Read-only: pnpm run view serves these directories and nothing else.</p>`,
  );
}

/** The run list's comparison: pick two runs (server) or the one written pair (`--static`). */
function compareSection(entries: readonly RunEntry[], compare: 'form' | 'compare.html' | null): string {
  const runs = entries.filter((e) => e.readError === null);
  if (compare === null || runs.length < 2) return '';
  if (compare === 'compare.html')
    return `<h2>Compare</h2><p><a id="compare-link" href="compare.html">${escapeHtml(runs[0]!.dir)} (A) and ${escapeHtml(runs[1]!.dir)} (B) side by side</a> (pnpm compare, cell by cell)</p>`;
  const select = (name: string, chosen: number) =>
    `<label>${name.toUpperCase()} <select name="${name}">${runs.map((e, i) => `<option value="${escapeHtml(e.slug)}"${i === chosen ? ' selected' : ''}>${escapeHtml(e.dir)}</option>`).join('')}</select></label>`;
  return `<h2>Compare two runs</h2><form id="compare-form" action="compare" method="get">${select('a', 0)} ${select('b', 1)} <button type="submit">side by side</button> (pnpm compare, cell by cell)</form>`;
}

/** A run's page: its facts, the verify warning, then filters, cells and units (filled in by the page script). */
export function runPage(entry: RunEntry): string {
  const banner =
    entry.simulated || entry.simBanner
      ? `<p class="sim-banner" id="sim-banner">${escapeHtml(entry.simBanner ?? 'sim (simulated): at least part of this run comes from the offline simulator.')}</p>`
      : '';
  return frame(
    `${entry.dir} · stalebench`,
    `<p><a href="../../index.html">all runs</a></p><h1>${escapeHtml(entry.dir)}</h1>${verifyWarning(entry)}${banner}
<dl><dt>experiment</dt><dd>${escapeHtml(entry.experiment)}</dd><dt>status</dt><dd>${escapeHtml(entry.status)}</dd><dt>models</dt><dd>${escapeHtml(entry.models.join(', '))}</dd><dt>spec</dt><dd>${escapeHtml(entry.spec)}</dd><dt>done/planned</dt><dd>${escapeHtml(`${entry.done ?? '?'}/${entry.planned ?? '?'}`)}</dd><dt>verify-run</dt><dd class="state-${escapeHtml(entry.verify)}">${escapeHtml(entry.verify)}</dd></dl>
${drawsFigures(entry.experiment) ? '<p><a id="figures-link" href="figures.html">figures</a> (natural beside direct, every defence, the guard, write-back hops)</p>' : ''}
<h2>Filters</h2><div id="filters"></div><h2>Cells</h2><div id="cells"></div><h2>Units</h2><div id="units"></div>
<script src="units.js"></script><script>${PAGE_SCRIPT.replace(/<\//g, '<\\/')}</script>`,
  );
}
