// `pnpm bench --quick --json`: a smoke run of every row. Only the shape is checked; no timing is ever asserted.
import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { loadScenarios } from '../../scenarios/index.js';
import { benchCommand, type BenchReport } from './bench-command.js';
import { largeGuardArray } from './bench-guard.js';
import { generateGuardCorpus, readGuardCorpus } from './guard-corpus.js';

const ROOT = new URL('../../', import.meta.url).pathname;
const positive = expect.any(Number) as unknown;

describe('pnpm bench', () => {
  it('--quick --json prints every row with the machine facts', async () => {
    let text = '';
    const stdout = new Writable({
      write(chunk: Buffer, _encoding, done) {
        text += chunk.toString();
        done();
      },
    });
    expect(await benchCommand(['--quick', '--json'], stdout)).toBe(0);
    const report = JSON.parse(text) as Required<BenchReport>;
    expect(Object.keys(report)).toEqual([
      ...['machine', 'quick', 'guard', 'guardV2', 'poem', 'grid', 'poemGrid', 'summarize', 'endpoint', 'rateLimit'],
    ]);
    // Every call of both rate-limited runs was answered (the run checks its records); their figures are printed only.
    expect(report.rateLimit).toMatchObject([
      { kind: 'requests', limitPerSecond: 40, concurrency: 64, fixed: false, calls: 120 },
      { kind: 'tokens', limitPerSecond: 6000, concurrency: 64, fixed: false, calls: 120 },
    ]);
    expect(report.guardV2).toMatchObject({ defence: 'guard-v2', passes: 1, loadAverage: expect.any(Array) });
    expect(report.guardV2.overGuard.freshTexts).toBeCloseTo(
      report.guardV2.freshTextsMicrosPerRetrieval / report.guard.freshTextsMicrosPerRetrieval,
    );
    expect(report.machine).toMatchObject({ cores: positive, node: process.version, cpu: expect.any(String) });
    expect(report.guard).toMatchObject({ retrievals: 200, k: 10, array: { records: 2000, distinctTexts: 2000 } });
    expect(report.poem.map((row) => row.events)).toEqual([10, 1000]);
    expect(report.grid.units).toBe(9 * 6 * 4); // graphiti, direct, 9 scenarios × 6 arms × guard × PoEM, 1 trial
    expect(report.summarize.map((row) => row.records)).toEqual([1000, 10000]);
    expect(report.poemGrid.sizes.map((size) => size.units)).toEqual([108, 4 * 108]); // graphiti, 2 modes × 9 × 6 arms
    // 9 scenarios × 16 trials: a multiple of -j 16 for the pipeline, and as many calls for the floor and the SDK loop.
    const calls = { calls: 144 };
    expect(report.endpoint).toMatchObject({
      configuredConcurrency: 16,
      trials: 16,
      pipeline: calls,
      floor: calls,
      sdk: calls,
    });
    const numbers = [
      report.guard.microsPerRetrieval,
      report.guard.freshTextsMicrosPerRetrieval,
      report.guardV2.freshTextsMicrosPerRetrieval,
      report.guardV2.microsPerRetrieval,
      report.guardV2.overGuard.freshTexts,
      report.guardV2.overGuard.freshTextsCpu,
      report.guard.freshTextsCpuMicrosPerRetrieval,
      report.guardV2.overGuard.textsSeenBefore,
      report.guard.array.ms,
      ...report.poem.flatMap((row) => [row.checkMicros, row.gateMicros, row.fullMicros, row.ratio]),
      report.grid.wallSeconds,
      report.grid.peakRssMB,
      ...report.poemGrid.sizes.map((size) => size.microsPerUnit),
      ...report.summarize.flatMap((row) => [row.seconds, row.rescoreSeconds, row.rescorePeakRssMB]),
      ...report.rateLimit.flatMap((row) => [row.percentOfLimit, row.wallSeconds]),
      ...[report.endpoint.pipeline, report.endpoint.floor, report.endpoint.sdk].flatMap((row) => [
        row.achievedConcurrency,
        row.serviceMs,
        row.windowSeconds,
        row.cpuMsPerCall,
      ]),
    ];
    expect(Number.isFinite(report.endpoint.pipelineAboveSdkMs)).toBe(true);
    for (const value of numbers) expect(Number.isFinite(value) && value > 0, String(value)).toBe(true);
  }, 300_000);

  it('--only guard: the guard rows alone, beside the spec guard in Python on the same retrievals, verdicts equal', async () => {
    let text = '';
    const stdout = new Writable({
      write(chunk: Buffer, _encoding, done) {
        text += chunk.toString();
        done();
      },
    });
    expect(await benchCommand(['--quick', '--json', '--only', 'guard'], stdout)).toBe(0);
    const report = JSON.parse(text) as BenchReport;
    expect(Object.keys(report)).toEqual(['machine', 'quick', 'guard', 'guardV2']);
    // 3 groups of 2 passes over the 200 retrievals, each retrieval's texts new; runSpecGuard throws on any difference.
    expect(report.guard.python).toMatchObject({ retrievals: 1200, version: expect.stringMatching(/^3\./) });
    const python = report.guard.python as { cpuMicrosPerRetrieval: number; cpuRatio: number };
    expect(python.cpuRatio).toBeCloseTo(python.cpuMicrosPerRetrieval / report.guard.freshTextsCpuMicrosPerRetrieval);
    expect(report.guard.loadAverage).toHaveLength(3);
  }, 300_000);

  it('an unknown flag is exit 1 with the usage', async () => {
    expect(await benchCommand(['--fast'])).toBe(1);
    expect(await benchCommand(['--only', 'grid'])).toBe(1);
  });
});

describe('the fixed guard corpus', () => {
  it('data/bench/guard-retrievals.json is what the generator makes (regenerate: pnpm bench --write-corpus)', async () => {
    expect(readGuardCorpus(ROOT)).toEqual(generateGuardCorpus(await loadScenarios()));
  });

  it('the large array has distinct texts and keeps every record field', () => {
    const corpus = readGuardCorpus(ROOT);
    const array = largeGuardArray(corpus, 5000);
    expect(new Set(array.map((r) => (typeof r === 'string' ? r : String(r.fact)))).size).toBe(5000);
    expect(array[1]).toMatchObject({
      ...(corpus[0]![1] as object),
      fact: expect.stringMatching(/ \[[a-z]{2}-[a-z]{2}\]$/),
    });
  });
});
