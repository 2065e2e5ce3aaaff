// The three text renderers (Markdown, long CSV, LaTeX) on a constructed table: cell text, escaping, sim labels.
import { describe, expect, it } from 'vitest';
import type { PaperTable } from './paper-table.js';
import { proportionCell } from './table-cells.js';
import { CSV_COLUMNS, renderCsv } from './render-csv.js';
import { escapeLatex, renderLatex } from './render-latex.js';
import { POEM_COUNTING_RULE } from './forged-reasoning/forged-reasoning-scoring.js';
import { formatCell, renderMarkdown } from './render-markdown.js';

const table: PaperTable = {
  id: '15',
  title: 'Propagation — sim (simulated)',
  rows: ['shared, default', 'zep'],
  columns: ['executor unsafe', 'reviewer unsafe | poisoned', 'mean unsafe roles'],
  cells: [
    proportionCell('shared, default', 'executor unsafe', { k: 354, n: 810 }, 'model-dependent'),
    proportionCell('shared, default', 'reviewer unsafe | poisoned', { k: 0, n: 0 }, 'model-dependent'),
    {
      row: 'shared, default',
      column: 'mean unsafe roles',
      value: 1068 / 810,
      dependence: 'model-dependent',
      status: 'ok',
    },
    {
      row: 'zep',
      column: 'executor unsafe',
      dependence: 'model-dependent',
      status: 'n/a',
      reason: 'natural only, 100% & $5_x',
    },
  ],
  simulated: true,
  runs: ['run_a'],
  notes: ['sim: built from simulated runs.'],
};

/** Splits one CSV line into fields (RFC 4180 quoting), enough for the lines csv-stringify writes here. */
function csvFields(line: string): string[] {
  const fields: string[] = [];
  let field = '';
  let quoted = false;
  for (let i = 0; i < line.length; i++) {
    const char = line[i]!;
    if (quoted && char === '"' && line[i + 1] === '"') {
      field += '"';
      i++;
    } else if (char === '"') quoted = !quoted;
    else if (char === ',' && !quoted) {
      fields.push(field);
      field = '';
    } else field += char;
  }
  return [...fields, field];
}

describe('formatCell', () => {
  it('writes k/n, the rate and the Wilson interval in percent; 0/0, values, p-values and statuses as such', () => {
    expect(formatCell(table.cells[0])).toBe('354/810 (43.7%) [40.3, 47.1]');
    expect(formatCell(table.cells[1])).toBe('0/0');
    expect(formatCell(table.cells[2])).toBe('1.32');
    expect(formatCell(table.cells[3])).toBe('n/a');
    expect(
      formatCell({
        row: 'r',
        column: 'c',
        value: 0.629058837890625,
        isP: true,
        dependence: 'model-dependent',
        status: 'ok',
      }),
    ).toBe('p = 0.629');
    expect(
      formatCell({ row: 'r', column: 'c', value: 3.6e-12, isP: true, dependence: 'model-dependent', status: 'ok' }),
    ).toBe('p < 0.001');
    expect(formatCell(undefined)).toBe('');
  });
});

describe('renderMarkdown', () => {
  it('prints one pipe table with escaped labels, the notes and the n/a reasons, and says sim', () => {
    const markdown = renderMarkdown([table]);
    expect(markdown.split('\n')[0]).toMatch(/sim \(simulated\)$/);
    expect(markdown).toContain('## Table 15: Propagation — sim (simulated)');
    expect(markdown).toContain('|  | executor unsafe | reviewer unsafe \\| poisoned | mean unsafe roles |');
    expect(markdown).toContain('| shared, default | 354/810 (43.7%) [40.3, 47.1] | 0/0 | 1.32 |');
    expect(markdown).toContain('| zep | n/a |  |  |');
    expect(markdown).toContain('- n/a: natural only, 100% & $5_x (zep)');
    const rows = markdown.split('\n').filter((line) => line.startsWith('| '));
    for (const row of rows) expect(row.replace(/\\\|/g, '').split('|').length).toBe(table.columns.length + 3);
  });

  it("stamps each paper's id on its own tables and states each kind's counting rule, the PoEM one as its tables print it", () => {
    const preamble = (tables: PaperTable[]) => renderMarkdown(tables).split('\n## ')[0]!;
    const poemTable: PaperTable = { ...table, id: 'poem-I', title: 'PoEM Table I', notes: [] };
    const grid = preamble([table]);
    expect(grid).toContain("Row and column labels are the paper's (arXiv 2609.08258v1).");
    expect(grid).toContain('is not unsafe and stays in n ("unparsed")');
    expect(grid).not.toContain('2608.16032');
    const poem = preamble([poemTable]);
    expect(poem).toContain("Row and column labels are the PoEM paper's (arXiv 2608.16032v1).");
    expect(poem).not.toContain('2609.08258');
    // The rule the forged-reasoning scoring applies: a reply that named no action is out of n, not in it.
    expect(poem).not.toContain('stays in n');
    expect(poem).toContain(`PoEM tables (differential attack success, poem.md §6): ${POEM_COUNTING_RULE}.`);
    expect(POEM_COUNTING_RULE).toMatch(/named no action \(parse failure\).* left out of n/);
    const both = preamble([table, poemTable]);
    expect(both).toContain(
      "Row and column labels are the paper's (arXiv 2609.08258v1); the PoEM tables' are the PoEM paper's (arXiv 2608.16032v1).",
    );
    expect(both).toContain('stays in n ("unparsed")');
    expect(both).toContain(POEM_COUNTING_RULE);
  });
});

describe('renderCsv', () => {
  it('writes one line per cell in the long format, quoting labels with commas', () => {
    const lines = renderCsv([table]).trimEnd().split('\n');
    expect(lines[0]).toBe(CSV_COLUMNS.join(','));
    expect(lines).toHaveLength(1 + table.cells.length);
    const rows = lines
      .slice(1)
      .map(csvFields)
      .map((fields) => Object.fromEntries(CSV_COLUMNS.map((column, i) => [column, fields[i]])));
    expect(rows[0]).toMatchObject({
      table: '15',
      row: 'shared, default',
      column: 'executor unsafe',
      k: '354',
      n: '810',
      value: '',
      dependence: 'model-dependent',
      status: 'ok',
      simulated: 'true',
    });
    expect(Number(rows[0]!.rate)).toBeCloseTo(354 / 810, 12);
    expect(Number(rows[0]!.low)).toBeCloseTo(0.4028, 3);
    expect(rows[1]).toMatchObject({ column: 'reviewer unsafe | poisoned', k: '0', n: '0', rate: '' });
    expect(rows[2]).toMatchObject({ column: 'mean unsafe roles', k: '', value: String(1068 / 810) });
    expect(rows[3]).toMatchObject({ row: 'zep', status: 'n/a', reason: 'natural only, 100% & $5_x' });
  });
});

describe('renderLatex', () => {
  it('escapes every LaTeX special character', () => {
    expect(escapeLatex('a & b % c $ d # e _ f { g } h ~ i ^ j \\ k | l < m')).toBe(
      'a \\& b \\% c \\$ d \\# e \\_ f \\{ g \\} h \\textasciitilde{} i \\textasciicircum{} j \\textbackslash{} k \\textbar{} l \\textless{} m',
    );
    expect(escapeLatex('9 × 9 – §15')).toBe('9 $\\times$ 9 -- \\S{}15');
  });

  it('writes a booktabs tabular with one column per table column and the sim label in the caption', () => {
    const latex = renderLatex([table]);
    expect(latex).toContain('% sim (simulated)');
    expect(latex).toContain('\\caption{Table 15: Propagation --- sim (simulated)}');
    expect(latex).toContain('\\begin{tabular}{lrrr}');
    for (const rule of ['\\toprule', '\\midrule', '\\bottomrule']) expect(latex).toContain(rule);
    expect(latex).toContain(' & executor unsafe & reviewer unsafe \\textbar{} poisoned & mean unsafe roles \\\\');
    expect(latex).toContain('shared, default & 354/810 (43.7\\%) [40.3, 47.1] & 0/0 & 1.32 \\\\');
    expect(latex).toContain('n/a: natural only, 100\\% \\& \\$5\\_x (zep)');
    const body = latex.split('\n').filter((line) => line.endsWith('\\\\') && line.includes(' & '));
    for (const line of body) expect(line.replace(/\\&/g, '').split(' & ')).toHaveLength(table.columns.length + 1);
  });
});
