// Renders regenerated paper tables as LaTeX: one booktabs tabular per table, every string escaped.
import type { PaperTable } from './paper-table.js';
import { cellAt, cellReasons, formatCell, tableName } from './render-markdown.js';

const LATEX_ESCAPES: Readonly<Record<string, string>> = {
  '\\': '\\textbackslash{}',
  '&': '\\&',
  '%': '\\%',
  $: '\\$',
  '#': '\\#',
  _: '\\_',
  '{': '\\{',
  '}': '\\}',
  '~': '\\textasciitilde{}',
  '^': '\\textasciicircum{}',
  '<': '\\textless{}',
  '>': '\\textgreater{}',
  '|': '\\textbar{}',
  '–': '--',
  '—': '---',
  '×': '$\\times$',
  '≥': '$\\geq$',
  '≤': '$\\leq$',
  '−': '$-$',
  '§': '\\S{}',
  '·': '$\\cdot$',
};

/**
 * Escapes text for LaTeX body text: the ten special characters, `<`, `>`, `|`, and the few non-ASCII symbols our
 * labels use (dashes, ×, ≥, §), so the output compiles under pdflatex as well as under Unicode engines.
 *
 * @example escapeLatex('filter+prompt 44.2% [a_b]') // 'filter+prompt 44.2\\% [a\\_b]'
 */
export function escapeLatex(text: string): string {
  return text.replace(/[\\&%$#_{}~^<>|–—×≥≤−§·]/g, (char) => LATEX_ESCAPES[char] ?? char);
}

/** One table as a `table` float with a booktabs `tabular` (needs `\usepackage{booktabs}`), notes as a footnotesize block. */
function renderTableLatex(table: PaperTable): string {
  const row = (cells: string[]) => `${cells.map(escapeLatex).join(' & ')} \\\\`;
  const notes = [
    ...(table.caveats ?? []).map((caveat) => `CAVEAT: ${caveat}`),
    `Runs: ${table.runs.join(', ')}.`,
    ...table.notes,
    ...cellReasons(table),
  ];
  return [
    '\\begin{table}[ht]',
    '\\centering',
    `\\caption{${escapeLatex(tableName(table))}: ${escapeLatex(table.title)}${table.caveats?.length ? ' (see caveats)' : ''}}`,
    `\\begin{tabular}{l${'r'.repeat(table.columns.length)}}`,
    '\\toprule',
    row(['', ...table.columns]),
    '\\midrule',
    ...table.rows.map((label) =>
      row([label, ...table.columns.map((column) => formatCell(cellAt(table, label, column)))]),
    ),
    '\\bottomrule',
    '\\end{tabular}',
    `\\par\\smallskip{\\footnotesize ${notes.map(escapeLatex).join(' \\\\\n')}\\par}`,
    '\\end{table}',
  ].join('\n');
}

/** Every table as one LaTeX fragment to `\input`; a simulated report opens with a `sim` comment and says so in each caption. */
export function renderLatex(tables: readonly PaperTable[]): string {
  const head = ["% stalebench: the paper's tables regenerated from run directories (requires \\usepackage{booktabs})."];
  if (tables.some((t) => t.simulated))
    head.push('% sim (simulated): at least one run used the offline simulator; these tables measure no model.');
  for (const caveat of new Set(tables.flatMap((t) => t.caveats ?? [])))
    head.push(`% CAVEAT: ${caveat.replace(/\n/g, ' ')}`);
  return [...head, '', tables.map(renderTableLatex).join('\n\n'), ''].join('\n');
}
