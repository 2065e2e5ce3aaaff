// One static, self-contained HTML page: tables, figures, the paper diff and run manifests (inline CSS and SVG, no scripts).
import type { RunManifest } from '../pipeline/index.js';
import { escapeMarkup } from './grid/figures.js';
import { simBannerText, simulatedParts } from './sim-parts.js';
import type { DiffCell, Figure, PaperDiff, PaperTable, PublishedCell, TableCell } from './paper-table.js';
import { BY_CONSTRUCTION_TEXT } from './forged-reasoning/poem-enforcement.js';
import { sourceNotes, tableName } from './render-markdown.js';
import { isPoemTable, POEM_PAPER, STALE_RETRIEVAL_PAPER } from './source-papers.js';
import { wilson } from './statistics.js';

/** What one report page shows. Every string in it is escaped; nothing is fetched when the page opens. */
export interface HtmlReportInput {
  /** Page title and heading. */
  title: string;
  /** Tables in display order. */
  tables: PaperTable[];
  /** Figures (analysis/grid/figures.ts), inlined as SVG. */
  figures: Figure[];
  /** The runs behind the tables. */
  manifests: RunManifest[];
  /** `report --paper`: our cells next to the published ones. */
  diff?: PaperDiff;
}

/** Element id of a table: `table-6`, `table-8-11`; a second table with the same id (the simulator apart) gets `-2`. */
export const tableAnchor = (id: string, occurrence = 1) =>
  `table-${id.replace(/[^A-Za-z0-9]+/g, '-')}${occurrence > 1 ? `-${occurrence}` : ''}`;

/** The anchor of every table, in order (duplicate ids numbered). */
function tableAnchors(tables: readonly PaperTable[]): string[] {
  const seen = new Map<string, number>();
  return tables.map((t) => {
    const occurrence = (seen.get(t.id) ?? 0) + 1;
    seen.set(t.id, occurrence);
    return tableAnchor(t.id, occurrence);
  });
}

const slug = (text: string) => text.replace(/[^A-Za-z0-9_-]+/g, '-');
const pct = (x: number) => `${(x * 100).toFixed(1)}%`;
const plain = (x: number) => (Number.isInteger(x) ? String(x) : String(Number(x.toFixed(Math.abs(x) >= 1 ? 2 : 3))));
const data = (name: string, value: string | number | boolean | null | undefined) =>
  value === undefined || value === null ? '' : ` data-${name}="${escapeMarkup(String(value))}"`;

const CSS = `
body{font:15px/1.45 system-ui,-apple-system,'Segoe UI',sans-serif;color:#111;margin:0 auto;max-width:1200px;padding:0 16px 48px}
h1{margin:24px 0 8px}h2{margin-top:40px;border-bottom:2px solid #ddd}h3,h4{margin:24px 0 8px}
.sim-banner{background:#fff3b0;border:3px solid #c79a00;padding:10px 14px;font-size:18px;font-weight:700}
.sim-tag{background:#c79a00;color:#fff;border-radius:3px;padding:0 5px;font-size:12px;vertical-align:middle}
nav ul{columns:3;padding-left:18px}
.table-wrap{overflow-x:auto}
table{border-collapse:collapse;margin:8px 0;font-size:13px}
caption{text-align:left;font-weight:700;padding:4px 0}
th,td{border:1px solid #ccc;padding:3px 6px;vertical-align:top}
thead th{background:#f2f2f2}tbody th{text-align:left;background:#fafafa}
td.cell{text-align:right;white-space:nowrap}
td.model-independent{background:#eef5fb}
td.na,td.missing,td.error{color:#777;text-align:center;white-space:normal}td.error{color:#a00}
.kn{font-variant-numeric:tabular-nums}.ci{color:#555;font-size:12px;display:block}
small{color:#666}
.notes{color:#444;font-size:13px}
.caveat{background:#fde2e2;border:2px solid #a00;padding:6px 10px;font-weight:600}
.counts{color:#555;font-size:11px;display:block}
td.by-construction{color:#05603a;text-align:center;white-space:normal}
figure{margin:16px 0}figure svg{max-width:100%;height:auto;border:1px solid #eee}
tr[data-verdict=differs] td{background:#fde2e2}tr[data-verdict=missing] td{background:#f4f4f4}
dl{display:grid;grid-template-columns:max-content 1fr;gap:2px 12px}dt{font-weight:600}dd{margin:0}
pre{background:#f6f6f6;padding:8px;overflow-x:auto;font-size:12px}
`;

/** The inner markup of one of our cells: k/n, rate and Wilson interval; a value; or n/a with its reason. */
function cellContent(cell: TableCell): string {
  if (cell.status === 'by-construction')
    return `${escapeMarkup(BY_CONSTRUCTION_TEXT)}${cell.n !== undefined ? `<small class="counts">n = ${cell.n}</small>` : ''}`;
  if (cell.status !== 'ok')
    return `${escapeMarkup(cell.status)}${cell.reason ? `<br><small>${escapeMarkup(cell.reason)}</small>` : ''}`;
  if (cell.k !== undefined && cell.n !== undefined) {
    if (cell.n === 0) return `<span class="kn">${cell.k}/0</span> <span class="rate">–</span>`;
    const rate = typeof cell.rate === 'number' ? cell.rate : cell.k / cell.n;
    const { low, high } =
      cell.low !== undefined && cell.high !== undefined ? { low: cell.low, high: cell.high } : wilson(cell.k, cell.n);
    return `<span class="kn">${cell.k}/${cell.n}</span> <span class="rate">${pct(rate)}</span><span class="ci">[${pct(low)}, ${pct(high)}]</span>${countsLine(cell)}`;
  }
  if (cell.value !== undefined)
    return cell.isP ? (cell.value < 0.001 ? 'p &lt; 0.001' : `p = ${plain(cell.value)}`) : plain(cell.value);
  return '–';
}

/** Under an unsafe cell with unparsed replies or errors: how many, and the second rate over parsed replies. */
function countsLine(cell: TableCell): string {
  if (!cell.parseFailures && !cell.errors) return '';
  const parsed = cell.amongParsed ? ` · unsafe | parsed ${cell.amongParsed.k}/${cell.amongParsed.n}` : '';
  return `<small class="counts">unparsed ${cell.parseFailures ?? 0} · errors ${cell.errors ?? 0}${parsed}</small>`;
}

function cellAttributes(cell: TableCell): string {
  const parsed = cell.amongParsed ? data('parsed-k', cell.amongParsed.k) + data('parsed-n', cell.amongParsed.n) : '';
  return (
    data('status', cell.status) +
    data('dependence', cell.dependence) +
    data('k', cell.k) +
    data('n', cell.n) +
    data('rate', cell.rate) +
    data('low', cell.low) +
    data('high', cell.high) +
    data('value', cell.value) +
    data('parse-failures', cell.parseFailures) +
    data('errors', cell.errors) +
    parsed +
    data('embedder', cell.embedder)
  );
}

function renderTable(table: PaperTable, anchor: string): string {
  const cells = new Map(table.cells.map((cell) => [`${cell.row}\u0000${cell.column}`, cell] as const));
  const body = table.rows.map((row) => {
    const tds = table.columns.map((column) => {
      const cell = cells.get(`${row}\u0000${column}`);
      const where = data('row', row) + data('column', column);
      if (!cell) return `<td class="cell missing"${where} data-status="missing">–</td>`;
      const kind = cell.status === 'ok' ? 'ok' : cell.status === 'n/a' ? 'na' : cell.status;
      return `<td class="cell ${kind} ${cell.dependence}"${where}${cellAttributes(cell)}${cell.reason ? ` title="${escapeMarkup(cell.reason)}"` : ''}>${cellContent(cell)}</td>`;
    });
    return `<tr${data('row', row)}><th scope="row">${escapeMarkup(row)}</th>${tds.join('')}</tr>`;
  });
  const sim = table.simulated ? ' <span class="sim-tag">sim (simulated)</span>' : '';
  const notes = [...table.notes, ...(table.runs.length > 0 ? [`Runs: ${table.runs.join(', ')}`] : [])];
  const caveats = (table.caveats ?? [])
    .map((caveat) => `<p class="caveat" role="note">Caveat: ${escapeMarkup(caveat)}</p>`)
    .join('\n');
  return `<section class="paper-table">
${caveats}<div class="table-wrap"><table id="${anchor}"${data('table', table.id)}${data('model-group', table.modelGroup)}${data('simulated', table.simulated)}${data('rows', table.rows.length)}${data('columns', table.columns.length)}>
<caption>${escapeMarkup(tableName(table))}: ${escapeMarkup(table.title)}${sim}</caption>
<thead><tr><th scope="col"></th>${table.columns.map((column) => `<th scope="col">${escapeMarkup(column)}</th>`).join('')}</tr></thead>
<tbody>${body.join('\n')}</tbody></table></div>
${notes.length > 0 ? `<ul class="notes">${notes.map((note) => `<li>${escapeMarkup(note)}</li>`).join('')}</ul>` : ''}
</section>`;
}

/** A published cell as printed: `358/810 (44.2%)`, `0.0%`, `1.32`, `p < 0.001`, or `–` with its note. */
function publishedContent(cell: PublishedCell): string {
  const parts: string[] = [];
  if (cell.k !== undefined && cell.n !== undefined) {
    parts.push(
      `<span class="kn">${cell.k}/${cell.n}</span>${cell.percent !== undefined ? ` (${plain(cell.percent)}%)` : ''}`,
    );
    if (cell.n > 0) {
      const { low, high } = wilson(cell.k, cell.n);
      parts.push(`<span class="ci">[${pct(low)}, ${pct(high)}]</span>`);
    }
  } else if (cell.percent !== undefined) parts.push(`${plain(cell.percent)}%`);
  if (cell.value !== undefined) parts.push(plain(cell.value));
  if (cell.p !== undefined) parts.push(`p ${cell.pRelation === '<' ? '&lt;' : '='} ${plain(cell.p)}`);
  if (parts.length === 0) parts.push('–');
  return `${parts.join(' ')}${cell.note ? `<br><small>${escapeMarkup(cell.note)}</small>` : ''} <small>[${escapeMarkup(cell.source)}]</small>`;
}

function diffRows(cells: DiffCell[], simulated: boolean, withOverlap: boolean): string {
  if (cells.length === 0) return '<p class="notes">None.</p>';
  const head = `<tr><th>table</th><th>row</th><th>column</th><th>paper</th><th>ours${simulated ? ' (sim)' : ''}</th>${withOverlap ? '<th>intervals overlap</th>' : ''}<th>verdict</th></tr>`;
  const rows = cells.map((cell) => {
    const overlap = cell.intervalsOverlap === null ? '–' : cell.intervalsOverlap ? 'yes' : 'no';
    const ours = cell.ours
      ? `${cellContent(cell.ours)}${cell.ours.embedder ? `<small class="counts">embedder ${escapeMarkup(cell.ours.embedder)}</small>` : ''}`
      : 'not covered by our runs';
    return `<tr${data('verdict', cell.verdict)}${data('table', cell.table)}${data('row', cell.row)}${data('column', cell.column)}><td>${escapeMarkup(cell.table)}</td><td>${escapeMarkup(cell.row)}</td><td>${escapeMarkup(cell.column)}</td><td>${publishedContent(cell.paper)}</td><td>${ours}</td>${withOverlap ? `<td>${overlap}</td>` : ''}<td>${escapeMarkup(cell.verdict)}</td></tr>`;
  });
  return `<div class="table-wrap"><table class="diff"><thead>${head}</thead><tbody>${rows.join('\n')}</tbody></table></div>`;
}

/** The paper a diff compares with: the PoEM paper when every cell is one of its tables, else the stale-retrieval one. */
const paperOf = (diff: PaperDiff) =>
  diff.cells.length > 0 && diff.cells.every((cell) => isPoemTable(cell.table)) ? POEM_PAPER : STALE_RETRIEVAL_PAPER;

function renderDiff(diff: PaperDiff): string {
  const independent = diff.cells.filter((cell) => cell.dependence === 'model-independent');
  const dependent = diff.cells.filter((cell) => cell.dependence === 'model-dependent');
  const { modelIndependent: mi, modelDependent: md } = diff.counts;
  const byVerdict = (verdict: DiffCell['verdict'], label: string) => {
    const cells = independent.filter((cell) => cell.verdict === verdict);
    return `<h4 id="diff-${slug(verdict)}">${label} (${cells.length})</h4>${diffRows(cells, diff.simulated, false)}`;
  };
  return `<section id="paper-diff"${data('simulated', diff.simulated)}><h2>Paper diff (${escapeMarkup(paperOf(diff))})${diff.simulated ? ' <span class="sim-tag">sim (simulated)</span>' : ''}</h2>
<section id="diff-model-independent"><h3>Model-independent cells: expected to match exactly</h3>
<p>Match: ${mi.match}; differs: ${mi.differs}; missing: ${mi.missing}; n/a (our system cannot express the cell): ${mi.notApplicable}. Our retrieval-only cells name their embedder.</p>
${byVerdict('differs', 'Differs')}${byVerdict('missing', 'Missing from our runs')}${byVerdict('n/a', 'n/a: not expressible by our system')}${byVerdict('match', 'Match')}</section>
<section id="diff-model-dependent"><h3>Model-dependent cells: side by side, never a reproduction</h3>
<p>Side by side: ${md.sideBySide} (Wilson intervals overlap in ${md.overlapping}); missing: ${md.missing}; n/a: ${md.notApplicable}.${diff.simulated ? ' Our side comes from the offline simulator (sim) and measures no model.' : ''}</p>
${diffRows(dependent, diff.simulated, true)}</section></section>`;
}

// Manifests hold no secrets by design (keys stay in the environment); redact defensively anyway.
const SECRET_KEY =
  /apikey|secret|password|passwd|authorization|credential|ledgerkey|accesstoken|authtoken|bearer|^token$/i;
function redact(value: unknown): unknown {
  if (typeof value === 'string') return value.replace(/(\/\/)[^/@\s]+@/g, '$1[redacted]@');
  if (Array.isArray(value)) return value.map(redact);
  if (value && typeof value === 'object')
    return Object.fromEntries(
      Object.entries(value).map(([key, inner]) => [
        key,
        SECRET_KEY.test(key.replace(/[-_]/g, '')) ? '[redacted]' : redact(inner),
      ]),
    );
  return value;
}

function renderManifest(manifest: RunManifest, id: string): string {
  const m = redact(manifest) as RunManifest;
  const item = (label: string, content: string) => `<dt>${escapeMarkup(label)}</dt><dd>${content}</dd>`;
  const models = m.models
    .map(
      (model) =>
        `${escapeMarkup(model.label)} <small>(${escapeMarkup(model.id)}, ${escapeMarkup(model.kind)}${model.baseURL ? `, ${escapeMarkup(model.baseURL)}` : ''})</small>`,
    )
    .join('<br>');
  const systems =
    m.systems.length > 0
      ? m.systems.map((s) => `${escapeMarkup(s.id)}: ${escapeMarkup(s.summary)}`).join('<br>')
      : escapeMarkup(m.spec.systems.join(', '));
  const packages =
    Object.entries(m.packages)
      .map(([name, version]) => `${escapeMarkup(name)}&nbsp;${escapeMarkup(version)}`)
      .join(', ') || '–';
  const counts = m.counts
    ? Object.entries(m.counts)
        .map(([key, value]) => `${escapeMarkup(key)} ${value}`)
        .join(', ')
    : '–';
  return `<article class="manifest" id="${id}"${data('run-id', m.runId)}${data('status', m.status)}${data('simulated', m.simulated)}>
<h3>${escapeMarkup(m.runId)}${m.simulated ? ' <span class="sim-tag">sim (simulated)</span>' : ''}</h3><dl>
${item('Run id', escapeMarkup(m.runId))}${item('Status', escapeMarkup(m.status))}${item('Simulated', m.simulated ? 'yes: sim (simulated)' : 'no')}
${item('Created / updated', `${escapeMarkup(m.createdAt)} / ${escapeMarkup(m.updatedAt)}`)}${item('Models', models)}${item('Systems', systems)}
${item('Embedder', `${escapeMarkup(m.embedder.id)} (${m.embedder.dimensions} dimensions)`)}${item('Extraction', `${escapeMarkup(m.extraction.id)}${m.extraction.simulated ? ' (sim)' : ''}`)}
${item('Scenarios', escapeMarkup(m.scenarios.map((s) => s.id).join(', ')))}${item('Spec hash', `<code>${escapeMarkup(m.specHash)}</code>`)}
${item('Revision', `<code>${escapeMarkup(m.revision.commit ?? 'unknown')}</code>${m.revision.dirty ? ' (dirty)' : m.revision.dirty === null ? ' (dirty: unknown)' : ''}`)}
${item('Runtime', `${escapeMarkup(m.runtime.node)} on ${escapeMarkup(m.runtime.platform)}`)}${item('Packages', packages)}${item('Counts', counts)}
${m.modelsOnProviderDefaultTemperature.length > 0 ? item('Provider-default temperature', escapeMarkup(m.modelsOnProviderDefaultTemperature.join(', '))) : ''}
${m.error ? item('Error', escapeMarkup(m.error.message)) : ''}</dl>
<details><summary>Resolved spec</summary><pre>${escapeMarkup(JSON.stringify(m.spec, null, 2))}</pre></details>
</article>`;
}

/** `decisions`, `extraction`, `decisions,extraction`, or `unknown` (no manifest says which). */
function simulatedPartsOf(manifests: readonly RunManifest[]): string {
  const parts = simulatedParts(manifests);
  const named = [...(parts.decisions ? ['decisions'] : []), ...(parts.extraction ? ['extraction'] : [])];
  return named.join(',') || 'unknown';
}

/**
 * Renders the whole report as one HTML document that opens offline: no scripts, no external URL, and a CSP
 * that forbids loading anything. A `sim (simulated)` banner heads the page when anything in it is simulated.
 *
 * @example writeFileSync('report.html', renderHtmlReport({ title: 'stalebench', tables, figures: figuresFor(tables), manifests }))
 */
export function renderHtmlReport(input: HtmlReportInput): string {
  const { title, tables, figures, manifests, diff } = input;
  const simulated =
    tables.some((t) => t.simulated) ||
    figures.some((f) => f.simulated) ||
    manifests.some((m) => m.simulated) ||
    diff?.simulated === true;
  const simulatedTables = [...new Set(tables.filter((t) => t.simulated).map(tableName))];
  const notes = sourceNotes(tables);
  const anchors = tableAnchors(tables);
  const caveats = [...new Set(tables.flatMap((t) => t.caveats ?? []))];
  const runIds = new Set<string>();
  const runAnchors = manifests.map((manifest) => {
    let id = `run-${slug(manifest.runId)}`;
    while (runIds.has(id)) id += '-x';
    runIds.add(id);
    return id;
  });
  const links = [
    ...tables.map(
      (t, i) =>
        `<li><a href="#${anchors[i]}">${escapeMarkup(tableName(t))}${t.modelGroup === 'sim' ? ' (sim apart)' : ''}</a></li>`,
    ),
    ...figures.map(
      (f) => `<li><a href="#figure-${escapeMarkup(slug(f.id))}">Figure: ${escapeMarkup(f.title)}</a></li>`,
    ),
    ...(diff ? ['<li><a href="#paper-diff">Paper diff</a></li>'] : []),
    ...(manifests.length > 0 ? ['<li><a href="#runs">Runs</a></li>'] : []),
  ];
  return `<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; img-src data:">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeMarkup(title)}${simulated ? ' (sim)' : ''}</title><style>${CSS}</style></head>
<body><header><h1>${escapeMarkup(title)}</h1>
${simulated ? `<p class="sim-banner" id="sim-banner" role="note"${data('simulated-parts', simulatedPartsOf(manifests))}>${escapeMarkup(simBannerText(simulatedParts(manifests)) ?? 'sim (simulated): results here come at least partly from the offline simulator (decision model or extraction) and are not measurements of any model.')}${simulatedTables.length > 0 ? ` Simulated: ${escapeMarkup(simulatedTables.join(', '))}.` : ''}</p>` : ''}
${caveats.map((caveat) => `<p class="caveat" role="note">Caveat: ${escapeMarkup(caveat)}</p>`).join('\n')}
<p class="notes">Proportions are k/n, the rate, and the Wilson 95 % interval; n/a cells give their reason; a dash is a cell our runs did not produce. Shaded cells are model-independent (retrieval only).${notes.grid ? ' Unsafe cells count as the paper does: n = completed trials, a reply that gives no action is not unsafe and stays in n (unparsed), errored trials are in no n; the defence table gives parse failures, errors and the rate over parsed replies as their own columns.' : ''}${notes.poem ? ` ${escapeMarkup(notes.poem)}` : ''}</p>
<nav><ul>${links.join('')}</ul></nav></header>
<main><section id="tables"><h2>Tables</h2>
${tables.map((t, i) => renderTable(t, anchors[i]!)).join('\n')}</section>
${figures.length > 0 ? `<section id="figures"><h2>Figures</h2>\n${figures.map((f) => `<figure id="figure-${escapeMarkup(slug(f.id))}"${data('figure', f.id)}${data('simulated', f.simulated)}>${f.svg}<figcaption>${escapeMarkup(f.title)}</figcaption></figure>`).join('\n')}</section>` : ''}
${diff ? renderDiff(diff) : ''}
${manifests.length > 0 ? `<section id="runs"><h2>Runs</h2>\n${manifests.map((m, i) => renderManifest(m, runAnchors[i]!)).join('\n')}</section>` : ''}
</main><footer class="notes"><p>Generated by stalebench. Static page: no scripts, nothing loaded from the network.</p></footer></body></html>
`;
}
