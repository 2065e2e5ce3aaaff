// `pnpm bench [--json] [--quick]`: measures, in one run, every performance row of issue #18 on this machine.
import { rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, totalmem } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { loadScenarios } from '../../scenarios/index.js';
import { benchEndpoint, type EndpointBench, type EndpointLoop } from './bench-endpoint.js';
import { benchGrid, type GridBench } from './bench-grid.js';
import { benchPoemGrid, type PoemGridBench } from './bench-poem-grid.js';
import { benchGuard, type GuardBench, type RetrievalTiming, timeRetrievals } from './bench-guard.js';
import { benchPoem, type PoemBenchRow } from './bench-poem.js';
import { benchRateLimit, type RateLimitRow } from './bench-rate-limit.js';
import { benchSummarize, type SummarizeBench } from './bench-rescore.js';
import { GUARD_CORPUS_FILE, generateGuardCorpus, readGuardCorpus } from './guard-corpus.js';
import { isEntryPoint } from '#core/entry-point.js';

const USAGE = `usage: pnpm bench [--json] [--quick] [--only guard] [--write-corpus]
  measures on this machine: the stale guard and guard-v2 per k=10 retrieval (${GUARD_CORPUS_FILE}), also with
  every text new to the process, beside the spec's guard in Python (pipeline/bench/guard_spec.py, a child process)
  on the same retrievals, whose verdicts must equal the guard's; the guard on one 10,000-record array; the PoEM grounding check at N = 10 … 100,000 events, incremental and full; a fixed offline grid in a child
  process (45,144 units: wall, units/s, peak RSS); the experiment phase's time per unit with PoEM on at 1,188 and
  26,730 units; summarising and rescoring (pnpm rescore --check, child process)
  10,000 and 100,000 records; the overhead per decision against a local OpenAI-compatible endpoint (a child process)
  with a 100 ms latency at -j 16, beside a bare SDK loop and a bare node:http loop against the same server; the
  adaptive call limit: 600 calls starting at -j 64 against a local endpoint (a child process, 50 ms) enforcing 40
  requests per sliding second, then one enforcing 6,000 tokens per sliding second (% of the limit, % answered 429,
  load average). Timings vary with load; nothing is asserted.
  --json          print the results as JSON (with the machine: CPU, cores, memory, Node version)
  --quick         small sizes (a smoke run of every row; its numbers are not the figures)
  --only guard    only the guard rows (guard, Python, guard-v2, the array)
  --write-corpus  regenerate ${GUARD_CORPUS_FILE} from the scenarios and exit`;

/** The rows other than the guard's (absent with `--only guard`). */
interface OtherRows {
  poem: PoemBenchRow[];
  grid: GridBench;
  /** The experiment phase's µs per unit with the PoEM gate on, at a small and a large grid. */
  poemGrid: PoemGridBench;
  summarize: SummarizeBench[];
  endpoint: EndpointBench;
  /** The adaptive call limit against a request rate and a token rate (issue #32 item 2). */
  rateLimit: RateLimitRow[];
}

/** Everything `pnpm bench --json` prints. */
export type BenchReport = {
  machine: { cpu: string; cores: number; memoryGB: number; node: string; platform: string; loadAverage: number[] };
  quick: boolean;
  guard: GuardBench;
  /** guard-v2 (issue #19 item 3: lemmas, lexicon) on the same corpus, per retrieval: what the stronger stage costs. */
  guardV2: GuardV2Bench;
} & Partial<OtherRows>;

/** guard-v2's row, with its cost over the guard's in the same run (issue #32 goal: within 3×). */
export interface GuardV2Bench extends RetrievalTiming {
  /** guard-v2's µs per retrieval over the guard's: every text new (wall and CPU), and texts seen before. */
  overGuard: { freshTexts: number; freshTextsCpu: number; textsSeenBefore: number };
}

/** guard-v2's timing beside the guard's. */
function guardV2Row(timing: RetrievalTiming, guard: GuardBench): GuardV2Bench {
  return {
    ...timing,
    overGuard: {
      freshTexts: timing.freshTextsMicrosPerRetrieval / guard.freshTextsMicrosPerRetrieval,
      freshTextsCpu: timing.freshTextsCpuMicrosPerRetrieval / guard.freshTextsCpuMicrosPerRetrieval,
      textsSeenBefore: timing.microsPerRetrieval / guard.microsPerRetrieval,
    },
  };
}

const ROOT = join(import.meta.dirname, '..', '..');

/** Runs every row. */
export async function runBench(
  quick: boolean,
  progress: (line: string) => void = () => undefined,
  onlyGuard = false,
): Promise<BenchReport> {
  const machine = {
    cpu: cpus()[0]?.model ?? 'unknown',
    cores: cpus().length,
    memoryGB: Math.round(totalmem() / 1e8) / 10,
    node: process.version,
    platform: `${process.platform} ${process.arch}`,
    loadAverage: loadavg(),
  };
  progress('guard …');
  const corpus = readGuardCorpus(ROOT);
  const guard = benchGuard(ROOT, corpus, quick);
  progress('guard-v2 …');
  const guardV2 = guardV2Row(timeRetrievals('guard-v2', corpus, quick ? 1 : 5, undefined, guard.passes), guard);
  if (onlyGuard) return { machine, quick, guard, guardV2 };
  progress('PoEM ledger …');
  const poem = await benchPoem(quick);
  progress('PoEM inside the grid (child processes) …');
  const poemGrid = await benchPoemGrid(ROOT, quick);
  progress('offline grid (child process) …');
  const { row: grid, runDir, out } = await benchGrid(ROOT, quick);
  try {
    progress('summarize and rescore …');
    const summarize: SummarizeBench[] = [];
    for (const size of quick ? [1_000, 10_000] : [10_000, 100_000])
      summarize.push(await benchSummarize(ROOT, runDir, size));
    progress('endpoint overhead …');
    const endpoint = await benchEndpoint(quick);
    progress('rate limits (child processes) …');
    const calls = quick ? 120 : 600;
    const rateLimit = [
      await benchRateLimit('requests', 40, { calls, concurrency: 64, latencyMs: 50 }),
      await benchRateLimit('tokens', 6000, { calls, concurrency: 64, latencyMs: 50 }),
    ];
    return { machine, quick, guard, guardV2, poem, grid, poemGrid, summarize, endpoint, rateLimit };
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
}

const fixed = (value: number, digits = 1): string => value.toFixed(digits);

/** The endpoint lines: the pipeline, then what the bare SDK and bare HTTP cost against the same server. */
function formatEndpoint(endpoint: EndpointBench): string[] {
  const j = endpoint.configuredConcurrency;
  const loop = (name: string, row: EndpointLoop) =>
    `  ${name}: overhead ${fixed(row.overheadMsPerCall, 2)} ms per call, ${fixed(row.achievedConcurrency, 2)} of ${j} in flight (served ${fixed(row.serviceMs, 2)} ms), CPU ${fixed(row.cpuMsPerCall, 2)} ms per call`;
  return [
    `endpoint ${endpoint.latencyMs} ms in a child process, -j ${j}, ${endpoint.pipeline.calls} calls each (overhead = j × window / calls − the latency served):`,
    `${loop('pipeline', endpoint.pipeline)}; its overhead is ${fixed(endpoint.pipelineAboveSdkMs, 2)} ms above the bare SDK's`,
    loop('sdk (bare OpenAI SDK)', endpoint.sdk),
    loop('floor (bare node:http)', endpoint.floor),
  ];
}

/** One line per rate-limited run. */
function formatRateLimit(row: RateLimitRow): string {
  const limit = `${row.limitPerSecond} ${row.kind}/s`;
  return `rate limit ${limit} (sliding second, ${row.latencyMs} ms), ${row.calls} calls from -j ${row.concurrency}${row.fixed ? ' fixed' : ''}: ${fixed(row.percentOfLimit)} % of the limit, ${fixed(row.percent429)} % answered 429 (${row.rateLimited}), ${fixed(row.wallSeconds)} s, load ${row.loadAverage.map((l) => fixed(l, 2)).join(' → ')}`;
}

const load = (average: readonly number[]): string => average.map((l) => fixed(l, 2)).join(' ');

/** The guard lines: the guard, the spec's guard in Python on the same fresh retrievals, guard-v2, the array. */
function formatGuard({ guard, guardV2 }: Pick<BenchReport, 'guard' | 'guardV2'>): string[] {
  const { python } = guard;
  return [
    `guard, per k=${guard.k} retrieval: every text new ${fixed(guard.freshTextsMicrosPerRetrieval)} µs (CPU ${fixed(guard.freshTextsCpuMicrosPerRetrieval)} µs), texts seen before ${fixed(guard.microsPerRetrieval)} µs (first pass ${fixed(guard.firstPassMicrosPerRetrieval)} µs; ${guard.retrievals} retrievals), load ${load(guard.loadAverage)}`,
    'skipped' in python
      ? `spec guard in Python: skipped (${python.skipped})`
      : `spec guard in Python ${python.version} on the same ${python.retrievals} fresh retrievals: ${fixed(python.microsPerRetrieval)} µs, ×${fixed(python.ratio)} the guard's (goal ≥ ×50); CPU ${fixed(python.cpuMicrosPerRetrieval)} µs, ×${python.cpuRatio === null ? '?' : fixed(python.cpuRatio)}; verdicts equal`,
    `guard-v2, per k=${guard.k} retrieval: every text new ${fixed(guardV2.freshTextsMicrosPerRetrieval)} µs (×${fixed(guardV2.overGuard.freshTexts)} the guard's; goal ≤ ×3; CPU ${fixed(guardV2.freshTextsCpuMicrosPerRetrieval)} µs, ×${fixed(guardV2.overGuard.freshTextsCpu)}), texts seen before ${fixed(guardV2.microsPerRetrieval)} µs (×${fixed(guardV2.overGuard.textsSeenBefore)}), first pass ${fixed(guardV2.firstPassMicrosPerRetrieval)} µs, ${guardV2.withheldPerPass} withheld per pass, load ${load(guardV2.loadAverage)}`,
    `guard, one array of ${guard.array.records} records (${guard.array.distinctTexts} distinct texts): ${fixed(guard.array.ms / 1000, 2)} s, ${guard.array.withheld} withheld`,
  ];
}

/** The human-readable report. */
export function formatBench(report: BenchReport): string {
  const { machine, poem, grid, poemGrid, summarize, endpoint, rateLimit } = report;
  const head = [
    `machine: ${machine.cpu}, ${machine.cores} cores, ${machine.memoryGB} GB, Node ${machine.node}, load ${load(machine.loadAverage)}${report.quick ? ' (--quick: not the figures)' : ''}`,
    ...formatGuard(report),
  ];
  if (!poem || !grid || !poemGrid || !summarize || !endpoint || !rateLimit) return head.join('\n');
  const [small, large] = summarize;
  return [
    ...head,
    ...poem.map(
      (row) =>
        `PoEM check at N = ${row.events}: ${fixed(row.checkMicros, 2)} µs incremental (gate ${fixed(row.gateMicros, 2)} µs), full ${fixed(row.fullMicros / 1000, 2)} ms, ×${fixed(row.ratio, 0)}`,
    ),
    `offline grid (sim: simulated decisions and extraction), ${grid.units} units: ${fixed(grid.wallSeconds)} s, ${fixed(grid.unitsPerSecond, 0)} units/s, peak RSS ${fixed(grid.peakRssMB, 0)} MB`,
    `PoEM inside the grid (sim): ${poemGrid.sizes.map((size) => `${fixed(size.microsPerUnit, 0)} µs per unit at ${size.units} units`).join(', ')} (×${fixed(poemGrid.ratio, 2)})`,
    ...summarize.map(
      (row) =>
        `${row.records} records of a sim run: summarize ${fixed(row.seconds, 2)} s; rescore --check ${fixed(row.rescoreSeconds, 2)} s, peak RSS ${fixed(row.rescorePeakRssMB, 0)} MB`,
    ),
    ...(small && large
      ? [
          `${large.records} / ${small.records} records: summarize ×${fixed(large.seconds / small.seconds)}, rescore ×${fixed(large.rescoreSeconds / small.rescoreSeconds)}`,
        ]
      : []),
    ...formatEndpoint(endpoint),
    ...rateLimit.map(formatRateLimit),
  ].join('\n');
}

/** Runs the command; returns the exit code (1 for an unknown flag). */
export async function benchCommand(
  argv: readonly string[],
  stdout: NodeJS.WritableStream = process.stdout,
): Promise<number> {
  let values: { json?: boolean; quick?: boolean; only?: string; 'write-corpus'?: boolean; help?: boolean };
  try {
    ({ values } = parseArgs({
      args: [...argv],
      options: {
        json: { type: 'boolean' },
        quick: { type: 'boolean' },
        only: { type: 'string' },
        'write-corpus': { type: 'boolean' },
        help: { type: 'boolean', short: 'h' },
      },
    }));
    if (values.only !== undefined && values.only !== 'guard')
      throw new Error(`--only: unknown row group '${values.only}' (known: guard)`);
  } catch (error) {
    process.stderr.write(`${(error as Error).message}\n${USAGE}\n`);
    return 1;
  }
  if (values.help) {
    stdout.write(`${USAGE}\n`);
    return 0;
  }
  if (values['write-corpus']) {
    const corpus = generateGuardCorpus(await loadScenarios());
    writeFileSync(join(ROOT, GUARD_CORPUS_FILE), `${JSON.stringify(corpus, null, 1)}\n`);
    stdout.write(`wrote ${GUARD_CORPUS_FILE}\n`);
    return 0;
  }
  const progress = values.json ? () => undefined : (line: string) => process.stderr.write(`${line}\n`);
  const report = await runBench(values.quick ?? false, progress, values.only === 'guard');
  stdout.write(values.json ? `${JSON.stringify(report, null, 2)}\n` : `${formatBench(report)}\n`);
  return 0;
}

if (isEntryPoint(import.meta.url)) {
  void benchCommand(process.argv.slice(2)).then((code) => {
    process.exitCode = code;
  });
}
