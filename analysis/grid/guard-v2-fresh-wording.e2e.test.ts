// Issue #29 item 5: guard-v2 measured as the reference guard is, on the fresh-wording sets (natural mode, simulated
// extraction), and Table 9's guard-v2 columns on every surface: summary.json, the table, the report and the viewer.
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runEvalCli } from '../../pipeline/test-support/eval-cli.js';
import type { PaperTable } from '../paper-table.js';
import { buildReport, main as report } from '../report-command.js';
import type { Summary } from './summarize.js';
import { systemLabel } from '../tables/grid-table-parts.js';
import { createViewSite } from '../view/view-site.js';

const SYSTEMS = ['graphiti', 'zep-ce', 'mem0', 'mem0-exp', 'langmem', 'cognee'] as const;
const SET_A = join(import.meta.dirname, '..', '..', 'scenarios', 'fresh-wording');
const SET_B = join(import.meta.dirname, '..', '..', 'scenarios', 'fresh-wording-heldout');

let root: string;
let runA: string;
let runB: string;
let runBWithoutV2: string;

/** `pnpm eval --model sim --modes natural --scenario-dir <dir> --arms <arms> --trials 1` in process; its run dir. */
async function evalRun(name: string, dir: string, arms: string): Promise<string> {
  const out = join(root, name);
  const args = ['--model', 'sim', '--modes', 'natural', '--scenario-dir', dir, '--arms', arms, '--trials', '1'];
  const { code, stderr } = await runEvalCli([...args, '--no-cache', '--quiet', '--out', out], {});
  expect(code, stderr).toBe(0);
  return join(out, readdirSync(out)[0]!);
}

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'stalebench-fresh-wording-'));
  runB = await evalRun('b', SET_B, 'none,guard,guard-v2');
  runA = await evalRun('a', SET_A, 'none,guard,guard-v2');
  runBWithoutV2 = await evalRun('b-no-v2', SET_B, 'none,guard');
}, 240_000);
afterAll(() => rmSync(root, { recursive: true, force: true }));

const summaryOf = (run: string) => JSON.parse(readFileSync(join(run, 'summary.json'), 'utf8')) as Summary;
const kn = (x: { k: number; n: number }) => `${x.k}/${x.n}`;

/**
 * Per system: Table 9's caught and current withheld under guard and guard-v2 (summary.json's guard metrics), and the
 * scenarios whose context held a revoked record under each arm (the summary cells' `contextExposure`).
 */
function measured(summary: Summary): Record<string, string> {
  const metric = (system: string, guard: 'guard' | 'guard-v2') =>
    summary.guardMetrics.find((m) => m.system === system && m.mode === 'natural' && (m.guard ?? 'guard') === guard)!;
  const inContext = (system: string, arm: string) =>
    summary.cells.find((c) => c.system === system && c.mode === 'natural' && c.arm === arm)!.contextExposure;
  return Object.fromEntries(
    SYSTEMS.map((s) => {
      const [g, v2] = [metric(s, 'guard'), metric(s, 'guard-v2')];
      return [
        s,
        `caught ${kn({ k: g.revokedCaught, n: g.revokedPresent })} vs v2 ${kn({ k: v2.revokedCaught, n: v2.revokedPresent })}; ` +
          `current withheld ${kn({ k: g.currentWithheld, n: g.currentTotal })} vs v2 ${kn({ k: v2.currentWithheld, n: v2.currentTotal })}; ` +
          `revoked in context ${kn(inContext(s, 'guard'))} vs v2 ${kn(inContext(s, 'guard-v2'))}`,
      ];
    }),
  );
}

/** The same caught / current-withheld pairs read from Table 9's cells (guard, then guard-v2), per system. */
function tableNine(table: PaperTable): Record<string, string> {
  const cell = (system: string, column: string) => {
    const c = table.cells.find((x) => x.row === systemLabel(system) && x.column === column)!;
    return kn({ k: c.k!, n: c.n! });
  };
  return Object.fromEntries(
    SYSTEMS.map((s) => [
      s,
      `caught ${cell(s, 'caught (indirect)')} vs v2 ${cell(s, 'caught, guard-v2 (indirect)')}; ` +
        `current withheld ${cell(s, 'current withheld (indirect)')} vs v2 ${cell(s, 'current withheld, guard-v2 (indirect)')}`,
    ]),
  );
}
const withoutContext = (rows: Record<string, string>) =>
  Object.fromEntries(Object.entries(rows).map(([s, text]) => [s, text.replace(/; revoked in context.*$/, '')]));

describe('guard-v2 on the fresh-wording sets (natural, sim-extractor-v3)', () => {
  it('set B (held out): what guard-v2 and the reference guard catch, withhold and leave in context', async () => {
    const rows = measured(summaryOf(runB));
    expect(rows).toEqual({
      graphiti: 'caught 5/5 vs v2 5/5; current withheld 0/29 vs v2 0/29; revoked in context 0/10 vs v2 0/10',
      // Where guard-v2 does not match the reference (guard/README.md): one more zep-ce scenario with a revoked record
      // in context, though it withholds fewer current records.
      'zep-ce': 'caught 0/0 vs v2 0/0; current withheld 3/34 vs v2 2/34; revoked in context 2/10 vs v2 3/10',
      mem0: 'caught 0/0 vs v2 0/0; current withheld 9/48 vs v2 2/48; revoked in context 7/10 vs v2 7/10',
      'mem0-exp': 'caught 0/0 vs v2 0/0; current withheld 9/48 vs v2 2/48; revoked in context 7/10 vs v2 7/10',
      langmem: 'caught 0/0 vs v2 0/0; current withheld 10/55 vs v2 0/55; revoked in context 5/10 vs v2 5/10',
      cognee: 'caught 0/0 vs v2 0/0; current withheld 0/20 vs v2 0/20; revoked in context 10/10 vs v2 10/10',
    });
    const [table9] = (await buildReport([runB])).tables.filter((t) => t.id === '9');
    expect(tableNine(table9!)).toEqual(withoutContext(rows));
  });

  it('set A (tuned on): the same measurements', async () => {
    const rows = measured(summaryOf(runA));
    // One scenario of set A sits on the machine's clock for mem0 and mem0-exp (the real mem0ai 3.3.1 package):
    // its OSS `add` stamps each memory it extracts with its own `new Date()` (millisecond resolution) in one loop.
    // When that loop crosses a millisecond, two conflicting memories of one `add` have distinct timestamps and the
    // reference guard withholds the older; when it does not, they are equal and it keeps both (stale-retrieval.md §10).
    // The count is then 10/12 instead of 9/12. Measured with a Date that never repeats a millisecond: 10/12 for both,
    // every other figure of the rows the same.
    for (const system of ['mem0', 'mem0-exp'])
      rows[system] = rows[system]!.replace(
        /revoked in context 10\/12 vs v2 9\/12$/,
        'revoked in context 9/12 vs v2 9/12',
      );
    expect(rows).toEqual({
      graphiti: 'caught 5/5 vs v2 5/5; current withheld 0/31 vs v2 0/31; revoked in context 0/12 vs v2 0/12',
      'zep-ce': 'caught 0/0 vs v2 0/0; current withheld 2/36 vs v2 2/36; revoked in context 3/12 vs v2 2/12',
      mem0: 'caught 0/0 vs v2 0/0; current withheld 8/52 vs v2 2/52; revoked in context 9/12 vs v2 9/12',
      'mem0-exp': 'caught 0/0 vs v2 0/0; current withheld 8/52 vs v2 2/52; revoked in context 9/12 vs v2 9/12',
      langmem: 'caught 0/0 vs v2 0/0; current withheld 14/69 vs v2 1/69; revoked in context 9/12 vs v2 9/12',
      cognee: 'caught 0/0 vs v2 0/0; current withheld 0/24 vs v2 0/24; revoked in context 12/12 vs v2 12/12',
    });
    const [table9] = (await buildReport([runA])).tables.filter((t) => t.id === '9');
    expect(tableNine(table9!)).toEqual(withoutContext(rows));
  });
});

/** The guard-caught figure's bars in a page: (row, column) per bar. */
const figureBars = (html: string) => {
  const svg = /<svg [^>]*data-figure="guard-caught"[^>]*>(.*?)<\/svg>/s.exec(html)?.[1] ?? '';
  return [...svg.matchAll(/<rect class="bar" data-row="([^"]*)" data-column="([^"]*)"/g)].map(
    (m) => `${m[1]} | ${m[2]}`,
  );
};
const V2_COLUMNS = ['caught, guard-v2 (indirect)', 'current withheld, guard-v2 (indirect)'];
const REFERENCE_COLUMNS = ['revoked present (indirect)', 'caught (indirect)', 'current withheld (indirect)'];

describe("Table 9's guard-v2 columns on every surface", () => {
  it('summary.json, the table, the report (md, csv, tex, html and its figure) and the viewer', async () => {
    const v2Metrics = summaryOf(runB).guardMetrics.filter((m) => m.guard === 'guard-v2');
    expect(v2Metrics.map((m) => m.system)).toEqual([...SYSTEMS]);
    const [table9] = (await buildReport([runB])).tables.filter((t) => t.id === '9');
    expect(table9!.columns).toEqual([...REFERENCE_COLUMNS, ...V2_COLUMNS, 'indirect revocation recorded']);
    const out = join(root, 'report-b');
    expect(
      await report(
        [runB, '-o', out],
        () => {},
        () => {},
      ),
    ).toBe(0);
    const file = (name: string) => readFileSync(join(out, name), 'utf8');
    expect(file('tables.md')).toContain(
      '| langmem | 0 | 0/0 | 10/55 (18.2%) [10.2, 30.3] | 0/0 | 0/55 (0.0%) [0.0, 6.5] | 0/10 (0.0%) [0.0, 27.8] |',
    );
    expect(file('tables.csv')).toContain('9,langmem,"current withheld, guard-v2 (indirect)",0,55,0,');
    expect(file('tables.tex')).toMatch(/caught, guard-v2 \(indirect\)/);
    const html = file('index.html');
    expect(html).toContain('data-row="langmem" data-column="current withheld, guard-v2 (indirect)" data-status="ok"');
    // The figure draws guard-v2's bars beside the reference's, on the report and in the viewer.
    const bars = figureBars(html);
    expect(bars).toEqual(
      expect.arrayContaining([
        'graphiti | caught, guard-v2 (indirect)',
        'mem0 | current withheld, guard-v2 (indirect)',
      ]),
    );
    expect(html).toContain('Stale-retrieval guard and guard-v2: revoked caught');
    const site = createViewSite([runB]);
    const page = (await site.get(`/runs/${site.entries[0]!.slug}/figures.html`)).body;
    expect(figureBars(page).sort()).toEqual([...bars].sort());
  });

  it('a run without a guard-v2 arm has none of them anywhere', async () => {
    expect(summaryOf(runBWithoutV2).guardMetrics.some((m) => m.guard !== undefined)).toBe(false);
    const [table9] = (await buildReport([runBWithoutV2])).tables.filter((t) => t.id === '9');
    expect(table9!.columns).toEqual([...REFERENCE_COLUMNS, 'indirect revocation recorded']);
    const out = join(root, 'report-b-no-v2');
    expect(
      await report(
        [runBWithoutV2, '-o', out],
        () => {},
        () => {},
      ),
    ).toBe(0);
    for (const name of ['tables.md', 'tables.csv', 'tables.tex', 'index.html'])
      expect(readFileSync(join(out, name), 'utf8'), name).not.toContain('guard-v2');
    const bars = figureBars(readFileSync(join(out, 'index.html'), 'utf8'));
    expect(bars).toContain('mem0 | current withheld (indirect)');
  });
});
