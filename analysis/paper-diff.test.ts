// The paper diff: exact / per-model matches for model-independent cells, side by side for model-dependent ones.
import { describe, expect, it } from 'vitest';
import { diffAgainstPaper, formatPublished, PAPER_MODEL_COUNT, renderPaperDiffMarkdown } from './paper-diff.js';
import { loadPaperReference, type PaperCell, type PaperReference } from './paper-reference.js';
import type { PaperTable, TableCell } from './paper-table.js';
import { proportionCell } from './table-cells.js';

function reference(cells: Omit<PaperCell, 'source'>[]): PaperReference {
  const full = cells.map((cell) => ({ source: 'P' as const, ...cell }));
  const tables = new Map<string, never>();
  for (const cell of full)
    tables.set(cell.table, {
      table: cell.table,
      title: 't',
      paper: 'arXiv 2609.08258v1',
      spec: '§',
      cells: full.filter((c) => c.table === cell.table),
      file: 'x.json',
    } as never);
  return { tables, cells: full };
}
const ours = (id: PaperTable['id'], cells: TableCell[], simulated = false): PaperTable => ({
  id,
  title: 't',
  rows: [...new Set(cells.map((c) => c.row))],
  columns: [...new Set(cells.map((c) => c.column))],
  cells,
  simulated,
  runs: ['r'],
  notes: [],
});
const mi = 'model-independent' as const;
const md = 'model-dependent' as const;

describe('diffAgainstPaper: model-independent cells', () => {
  const paper = reference([
    { table: '6', row: 'graphiti', column: 'exposure', k: 81, n: 81, dependence: mi },
    { table: '6', row: 'mem0', column: 'exposure', k: 0, n: 81, dependence: mi },
    { table: '6', row: 'cognee', column: 'exposure', k: 0, n: 81, dependence: mi },
    { table: '6', row: 'graphiti', column: 'rank', value: 1, dependence: mi },
    { table: '6', row: 'mem0 (exp.)', column: 'rank', value: 1, dependence: mi },
    { table: '6', row: 'cognee', column: 'rank', note: 'printed "–"', dependence: mi },
    { table: '6', row: 'langmem', column: 'rank', note: 'printed "–"', dependence: mi },
    { table: '9', row: 'graphiti', column: 'caught (direct)', k: 18, n: 18, dependence: mi },
    { table: '9', row: 'cognee', column: 'current withheld (direct)', k: 0, n: 19, dependence: mi },
    { table: '9', row: 'zep', column: 'caught (indirect)', k: 4, n: 14, dependence: mi },
    { table: '13', row: 'expired returned', column: 'exposure', k: 81, n: 81, dependence: mi },
    { table: '10', row: 'total', column: 'calls', value: 49121, dependence: md },
  ]);
  const tables = [
    ours('6', [
      proportionCell('graphiti', 'exposure', { k: 9, n: 9 }, mi, { models: 1 }),
      proportionCell('mem0', 'exposure', { k: 0, n: 27 }, mi, { models: 3 }),
      // Without the model count the 0/9 cannot be mapped onto 0/81: same rate, but a different count.
      proportionCell('cognee', 'exposure', { k: 0, n: 9 }, mi),
      { row: 'graphiti', column: 'rank', value: 1, dependence: mi, status: 'ok' },
      { row: 'mem0 (exp.)', column: 'rank', value: 10 / 9, dependence: mi, status: 'ok', reason: 'range 1–2' },
      { row: 'cognee', column: 'rank', dependence: mi, status: 'n/a', reason: 'no revoked record returned' },
      { row: 'langmem', column: 'rank', value: 2, dependence: mi, status: 'ok' },
    ]),
    ours('9', [
      proportionCell('graphiti', 'caught (direct)', { k: 9, n: 9 }, mi),
      proportionCell('cognee', 'current withheld (direct)', { k: 0, n: 19 }, mi),
      proportionCell('zep', 'caught (indirect)', { k: 2, n: 14 }, mi),
    ]),
  ];
  const diff = diffAgainstPaper(tables, paper);
  const at = (table: string, row: string, column: string) =>
    diff.cells.find((c) => c.table === table && c.row === row && c.column === column)!;

  it("matches counts as printed, or per model where our count repeats over fewer models than the paper's nine", () => {
    expect(PAPER_MODEL_COUNT).toBe(9);
    expect(at('6', 'graphiti', 'exposure')).toMatchObject({
      verdict: 'match',
      basis: 'per-model',
      note: expect.stringMatching(/9\/9 per model; ours 9\/9 over 1 model/),
    });
    expect(at('6', 'mem0', 'exposure')).toMatchObject({ verdict: 'match', basis: 'per-model' });
    expect(at('6', 'cognee', 'exposure')).toMatchObject({ verdict: 'differs', sameRate: true });
    expect(at('9', 'cognee', 'current withheld (direct)')).toMatchObject({ verdict: 'match', basis: 'exact' });
  });

  it('calls a same-rate, different-denominator cell "differs" and explains Table 9\'s logged denominators', () => {
    expect(at('9', 'graphiti', 'caught (direct)')).toMatchObject({
      verdict: 'differs',
      sameRate: true,
      note: expect.stringMatching(/9\/9 vs 18\/18.*re-probed/),
    });
    expect(at('9', 'zep', 'caught (indirect)')).toMatchObject({ verdict: 'differs', sameRate: false });
  });

  it('compares plain values exactly and treats a printed "–" as matching only a cell with nothing to print', () => {
    expect(at('6', 'graphiti', 'rank')).toMatchObject({ verdict: 'match' });
    expect(at('6', 'mem0 (exp.)', 'rank')).toMatchObject({
      verdict: 'differs',
      note: 'range 1–2; ours from embedder unknown (not recorded)',
    });
    expect(at('6', 'cognee', 'rank')).toMatchObject({ verdict: 'match' });
    expect(at('6', 'langmem', 'rank')).toMatchObject({ verdict: 'differs' });
  });

  it('marks cells of tables we did not build as missing, skips Table 10, and counts the verdicts', () => {
    expect(at('13', 'expired returned', 'exposure')).toMatchObject({
      verdict: 'missing',
      ours: null,
      note: 'Table 13 not built from these runs',
    });
    expect(diff.cells.some((c) => c.table === '10')).toBe(false);
    expect(diff.counts.modelIndependent).toEqual({ match: 5, differs: 5, missing: 1, notApplicable: 0 });
    expect(diff.simulated).toBe(false);
  });
});

describe('diffAgainstPaper: model-dependent cells', () => {
  const paper = reference([
    { table: '7', row: 'GPT-5-nano', column: 'no defense', k: 100, n: 180, percent: 55.6, dependence: md },
    { table: '7', row: 'Grok-4', column: 'no defense', k: 94, n: 180, percent: 52.2, dependence: md },
    { table: '6', row: 'graphiti', column: 'filter', percent: 0, dependence: md },
    { table: '7', row: 'Kimi-K2.6', column: 'no defense', k: 74, n: 180, dependence: md },
    { table: '12', row: 'mem0 vs mem0 (exp.)', column: 'exact p', p: 0.001, pRelation: '<', dependence: md },
  ]);
  const tables = [
    ours(
      '7',
      [
        proportionCell('GPT-5-nano', 'no defense', { k: 5, n: 9 }, md),
        proportionCell('Grok-4', 'no defense', { k: 0, n: 90 }, md),
      ],
      true,
    ),
    ours('6', [proportionCell('graphiti', 'filter', { k: 0, n: 9 }, md)], true),
    ours(
      '12',
      [{ row: 'mem0 vs mem0 (exp.)', column: 'exact p', value: 3.6e-12, isP: true, dependence: md, status: 'ok' }],
      true,
    ),
  ];
  const diff = diffAgainstPaper(tables, paper);
  const at = (row: string) => diff.cells.find((c) => c.row === row)!;

  it("sets them side by side with both Wilson intervals' overlap, never as a match, and labels a simulated side sim", () => {
    expect(at('GPT-5-nano')).toMatchObject({
      verdict: 'side-by-side',
      intervalsOverlap: true,
      note: expect.stringMatching(/^sim/),
    });
    expect(at('Grok-4')).toMatchObject({ verdict: 'side-by-side', intervalsOverlap: false });
    expect(at('graphiti')).toMatchObject({ verdict: 'side-by-side', intervalsOverlap: null });
    expect(at('Kimi-K2.6')).toMatchObject({ verdict: 'missing', ours: null, note: 'no such cell in our runs' });
    expect(at('mem0 vs mem0 (exp.)')).toMatchObject({ verdict: 'side-by-side', intervalsOverlap: null });
    expect(diff.cells.every((c) => c.verdict !== 'match' && c.verdict !== 'differs')).toBe(true);
    expect(diff.counts.modelDependent).toEqual({ sideBySide: 4, overlapping: 1, missing: 1, notApplicable: 0 });
    expect(diff.simulated).toBe(true);
  });

  it('renders paper-diff.md with the sim label on our side and both cells', () => {
    const markdown = renderPaperDiffMarkdown(diff);
    expect(markdown.split('\n')[0]).toBe('# Paper diff (arXiv 2609.08258v1) — sim (simulated)');
    expect(markdown).toMatch(/not a reproduction of the paper/);
    expect(markdown).toContain(
      '| 7 | GPT-5-nano | no defense | 100/180 (55.6%) [48.3, 62.6] | 5/9 (55.6%) [26.7, 81.1] | yes | side by side (sim) |',
    );
    expect(markdown).toContain(
      '| 12 | mem0 vs mem0 (exp.) | exact p | p < 0.001 | p < 0.001 | – | side by side (sim) |',
    );
    expect(markdown).toContain('ours (sim) [Wilson 95 %]');
    expect(formatPublished({ percent: 0, source: 'P' })).toBe('0.0%');
    expect(formatPublished({ note: 'printed "–"', source: 'P' })).toBe('–');
  });
});

describe('diffAgainstPaper on the real reference data', () => {
  it('lists every published cell of the regenerated tables once, and none of Table 10', () => {
    const reference = loadPaperReference();
    const diff = diffAgainstPaper([], reference);
    const expected = reference.cells.filter((c) => c.table !== '10');
    expect(diff.cells).toHaveLength(expected.length);
    expect(new Set(diff.cells.map((c) => `${c.table}/${c.row}/${c.column}`)).size).toBe(expected.length);
    expect(diff.cells.every((c) => c.verdict === 'missing')).toBe(true);
    expect(diff.counts.modelIndependent.missing + diff.counts.modelDependent.missing).toBe(expected.length);
  });
});
