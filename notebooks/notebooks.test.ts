import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Summary, SummaryCell } from '../analysis/grid/summarize.js';
import { specFromArgs } from '../pipeline/cli/cli.js';
import { runEvaluation } from '../pipeline/run/run.js';
import { proportionText } from './notebook-support.js';
import { main, NOTEBOOKS } from './run-notebook.js';

async function notebook(args: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await main(
    args,
    (text) => out.push(text),
    (text) => err.push(text),
  );
  return { code, stdout: out.join('\n'), stderr: err.join('\n') };
}
const lineOf = (text: string, prefix: string) => text.split('\n').find((line) => line.startsWith(prefix)) ?? '';
const pct = (k: number, n: number) => `${((k / n) * 100).toFixed(1)}%`;

let runDir: string;
let summary: Summary;
/** A second run of the same grid with another seed: a distinct spec, so the notebooks pool it rather than skip it. */
let otherRunDir: string;
let otherSummary: Summary;
const cellIn = (of: Summary, system: string, arm: string) =>
  of.cells.find((c) => c.system === system && c.arm === arm) as SummaryCell;
const cellOf = (system: string, arm: string) => cellIn(summary, system, arm);

beforeAll(async () => {
  const out = mkdtempSync(join(tmpdir(), 'stalebench-notebooks-'));
  const arms = 'none,store-filter,prompt-hardening,output-filter,filter-hardening,guard';
  const args = [
    '--model',
    'sim',
    '--systems',
    'graphiti,mem0-exp,langmem',
    '--modes',
    'direct',
    '--arms',
    arms,
    '--trials',
    '2',
    '--out',
    out,
  ];
  const read = (dir: string) => JSON.parse(readFileSync(join(dir, 'summary.json'), 'utf8')) as Summary;
  runDir = (await runEvaluation(specFromArgs(args, {}), { apiKey: undefined })).runDir;
  summary = read(runDir);
  otherRunDir = (await runEvaluation(specFromArgs([...args, '--seed', '1'], {}), { apiKey: undefined })).runDir;
  otherSummary = read(otherRunDir);
}, 60_000);

describe('pnpm notebook (runner)', () => {
  it('lists the notebooks and exits 1 with no name, an unknown name, no run, or a directory that is not a run', async () => {
    for (const args of [[], ['no-such-notebook', 'x']]) {
      const result = await notebook(args);
      expect(result.code).toBe(1);
      for (const { name } of NOTEBOOKS) expect(result.stderr).toContain(`  ${name}`);
    }
    expect((await notebook(['unknown'])).stderr).toContain('unknown notebook "unknown"');
    expect((await notebook(['table-6'])).stderr).toContain('needs at least one run directory');
    const notRun = await notebook(['table-6', tmpdir()]);
    expect(notRun.code).toBe(1);
    expect(notRun.stderr).toContain(join(tmpdir(), 'manifest.json'));
    expect(NOTEBOOKS.map((n) => n.name)).toEqual(['guard-threshold-sensitivity', 'defence-comparison', 'table-6']);
  });

  it('writes exactly what it prints with --out, and skips a run given twice', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'stalebench-notebook-out-')), 'nested', 'table-6.md');
    const result = await notebook(['table-6', runDir, runDir, '--out', file]);
    expect(result.code).toBe(0);
    expect(readFileSync(file, 'utf8')).toBe(`${result.stdout}\n`);
    expect(result.stdout).toContain(`- skipped ${runDir} (same spec as`);
    // The duplicate is not pooled in: the table lists one run and keeps one run's denominators.
    expect(result.stdout).toContain(`- Runs: ${basename(runDir)}\n`);
    const none = cellOf('graphiti', 'none').unsafe;
    expect(lineOf(result.stdout, '| graphiti | ')).toContain(`| ${none.k}/${none.n} (`);
  });
});

describe('guard-threshold-sensitivity', () => {
  it('sweeps every parameter and its default rows equal the recorded Table 9', async () => {
    const { code, stdout } = await notebook(['guard-threshold-sensitivity', runDir]);
    expect(code).toBe(0);
    for (const heading of [
      '## α — subject overlap',
      '## β — maximum withheld ratio',
      '## require an opposition signal',
      '## trust explicit revocation fields (stage 1)',
      '## α with stage 1 off',
      '## Summary of the sweeps',
    ])
      expect(stdout).toContain(heading);
    expect(stdout).toContain('Default configuration reproduces the recorded Table 9: **yes**');
    const recorded = summary.guardMetrics.filter((m) => m.revokedPresent + m.currentTotal > 0);
    const present = recorded.reduce((s, m) => s + m.revokedPresent, 0);
    const caught = recorded.reduce((s, m) => s + m.revokedCaught, 0);
    for (const prefix of ['| 0.45 (default) |', '| 0.6 (default) |', '| true (default) |']) {
      const row = lineOf(stdout, prefix);
      expect(row).toContain(`| ${caught}/${present} (${pct(caught, present)}) |`);
      for (const m of recorded)
        expect(row).toContain(`${m.revokedCaught}/${m.revokedPresent} · ${m.currentWithheld}/${m.currentTotal}`);
    }
    // Stage 1 off: Graphiti's revoked records carry expired_at, and the conflict rule alone misses some of them.
    const graphiti = recorded.find((m) => m.system === 'graphiti')!;
    const offRow = stdout
      .split('## trust explicit')[1]!
      .split('\n')
      .find((line) => line.startsWith('| false |'))!;
    const offGraphiti = offRow.split(' | ')[3]!;
    expect(Number(offGraphiti.split('/')[0])).toBeLessThan(graphiti.revokedCaught);
  });
});

describe('defence-comparison', () => {
  it('shows every arm of every system with the summary’s k/n and Wilson interval, and says sim', async () => {
    const { code, stdout } = await notebook(['defence-comparison', runDir]);
    expect(code).toBe(0);
    expect(stdout).toContain('## sim (simulated) · direct');
    expect(stdout).toContain('**sim:**');
    for (const system of ['graphiti', 'mem0-exp', 'langmem']) {
      const row = lineOf(stdout, `| ${system} |`);
      const arms = summary.cells.filter((c) => c.system === system);
      expect(
        row
          .split(' | ')
          .slice(2)
          .map((c) => c.replace(/ \|$/, '')),
      ).toEqual(arms.map((c) => proportionText(c.unsafe)));
    }
    expect(stdout).toContain('## Lowest arm per system');
    const graphitiBest = lineOf(stdout, '| sim (simulated) | direct | graphiti |');
    expect(graphitiBest).toContain(proportionText(cellOf('graphiti', 'none').unsafe));
    expect(graphitiBest).toContain('store filter');
    expect(lineOf(stdout, '| sim (simulated) | direct | langmem |')).toContain('no revoked record returned');
  });
});

describe('table-6', () => {
  const columns = [
    ['none', 'no defense'],
    ['store-filter', 'filter'],
    ['prompt-hardening', 'prompt'],
    ['output-filter', 'output'],
    ['filter-hardening', 'filter+prompt'],
    ['guard', 'guard'],
  ] as const;
  const interval = (p: { low: number; high: number }) => `[${(p.low * 100).toFixed(1)}, ${(p.high * 100).toFixed(1)}]`;
  /** A Table 6 unsafe cell as rendered, from the summary's headline (the paper's convention: k unsafe / n completed trials). */
  const unsafeText = (p: { k: number; n: number; low: number; high: number }) =>
    `${p.k}/${p.n} (${pct(p.k, p.n)}) ${interval(p)}`;
  const cellsOf = (row: string) => row.split(' | ').map((c) => c.replace(/^\| |\|$/g, '').trim());

  it('rebuilds Table 6 with the shared builder, pools the exposed systems and prints the paper only as reference', async () => {
    const { code, stdout } = await notebook(['table-6', runDir]);
    expect(code).toBe(0);
    expect(stdout).toContain('**sim:**');
    expect(lineOf(stdout, '|  | exposure |')).toBe(`|  | exposure | rank | ${columns.map(([, c]) => c).join(' | ')} |`);
    for (const [system, label] of [
      ['graphiti', 'graphiti'],
      ['mem0-exp', 'mem0 (exp.)'],
    ] as const) {
      const row = lineOf(stdout, `| ${label} | `);
      const none = cellOf(system, 'none');
      expect(row).toContain(`| ${none.exposure.k}/${none.exposure.n} (`);
      expect(cellsOf(row)[2]).toBe(none.revokedRank!.mean.toFixed(2));
      for (const [arm] of columns) expect(row).toContain(unsafeText(cellOf(system, arm).unsafe));
    }
    expect(cellsOf(lineOf(stdout, '| langmem | '))[2]).toBe('n/a');
    const pooledK = cellOf('graphiti', 'none').unsafe.k + cellOf('mem0-exp', 'none').unsafe.k;
    const pooledN = cellOf('graphiti', 'none').unsafe.n + cellOf('mem0-exp', 'none').unsafe.n;
    expect(lineOf(stdout, '| pooled (graphiti + mem0 (exp.)) | ')).toContain(
      `| ${pooledK}/${pooledN} (${pct(pooledK, pooledN)}) [`,
    );
    // The published cells, Table 6 only, each beside our number for the same cell.
    expect(stdout).toContain('## Beside the published Table 6 (reference only, data/paper/table-06.json)');
    const published = lineOf(stdout, '| 6 | graphiti | no defense |');
    expect(published).toContain('358/810 (44.2%)');
    expect(published).toContain(unsafeText(cellOf('graphiti', 'none').unsafe));
    expect(stdout).not.toMatch(/^\| (7|9|13) \|/m);
    expect(stdout).not.toContain('not built from these runs');
    expect(stdout).not.toMatch(/^# Paper diff/m);
  });

  it('pools two distinct runs: counts add up over the runs', async () => {
    const { code, stdout } = await notebook(['table-6', runDir, otherRunDir]);
    expect(code).toBe(0);
    expect(stdout).toContain(`- Runs: ${basename(runDir)}, ${basename(otherRunDir)}\n`);
    expect(stdout).not.toContain('- skipped');
    const sum = (system: string, arm: string) => {
      const [a, b] = [cellIn(summary, system, arm).unsafe, cellIn(otherSummary, system, arm).unsafe];
      return { k: a.k + b.k, n: a.n + b.n };
    };
    const row = lineOf(stdout, '| graphiti | ');
    const exposure = {
      k: cellOf('graphiti', 'none').exposure.k + cellIn(otherSummary, 'graphiti', 'none').exposure.k,
      n: cellOf('graphiti', 'none').exposure.n + cellIn(otherSummary, 'graphiti', 'none').exposure.n,
    };
    expect(cellsOf(row)[1]).toMatch(new RegExp(`^${exposure.k}/${exposure.n} \\(`));
    for (const [arm] of columns) {
      const { k, n } = sum('graphiti', arm);
      expect(row).toContain(`| ${k}/${n} (${pct(k, n)}) [`);
    }
  });
});
