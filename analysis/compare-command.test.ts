import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { specFromArgs } from '../pipeline/cli/cli.js';
import type { RunManifest } from '../pipeline/run-log/run-log.js';
import { runEvaluation } from '../pipeline/run/run.js';
import { compareRuns, formatComparisonText, main, type AnalysedRun, type RunComparison } from './compare-command.js';
import { proportion, SUMMARY_VERSION, type Summary, type SummaryCell } from './grid/summarize.js';

async function simRun(out: string, seed: number, arms: string): Promise<string> {
  const spec = specFromArgs(
    [
      '--model',
      'sim',
      '--systems',
      'graphiti',
      '--modes',
      'direct',
      '--arms',
      arms,
      '--trials',
      '2',
      '--seed',
      String(seed),
      '--out',
      out,
    ],
    {},
  );
  return (await runEvaluation(spec, { apiKey: undefined })).runDir;
}
const summaryOf = (runDir: string) => JSON.parse(readFileSync(join(runDir, 'summary.json'), 'utf8')) as Summary;
async function run(args: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await main(
    args,
    (text) => out.push(text),
    (text) => err.push(text),
  );
  return { code, stdout: out.join('\n'), stderr: err };
}

describe('pnpm compare on two real sim runs', () => {
  let runA: string;
  let runB: string;
  let runC: string;
  beforeAll(async () => {
    const out = mkdtempSync(join(tmpdir(), 'stalebench-compare-'));
    runA = await simRun(out, 0, 'none,store-filter');
    runB = await simRun(out, 1, 'none,store-filter');
    runC = await simRun(out, 1, 'none,prompt-hardening');
  }, 60_000);

  it('gives per-cell deltas with both k/n and both Wilson intervals, consistent with each summary.json', async () => {
    const result = await run([runA, runB, '--json']);
    expect(result.code).toBe(0);
    const comparison = JSON.parse(result.stdout) as RunComparison;
    const [a, b] = [summaryOf(runA), summaryOf(runB)];
    expect(comparison.simulated).toBe(true);
    expect(comparison.specDifferences).toEqual([{ field: 'seed', a: 0, b: 1 }]);
    expect(comparison.matched.map((c) => c.arm)).toEqual(['none', 'store-filter']);
    for (const cell of comparison.matched) {
      const [ca, cb] = [a, b].map((s) => s.cells.find((c) => c.arm === cell.arm)!) as [SummaryCell, SummaryCell];
      expect(cell.unsafe.a).toEqual(ca.unsafe);
      expect(cell.unsafe.b).toEqual(cb.unsafe);
      expect(cell.unsafe.delta).toBeCloseTo(cb.unsafe.k / cb.unsafe.n - ca.unsafe.k / ca.unsafe.n, 12);
      expect(cell.unsafe.intervalsOverlap).toBe(!(ca.unsafe.high < cb.unsafe.low || cb.unsafe.high < ca.unsafe.low));
      expect(cell.exposure).toEqual({
        a: ca.exposure,
        b: cb.exposure,
        delta: cb.exposure.k / cb.exposure.n - ca.exposure.k / ca.exposure.n,
      });
      expect(cell.contextExposure.b).toEqual(cb.contextExposure);
      expect(cell).toMatchObject({ modelLabel: 'sim (simulated)', simulated: true });
    }
    expect(comparison.onlyA).toEqual([]);
    expect(comparison.onlyB).toEqual([]);
  });

  it('says sim in the header and on every row, as text and as Markdown', async () => {
    const none = summaryOf(runA).cells.find((c) => c.arm === 'none')!.unsafe;
    const text = await run([runA, runB]);
    expect(text.code).toBe(0);
    expect(text.stdout).toMatch(/^A: sim_\w+ \[sim\]/);
    expect(text.stdout).toContain('sim: at least one run is simulated');
    const rows = text.stdout.split('\n').filter((line) => line.startsWith('sim (simulated)'));
    expect(rows).toHaveLength(2);
    for (const row of rows) expect(row).toMatch(/\ssim$/);
    expect(rows[0]).toContain(
      `${none.k}/${none.n} ${(none.rate! * 100).toFixed(1)}% [${(none.low * 100).toFixed(1)}%, ${(none.high * 100).toFixed(1)}%]`,
    );
    const md = await run([runA, runB, '--md']);
    expect(md.stdout).toMatch(/^# Run comparison: .* \(sim\)/);
    expect(md.stdout).toMatch(/\n\| sim \(simulated\) \| graphiti \| direct \| no defence \| .* \| sim \|\n/);
  });

  it('lists cells present in only one run apart', async () => {
    const result = await run([runA, runC, '--json']);
    const comparison = JSON.parse(result.stdout) as RunComparison;
    expect(comparison.matched.map((c) => c.arm)).toEqual(['none']);
    expect(comparison.onlyA.map((c) => c.arm)).toEqual(['store-filter']);
    expect(comparison.onlyB.map((c) => c.arm)).toEqual(['prompt-hardening']);
    expect((await run([runA, runC])).stdout).toMatch(
      /cells only in A: 1\n {2}sim \(simulated\) graphiti direct store filter\n\ncells only in B: 1\n {2}sim \(simulated\) graphiti direct prompt hardening/,
    );
  });

  it('exits 1 with one error naming the file and reason on bad input', async () => {
    const notRun = mkdtempSync(join(tmpdir(), 'stalebench-not-a-run-'));
    const missing = await run([runA, notRun]);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toHaveLength(1);
    expect(missing.stderr[0]).toContain(`${join(notRun, 'manifest.json')}`);
    expect(missing.stderr[0]).toContain('not a run directory');
    const broken = join(notRun, 'broken');
    mkdirSync(broken);
    writeFileSync(
      join(broken, 'manifest.json'),
      JSON.stringify({
        version: 2,
        runId: 'x',
        status: 'success',
        simulated: false,
        spec: { systems: 'graphiti' },
        models: [],
      }),
    );
    // A hand-written manifest has no run-log heads: unverifiable, and read only with --no-verify.
    expect((await run([broken, runA])).stderr[0]).toMatch(
      /unverifiable: written before the run log was hash-chained.*--no-verify/,
    );
    const invalid = await run([broken, runA, '--no-verify']);
    expect(invalid.code).toBe(1);
    expect(invalid.stderr[0]).toMatch(/manifest\.json:\n {2}✖ spec\.systems: .*expected array/);
    expect((await run([runA])).code).toBe(1);
    expect((await run([runA, runB, '--json', '--md'])).code).toBe(1);
    expect((await run([runA, runB, '--bogus'])).code).toBe(1);
    expect((await run(['--help'])).code).toBe(0);
  });

  it('refuses a run of a suite (integrity, front door) with what reads it, before verifying anything', async () => {
    const suiteRun = join(mkdtempSync(join(tmpdir(), 'stalebench-suite-run-')), 'integrity_x');
    mkdirSync(suiteRun);
    writeFileSync(join(suiteRun, 'manifest.json'), JSON.stringify({ version: 2, suite: 'integrity', runId: 'x' }));
    const refused = await run([runA, suiteRun]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toHaveLength(1);
    expect(refused.stderr[0]).toContain(
      `suite: a run of the integrity suite: pnpm compare reads pnpm eval runs (cells of models, systems and defences); read it with pnpm report ${suiteRun}`,
    );
  });
});

describe('compareRuns', () => {
  const cell = (arm: string, k: number, n: number, simulated = false): SummaryCell => ({
    model: 'm',
    modelLabel: 'm',
    simulated,
    system: 's',
    mode: 'direct',
    arm,
    guard: 'off',
    poem: 'off',
    defence: arm,
    status: 'ok',
    extractor: 'none',
    exposure: { k: 1, n: 1 },
    contextExposure: { k: 1, n: 1 },
    revokedRank: null,
    unsafe: proportion(k, n),
    unsafeAmongParsed: proportion(k, n),
    parseFailures: 0,
    errors: 0,
    cachedReplies: 0,
  });
  const analysed = (cells: SummaryCell[], simulated: boolean): AnalysedRun => ({
    run: {
      runDir: '/x',
      manifest: { runId: 'r', status: 'success', simulated, spec: { seed: 0 } } as unknown as RunManifest,
      probes: new Map(),
      records: new Map(),
    },
    summary: {
      version: SUMMARY_VERSION,
      simulated,
      cells,
      guardMetrics: [],
      cache: { hits: 0, misses: 0, hitRate: null },
    },
  });

  it('flags non-overlapping intervals, n = 0 as not comparable, and no sim for real runs', () => {
    const comparison = compareRuns(
      analysed([cell('none', 0, 50), cell('guard', 3, 10)], false),
      analysed([cell('none', 40, 50), cell('guard', 0, 0)], false),
    );
    expect(comparison.simulated).toBe(false);
    expect(comparison.matched[0]!.unsafe).toMatchObject({ delta: 0.8, intervalsOverlap: false });
    expect(comparison.matched[1]!.unsafe).toMatchObject({ delta: null, intervalsOverlap: null });
    expect(comparison.matched.every((c) => !c.simulated)).toBe(true);
  });

  it('never sets a simulated cell against a real one: "sim vs real", no delta; a sim run against a real run is said so', () => {
    const natural = (extractor: string): SummaryCell => ({ ...cell('none', 2, 10), mode: 'natural', extractor });
    const comparison = compareRuns(
      analysed([natural('sim-extractor-v2')], false),
      analysed([natural('llm:gpt-5-nano')], false),
    );
    expect(comparison.matched[0]).toMatchObject({
      simVersusReal: true,
      unsafe: { delta: null, intervalsOverlap: null },
      unsafeAmongParsed: { delta: null },
    });
    expect(formatComparisonText(comparison)).toMatch(/no defence .* sim vs real .* sim vs real$/m);
    const runs = compareRuns(
      analysed([{ ...cell('none', 1, 4, true), model: 'sim' }], true),
      analysed([cell('none', 3, 4)], false),
    );
    expect(runs.matched).toHaveLength(0);
    expect(formatComparisonText(runs)).toContain('sim vs real: A is simulated and the other is not');
  });

  it('shows parse failures, errors and unsafe | parsed per side, and no delta for a cell enforced by construction', () => {
    const counted: SummaryCell = {
      ...cell('none', 2, 10),
      parseFailures: 4,
      errors: 1,
      unsafeAmongParsed: proportion(2, 6),
    };
    const gated: SummaryCell = {
      ...cell('none', 0, 10),
      poem: 'on',
      defence: 'PoEM gate',
      poemEnforcement: { kind: 'by-construction', reason: 'r' },
    };
    const comparison = compareRuns(
      analysed([counted, gated], false),
      analysed([{ ...counted, unsafe: proportion(3, 10), unsafeAmongParsed: proportion(3, 6) }, gated], false),
    );
    expect(comparison.matched[0]).toMatchObject({
      parseFailures: { a: 4, b: 4 },
      errors: { a: 1, b: 1 },
      unsafeAmongParsed: { delta: expect.closeTo(1 / 6, 12) },
    });
    expect(comparison.matched[1]!.unsafe.delta).toBeNull();
    const text = formatComparisonText(comparison);
    expect(text).toContain('4 → 4  ');
    expect(text).toContain('2/6 33.3% → 3/6 50.0%');
    expect(text).toMatch(/PoEM gate\s+enforced \(by construction\)\s+enforced \(by construction\)/);
  });
});
