// The front-door scorecard (target × attack, cells with their detail) as Markdown and HTML, generated from the
// results file only, so the tables and the file cannot drift apart.
import { renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { readFrontdoorResults, type FrontdoorCell, type FrontdoorResults } from '../../pipeline/index.js';

/** A cell's short text: the verdict, the channels that fell when not all did, and how many fixtures fell. */
function cellText(cell: FrontdoorCell): string {
  if (cell.verdict !== 'surfaced')
    return cell.verdict === 'kept out' ? `kept out (${cell.fixtures.total} of ${cell.fixtures.total})` : 'n/a';
  const fell = Object.entries(cell.channels)
    .filter(([, verdict]) => verdict === 'surfaced')
    .map(([channel]) => channel);
  const which = fell.length === Object.keys(cell.channels).length ? '' : `${fell.join(' and ')} only, `;
  return `surfaced (${which}${cell.fixtures.fell} of ${cell.fixtures.total})`;
}

const attacksOf = (results: FrontdoorResults): string[] => [
  ...new Set(results.targets.flatMap((target) => target.cells.map((cell) => cell.attack))),
];
const markdownCell = (value: string) => value.replace(/\|/g, '\\|').replace(/\n/g, ' ');

/** The Markdown scorecard: one table, then every cell's detail. */
export function renderFrontdoorMarkdown(results: FrontdoorResults): string {
  const attacks = attacksOf(results);
  const lines = [
    '# Front-door memory attacks',
    '',
    `Generated from the results file of ${results.createdAt}. Channels: ${results.channels.join(', ')}. Variants: ${results.variants.join(', ')}. Attacker level 2 (write access to the memory API) on every cell.`,
    '',
    `| target | version | embedder | ${attacks.join(' | ')} |`,
    `|---|---|---|${attacks.map(() => '---').join('|')}|`,
  ];
  for (const target of results.targets) {
    const cells = attacks.map((attack) => {
      const cell = target.cells.find((candidate) => candidate.attack === attack);
      return cell ? cellText(cell) : '–';
    });
    lines.push(`| ${[target.id, target.version, target.embedder, ...cells].map(markdownCell).join(' | ')} |`);
  }
  lines.push('', '## Detail', '');
  for (const target of results.targets) {
    lines.push(`### ${target.id}`, '', markdownCell(target.summary), '');
    for (const cell of target.cells)
      lines.push(
        `- **${cell.attack}**: ${cellText(cell)} — channels ${Object.entries(cell.channels)
          .map(([c, v]) => `${c}: ${v}`)
          .join(', ')}; ${cell.trials} trials; ${markdownCell(cell.detail)}`,
      );
    lines.push('');
  }
  return `${lines.join('\n')}\n`;
}

const escape = (value: string) =>
  value.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
const CLASS: Record<FrontdoorCell['verdict'], string> = { surfaced: 'surfaced', 'kept out': 'kept-out', 'n/a': 'na' };

/** The HTML scorecard: the same table, each cell with its channels and detail underneath. */
export function renderFrontdoorHtml(results: FrontdoorResults): string {
  const attacks = attacksOf(results);
  const head = ['target', 'version', 'embedder', ...attacks].map((name) => `<th>${escape(name)}</th>`).join('');
  const rows = results.targets.map((target) => {
    const cells = attacks.map((attack) => {
      const cell = target.cells.find((candidate) => candidate.attack === attack);
      if (!cell) return '<td>–</td>';
      const channels = Object.entries(cell.channels)
        .map(([channel, verdict]) => `${escape(channel)}: ${escape(verdict)}`)
        .join('<br>');
      return `<td class="${CLASS[cell.verdict]}"><strong>${escape(cellText(cell))}</strong><div class="channels">${channels}</div><details><summary>detail</summary>${escape(cell.detail)}</details></td>`;
    });
    return `<tr><th scope="row">${escape(target.id)}</th><td>${escape(target.version)}</td><td>${escape(target.embedder)}</td>${cells.join('')}</tr>`;
  });
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Front-door memory attacks</title>
<style>body{font-family:system-ui,sans-serif;margin:1.5rem}table{border-collapse:collapse}td,th{border:1px solid #bbb;padding:.4rem;vertical-align:top;font-size:.85rem}.surfaced{background:#fde2e1}.kept-out{background:#e3f4e1}.na{background:#eee}.channels{color:#444;margin:.2rem 0}</style>
</head><body>
<h1>Front-door memory attacks</h1>
<p>Generated from the results file of ${escape(results.createdAt)}. Channels: ${escape(results.channels.join(', '))}. Variants: ${escape(results.variants.join(', '))}. Attacker level 2 (write access to the memory API) on every cell.</p>
<table><thead><tr>${head}</tr></thead><tbody>
${rows.join('\n')}
</tbody></table>
</body></html>
`;
}

/** Reads the results file and writes `scorecard.md` and `scorecard.html` beside it; returns their paths. */
export function writeFrontdoorScorecards(resultsPath: string, outDir: string): { markdown: string; html: string } {
  const results = readFrontdoorResults(resultsPath);
  const markdown = join(outDir, 'scorecard.md');
  const html = join(outDir, 'scorecard.html');
  for (const [path, text] of [
    [markdown, renderFrontdoorMarkdown(results)],
    [html, renderFrontdoorHtml(results)],
  ] as const) {
    writeFileSync(`${path}.${process.pid}.tmp`, text);
    renameSync(`${path}.${process.pid}.tmp`, path);
  }
  return { markdown, html };
}
