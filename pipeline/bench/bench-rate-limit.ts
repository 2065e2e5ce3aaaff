// Bench rows for the adaptive call limit: the pipeline at a starting -j 64 against a local endpoint that enforces 40
// requests per second, then one that enforces a token rate; how much of the limit it used, and how many 429s it drew.
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { main } from '../cli/cli.js';
import { forEachJsonLine } from '../run-log/json-files.js';
import type { UnitRecord } from '../run-log/run-log.js';
import { startChildServer } from './bench-endpoint-server.js';
import { checkPipelineRecords } from './bench-endpoint.js';
import type { RateLimitStats } from './rate-limit-server.js';

/** One rate-limited run of the pipeline. */
export interface RateLimitRow {
  /** What the server limits, per sliding second. */
  kind: 'requests' | 'tokens';
  limitPerSecond: number;
  /** The server's latency per answer, ms. */
  latencyMs: number;
  /** `-j` of the run: the upper bound the controller starts under. */
  concurrency: number;
  /** `--fixed-concurrency`: the old behaviour, for comparison. */
  fixed: boolean;
  /** Calls the server admitted (one per unit). */
  calls: number;
  /** Calls it answered 429. */
  rateLimited: number;
  /** 429s among every call it received, %. */
  percent429: number;
  /**
   * The admitted rate as a share of the most a sliding one-second window admits over the same span, %: admitted /
   * (limit × (span + 1 s)), the span from the first call's arrival to the last admitted one's.
   */
  percentOfLimit: number;
  /** The run's wall time (setup and summary included), s. */
  wallSeconds: number;
  /** The machine's 1-minute load average before and after the run. */
  loadAverage: [number, number];
}

/** The row's figures from the server's stats. */
function rateLimitFigures(
  stats: RateLimitStats,
  kind: RateLimitRow['kind'],
  limitPerSecond: number,
): Pick<RateLimitRow, 'calls' | 'rateLimited' | 'percent429' | 'percentOfLimit'> {
  const admitted = kind === 'requests' ? stats.accepted : stats.acceptedTokens;
  return {
    calls: stats.accepted,
    rateLimited: stats.rateLimited,
    percent429: (100 * stats.rateLimited) / (stats.accepted + stats.rateLimited),
    percentOfLimit: (100 * admitted) / (limitPerSecond * (stats.spanMs / 1000 + 1)),
  };
}

/** Runs `pnpm eval` (graphiti, direct, no defence, `--no-cache`) for `calls` units at `-j concurrency` against one child server. */
export async function benchRateLimit(
  kind: RateLimitRow['kind'],
  limitPerSecond: number,
  options: { calls: number; concurrency: number; latencyMs: number; fixed?: boolean },
): Promise<RateLimitRow> {
  const server = await startChildServer<RateLimitStats>(join(import.meta.dirname, 'rate-limit-server.ts'), [
    kind,
    String(limitPerSecond),
    String(options.latencyMs),
  ]);
  const out = mkdtempSync(join(tmpdir(), 'stalebench-bench-rate-'));
  const log = console.log;
  try {
    console.log = () => undefined;
    const args = ['eval', '--model', 'gpt-5-nano', '--systems', 'graphiti', '--modes', 'direct', '--arms', 'none'];
    const trials = Math.ceil(options.calls / 9);
    const rest = ['--trials', String(trials), '--limit', String(options.calls), '-j', String(options.concurrency)];
    const flags = ['--no-cache', '--quiet', '--yes', '--out', out, ...(options.fixed ? ['--fixed-concurrency'] : [])];
    const env = { ...process.env, OPENAI_BASE_URL: server.baseURL, OPENAI_API_KEY: 'sk-bench-local' };
    const loadBefore = loadavg()[0]!;
    const started = performance.now();
    const code = await main([...args, ...rest, ...flags], env);
    const wallSeconds = (performance.now() - started) / 1000;
    const stats = await server.stats();
    const records: UnitRecord[] = [];
    forEachJsonLine<UnitRecord>(join(out, readdirSync(out)[0]!, 'records.jsonl'), (record) => records.push(record));
    if (!options.fixed) {
      if (code !== 0) throw new Error(`bench rate limit: pnpm eval exited ${code}`);
      checkPipelineRecords(records, options.calls);
    }
    if (stats.unscripted > 0) throw new Error(`bench rate limit: ${stats.unscripted} prompts allowed no action`);
    return {
      kind,
      limitPerSecond,
      latencyMs: options.latencyMs,
      concurrency: options.concurrency,
      fixed: options.fixed ?? false,
      ...rateLimitFigures(stats, kind, limitPerSecond),
      wallSeconds,
      loadAverage: [loadBefore, loadavg()[0]!],
    };
  } finally {
    console.log = log;
    rmSync(out, { recursive: true, force: true });
    await server.close();
  }
}
