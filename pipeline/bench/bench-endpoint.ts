// Bench row for the pipeline's overhead per decision against a local OpenAI-compatible endpoint with a fixed latency,
// beside what a bare node:http client (the floor) and a bare SDK loop cost against the same server in the same run.
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { main } from '../cli/cli.js';
import { forEachJsonLine } from '../run-log/json-files.js';
import type { UnitRecord } from '../run-log/run-log.js';
import { floorLoop, sdkLoop } from './bench-endpoint-loops.js';
import { type BenchServer, startBenchServer } from './bench-endpoint-server.js';
import type { ServerStats } from './fixed-latency-server.js';

/** One measured loop against the endpoint, every time on the server's clock (its own process). */
export interface EndpointLoop {
  /** Chat calls the server answered (a multiple of `-j`, so no wave is partial). */
  calls: number;
  /** From the first call's arrival to the end of the last reply, s. */
  windowSeconds: number;
  /** Mean arrival → reply at the server, ms: the latency actually served (its timer fires a little late). */
  serviceMs: number;
  /** Mean calls in flight at the server over the window (Σ service / window). */
  achievedConcurrency: number;
  /** Time a slot spends per call beyond the served latency: j × window / calls − serviceMs, ms. */
  overheadMsPerCall: number;
  /**
   * CPU time (user + system, all threads) of this process per call, ms: less moved by other load than the wall
   * figures. The pipeline's is the marginal one between a short run and the measured run, both after a warm-up
   * (setup, plan and summary cancel out); the loops' is their whole CPU time over their calls.
   */
  cpuMsPerCall: number;
}

/** The endpoint row: the pipeline, then the floor and the SDK loop, back to back against one server. */
export interface EndpointBench {
  /** The server's configured latency per call, ms. */
  latencyMs: number;
  /** `-j` of the pipeline, and the loops of the floor and the SDK. */
  configuredConcurrency: number;
  /** `--trials` of the measured pipeline run (a multiple of `-j`): calls = scenarios × trials; a warm-up run of a quarter of them precedes it, and a baseline run as short follows. */
  trials: number;
  /** `pnpm eval --model gpt-5-nano` (graphiti, direct, no defence, `--no-cache`); every decision parsed, none failed. */
  pipeline: EndpointLoop;
  /** A minimal node:http client (keep-alive) posting the pipeline's first request body again, as many calls. */
  floor: EndpointLoop;
  /** The bare OpenAI SDK with the pipeline's client settings, sending that body again, as many calls. */
  sdk: EndpointLoop;
  /** pipeline − sdk overhead per call: what the pipeline's own work adds to an SDK call, ms. */
  pipelineAboveSdkMs: number;
}

/** A loop's figures from the server's stats for `concurrency` loops and the client's CPU time per call (ms). */
export function endpointLoopOf(stats: ServerStats, concurrency: number, cpuMsPerCall: number): EndpointLoop {
  const serviceMs = stats.busyMs / stats.calls;
  return {
    calls: stats.calls,
    windowSeconds: stats.windowMs / 1000,
    serviceMs,
    achievedConcurrency: stats.busyMs / stats.windowMs,
    overheadMsPerCall: (concurrency * stats.windowMs) / stats.calls - serviceMs,
    cpuMsPerCall,
  };
}

/** Throws unless every record of the run decided and parsed: the row must measure the normal path. */
export function checkPipelineRecords(records: readonly Pick<UnitRecord, 'scores' | 'status'>[], calls: number): void {
  const failed = records.filter((record) => record.status !== 'ok').length;
  const unparsed = records.filter((record) => record.scores.parseFailure).length;
  if (records.length !== calls || failed > 0 || unparsed > 0)
    throw new Error(
      `bench endpoint: the pipeline run is not the normal path: ${records.length} records for ${calls} calls, ` +
        `${failed} failed, ${unparsed} parse failures (all must be 0)`,
    );
}

/** A measured loop: the server's stats and this process's CPU time over it, ms. */
interface Measured {
  stats: ServerStats;
  cpuMs: number;
}

const cpuMsSince = (start: NodeJS.CpuUsage): number => {
  const { user, system } = process.cpuUsage(start);
  return (user + system) / 1000;
};

async function pipelineRun(server: BenchServer, trials: number, concurrency: number): Promise<Measured> {
  const out = mkdtempSync(join(tmpdir(), 'stalebench-bench-endpoint-'));
  const log = console.log;
  try {
    console.log = () => undefined;
    const args = ['eval', '--model', 'gpt-5-nano', '--systems', 'graphiti', '--modes', 'direct', '--arms', 'none'];
    const rest = ['--trials', String(trials), '-j', String(concurrency), '--no-cache', '--out', out];
    const env = { ...process.env, OPENAI_BASE_URL: server.baseURL, OPENAI_API_KEY: 'sk-bench-local' };
    await server.reset();
    const cpu = process.cpuUsage();
    const code = await main([...args, ...rest], env);
    const cpuMs = cpuMsSince(cpu);
    if (code !== 0) throw new Error(`bench endpoint: pnpm eval exited ${code}`);
    const stats = await server.stats();
    const records: UnitRecord[] = [];
    forEachJsonLine<UnitRecord>(join(out, readdirSync(out)[0]!, 'records.jsonl'), (record) => records.push(record));
    checkPipelineRecords(records, stats.calls);
    if (stats.unscripted > 0) throw new Error(`bench endpoint: ${stats.unscripted} prompts allowed no action`);
    return { stats, cpuMs };
  } finally {
    console.log = log;
    rmSync(out, { recursive: true, force: true });
  }
}

async function loopRun(server: BenchServer, run: () => Promise<void>, calls: number): Promise<Measured> {
  await server.reset();
  const cpu = process.cpuUsage();
  await run();
  const cpuMs = cpuMsSince(cpu);
  const stats = await server.stats();
  if (stats.calls !== calls) throw new Error(`bench endpoint: a loop made ${stats.calls} calls, not ${calls}`);
  return { stats, cpuMs };
}

/** Runs the pipeline at `-j 16` (a warm-up, then the measured run), then the floor and the SDK loop with as many calls, against one child server. */
export async function benchEndpoint(quick: boolean): Promise<EndpointBench> {
  const latencyMs = quick ? 20 : 100;
  const configuredConcurrency = 16;
  const trials = quick ? 16 : 64;
  const server = await startBenchServer(latencyMs);
  try {
    // A warm-up run (a quarter of the trials) first: the measured run starts with a warm JIT, as the loops after it do.
    // A second short run after it is the baseline of the marginal CPU per decision (both warm; setup cancels out).
    await pipelineRun(server, trials / 4, configuredConcurrency);
    const measured = await pipelineRun(server, trials, configuredConcurrency);
    const baseline = await pipelineRun(server, trials / 4, configuredConcurrency);
    const { calls, sample } = measured.stats;
    const body = sample!;
    const floorRun = await loopRun(server, () => floorLoop(server.baseURL, body, configuredConcurrency, calls), calls);
    const sdkRun = await loopRun(server, () => sdkLoop(server.baseURL, body, configuredConcurrency, calls), calls);
    const row = ({ stats, cpuMs }: Measured) => endpointLoopOf(stats, configuredConcurrency, cpuMs / stats.calls);
    const marginalCpu = (measured.cpuMs - baseline.cpuMs) / (calls - baseline.stats.calls);
    const pipeline = endpointLoopOf(measured.stats, configuredConcurrency, marginalCpu);
    const sdk = row(sdkRun);
    return {
      latencyMs,
      configuredConcurrency,
      trials,
      pipeline,
      floor: row(floorRun),
      sdk,
      pipelineAboveSdkMs: pipeline.overheadMsPerCall - sdk.overheadMsPerCall,
    };
  } finally {
    await server.close();
  }
}
