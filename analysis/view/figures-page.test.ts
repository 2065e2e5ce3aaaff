// The figures of issue #30 item 3 from real (sim) runs: natural beside direct, the defence table, Table 9's caught /
// withheld-current and the write-back hops as lines; one mark per plotted cell, each with its interval, on the HTML
// report and in the viewer.
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { runEvalCli } from '../../pipeline/test-support/eval-cli.js';
import type { PaperTable, TableCell } from '../paper-table.js';
import { buildReport, main as report } from '../report-command.js';
import { createViewSite } from './view-site.js';

let root: string;
let grid: string;
let writeback: string;
let gridTables: PaperTable[];
let writebackTables: PaperTable[];

const evalRun = async (name: string, args: string[]) => {
  const out = join(root, name);
  const { code, stderr } = await runEvalCli([...args, '--model', 'sim', '--trials', '1', '--out', out], {});
  expect(code, stderr).toBe(0);
  return join(out, readdirSync(out)[0]!);
};

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'stalebench-figures-'));
  grid = await evalRun('grid', [
    ...['--systems', 'graphiti,mem0-exp', '--modes', 'direct,natural', '--arms', 'none,store-filter'],
    ...['--guard', 'off,on', '--poem', 'off,on'],
  ]);
  writeback = await evalRun('writeback', ['--experiment', 'writeback', '--systems', 'graphiti']);
  gridTables = (await buildReport([grid])).tables;
  writebackTables = (await buildReport([writeback])).tables;
}, 180_000);

/** The marks of one figure in a page: bars or points, with their cell and rate; and its whiskers. */
function marksOf(html: string, id: string) {
  const svg = new RegExp(`<svg [^>]*data-figure="${id}"[^>]*>(.*?)</svg>`, 's').exec(html)?.[1];
  expect(svg, id).toBeDefined();
  const marks = [
    ...svg!.matchAll(
      /<(?:rect class="bar"|circle class="point") data-row="([^"]*)" data-column="([^"]*)" data-rate="([^"]*)"/g,
    ),
  ].map((m) => ({ row: m[1]!, column: m[2]!, rate: Number(m[3]) }));
  return { marks, whiskers: svg!.match(/class="whisker"/g)?.length ?? 0 };
}

const plottable = (c: TableCell) => c.status === 'ok' && c.n !== undefined && c.n > 0;
const unescape = (s: string) =>
  s
    .replace(/&amp;/g, '&')
    .replace(/&#39;/g, "'")
    .replace(/&quot;/g, '"');

/** Every figure's expected marks: (row, column, rate) per plottable source cell, in the figure's own coordinates. */
function expected(tables: PaperTable[]) {
  const defence = tables.find((t) => t.id === 'defence' && t.rows.every((r) => /, (direct|natural): /.test(r)))!;
  const split = (row: string) => /^(.*), (direct|natural): (.*)$/.exec(row)!;
  const unsafe = defence.cells.filter((c) => c.column === 'unsafe' && plottable(c));
  const table9 = tables.find((t) => t.id === '9');
  const table14 = tables.find((t) => t.id === '14');
  return {
    'natural-vs-direct': unsafe.map((c) => ({
      row: `${split(c.row)[1]}: ${split(c.row)[3]}`,
      column: split(c.row)[2]!,
      rate: c.rate!,
    })),
    'defence-table': unsafe.map((c) => ({
      row: `${split(c.row)[1]}, ${split(c.row)[2]}`,
      column: split(c.row)[3]!,
      rate: c.rate!,
    })),
    'guard-caught': (table9?.cells ?? [])
      .filter((c) => /^(caught|current withheld) \((direct|indirect)\)$/.test(c.column) && plottable(c))
      .map((c) => ({ row: c.row, column: c.column, rate: c.rate! })),
    'write-back-hops-line': (table14?.cells ?? [])
      .filter((c) => /^(default|filter) hop\s*\d+$/.test(c.column) && plottable(c))
      .map((c) => ({ row: c.row, column: c.column, rate: c.rate! })),
  };
}

function expectFigures(html: string, want: Record<string, { row: string; column: string; rate: number }[]>) {
  for (const [id, cells] of Object.entries(want)) {
    expect(cells.length, id).toBeGreaterThan(0);
    const { marks, whiskers } = marksOf(html, id);
    const key = (m: { row: string; column: string }) => `${unescape(m.row)} | ${unescape(m.column)}`;
    // One mark per plotted cell, at the cell's rate, and one interval per mark.
    expect(marks.map(key).sort(), id).toEqual(cells.map(key).sort());
    for (const cell of cells)
      expect(marks.find((m) => key(m) === key(cell))!.rate, `${id} ${key(cell)}`).toBeCloseTo(cell.rate, 4);
    expect(whiskers, id).toBe(marks.length);
  }
}

describe('figures of issue #30 item 3', () => {
  it('the HTML report draws them, one mark with its interval per cell', async () => {
    const want = expected(gridTables);
    expect(want['natural-vs-direct'].some((c) => c.column === 'natural')).toBe(true);
    const out = join(root, 'report-grid');
    expect(
      await report(
        [grid, '-o', out],
        () => {},
        () => {},
      ),
    ).toBe(0);
    const { 'write-back-hops-line': _, ...gridWant } = want;
    expectFigures(readFileSync(join(out, 'index.html'), 'utf8'), gridWant);
    const outWb = join(root, 'report-wb');
    expect(
      await report(
        [writeback, '-o', outWb],
        () => {},
        () => {},
      ),
    ).toBe(0);
    expectFigures(readFileSync(join(outWb, 'index.html'), 'utf8'), {
      'write-back-hops-line': expected([...gridTables.filter((t) => t.id === 'defence'), ...writebackTables])[
        'write-back-hops-line'
      ],
    });
  }, 120_000);

  it("the viewer draws the same on each run's figures page, linked from the run page (server and --static)", async () => {
    const site = createViewSite([grid, writeback]);
    const [g, w] = site.entries.map((e) => e.slug);
    expect((await site.get(`/runs/${g}/index.html`)).body).toContain('href="figures.html"');
    const { 'write-back-hops-line': _, ...gridWant } = expected(gridTables);
    expectFigures((await site.get(`/runs/${g}/figures.html`)).body, gridWant);
    const wbLine = expected([...gridTables.filter((t) => t.id === 'defence'), ...writebackTables])[
      'write-back-hops-line'
    ];
    const wbPage = (await site.get(`/runs/${w}/figures.html`)).body;
    expectFigures(wbPage, { 'write-back-hops-line': wbLine });
    // The follow-ups' defence table (same id) is not the grid's: no grid-defence figure on a write-back run.
    expect(wbPage).not.toContain('data-figure="defence-table"');
    expect(wbPage).not.toContain('data-figure="natural-vs-direct"');
    const out = join(root, 'static');
    await site.writeStatic(out);
    expectFigures(readFileSync(join(out, 'runs', g!, 'figures.html'), 'utf8'), gridWant);
  }, 120_000);
});
