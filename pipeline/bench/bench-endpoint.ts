// Bench row for the pipeline's overhead per decision against a local OpenAI-compatible endpoint with a fixed latency.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { main } from '../cli.js';
import { startOpenAICompatibleServer } from '../test-support/openai-compatible-server.js';

/** The endpoint row. */
export interface EndpointBench {
  /** The endpoint's fixed latency per call, ms. */
  latencyMs: number;
  /** `-j`, units in flight at most. */
  configuredConcurrency: number;
  /** Model calls the endpoint served. */
  calls: number;
  /** From the first call's arrival to the last reply, s. */
  windowSeconds: number;
  /** Mean calls in flight at the endpoint over that window (Σ call durations / window). */
  achievedConcurrency: number;
  /** Time a slot spends per decision beyond the endpoint's latency: j × window / calls − latency, ms. */
  overheadMsPerDecision: number;
}

/** Runs a direct-mode grid of one system (`gpt-5-nano` through the local server) at `-j 16`. */
export async function benchEndpoint(quick: boolean): Promise<EndpointBench> {
  const latencyMs = quick ? 20 : 100;
  const configuredConcurrency = 16;
  let first = 0;
  let last = 0;
  let busy = 0;
  const server = await startOpenAICompatibleServer(async () => {
    const arrived = performance.now();
    if (first === 0) first = arrived;
    await new Promise((resolve) => setTimeout(resolve, latencyMs));
    last = performance.now();
    busy += last - arrived;
    return { content: '{"action": "REJECT", "reason": "bench"}' };
  });
  const out = mkdtempSync(join(tmpdir(), 'stalebench-bench-endpoint-'));
  const log = console.log;
  try {
    console.log = () => undefined;
    const args = ['eval', '--model', 'gpt-5-nano', '--systems', 'graphiti', '--modes', 'direct', '--arms', 'none'];
    const trials = ['--trials', quick ? '4' : '40', '-j', String(configuredConcurrency), '--no-cache', '--out', out];
    const env = { ...process.env, OPENAI_BASE_URL: server.baseURL, OPENAI_API_KEY: 'sk-bench-local' };
    const code = await main([...args, ...trials], env);
    if (code !== 0) throw new Error(`bench endpoint: pnpm eval exited ${code}`);
  } finally {
    console.log = log;
    await server.close();
    rmSync(out, { recursive: true, force: true });
  }
  const calls = server.requests.length;
  const windowMs = last - first;
  return {
    latencyMs,
    configuredConcurrency,
    calls,
    windowSeconds: windowMs / 1000,
    achievedConcurrency: busy / windowMs,
    overheadMsPerDecision: (configuredConcurrency * windowMs) / calls - latencyMs,
  };
}
