// `pnpm eval` against a local endpoint that admits 20 requests per sliding second (429 + Retry-After beyond it, OpenAI's
// x-ratelimit-* headers on every answer): the adaptive limit answers every unit with few 429s at -j 16; with
// --fixed-concurrency every unit goes at once, as before. Counts only: no timing is asserted (the bench measures).
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { loadScenarios } from '../../scenarios/index.js';
import type { UnitRecord } from '../run-log/run-log.js';
import {
  startOpenAICompatibleServer,
  type ScriptedReply,
  type TestServer,
} from '../test-support/openai-compatible-server.js';
import { evalInProcess } from '../test-support/shard-runs.js';

const scenarios = await loadScenarios();
const servers: TestServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

/** A server admitting `limit` requests per sliding second (`limit` Infinity: no limit), answering after 20 ms. */
async function rateLimitedServer(limit: number) {
  const seen = { inFlight: 0, maxInFlight: 0, rateLimited: 0, admitted: 0 };
  let admitted: number[] = [];
  const server = await startOpenAICompatibleServer(async (request): Promise<ScriptedReply> => {
    const now = performance.now();
    admitted = admitted.filter((at) => at > now - 1000);
    const reset = `${Math.ceil((admitted[0] ?? now) + 1000 - now)}ms`;
    const headers = { 'x-ratelimit-limit-requests': String(limit), 'x-ratelimit-reset-requests': reset };
    if (admitted.length >= limit) {
      seen.rateLimited += 1;
      const after = String(Math.ceil(admitted[0]! + 1000 - now));
      return {
        status: 429,
        error: { message: 'Rate limit reached' },
        headers: { ...headers, 'x-ratelimit-remaining-requests': '0', 'retry-after-ms': after },
      };
    }
    admitted.push(now);
    seen.admitted += 1;
    seen.inFlight += 1;
    seen.maxInFlight = Math.max(seen.maxInFlight, seen.inFlight);
    // Kept: the server's fixed latency is part of the rate limit under test (requests in flight, a sliding window).
    await new Promise((resolve) => setTimeout(resolve, 20));
    seen.inFlight -= 1;
    const user = request.body.messages?.find((m) => m.role === 'user')?.content ?? '';
    const scenario = scenarios.find((s) => user.includes(`Question: ${s.task}\n`))!;
    return {
      content: JSON.stringify({ action: scenario.actions[1], reason: 'policy' }),
      headers: {
        'x-ratelimit-limit-requests': String(limit),
        'x-ratelimit-remaining-requests': String(limit - admitted.length),
        'x-ratelimit-reset-requests': '1s',
      },
    };
  });
  servers.push(server);
  return { server, seen };
}

async function run(server: TestServer, trials: number, extra: string[] = []) {
  const root = mkdtempSync(join(tmpdir(), 'stalebench-aimd-'));
  const args = ['--model', 'rate-model', '--systems', 'graphiti', '--modes', 'direct', '--arms', 'none'];
  const result = await evalInProcess(
    [
      ...args,
      '--trials',
      String(trials),
      '-j',
      '16',
      '--no-cache',
      '--quiet',
      '--yes',
      '--out',
      join(root, 'runs'),
      ...extra,
    ],
    { OPENAI_BASE_URL: server.baseURL, OPENAI_API_KEY: 'sk-local' },
  );
  expect(result.code, result.stderr).toBe(0);
  const runDir = join(root, 'runs', readdirSync(join(root, 'runs'))[0]!);
  return readFileSync(join(runDir, 'records.jsonl'), 'utf8')
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as UnitRecord);
}

describe('the adaptive call limit in a run', () => {
  it('answers every unit against 20 requests per second at -j 16 with few 429s, never above -j in flight', async () => {
    const { server, seen } = await rateLimitedServer(20);
    const records = await run(server, 6);
    expect(records).toHaveLength(scenarios.length * 6);
    expect(records.every((record) => record.status === 'ok')).toBe(true);
    expect(seen.admitted).toBe(records.length);
    // A loose bound (the bench measures the share): units at -j 16 sent as they come draw far more.
    expect(seen.rateLimited).toBeLessThanOrEqual(Math.ceil(0.1 * server.requests.length));
    expect(seen.maxInFlight).toBeLessThanOrEqual(16);
  }, 60_000);

  it('--fixed-concurrency sends as units come: -j calls in flight from the start, no pacing', async () => {
    const { server, seen } = await rateLimitedServer(Number.POSITIVE_INFINITY);
    const records = await run(server, 2, ['--fixed-concurrency']);
    expect(records.every((record) => record.status === 'ok')).toBe(true);
    expect(seen.maxInFlight).toBe(16);
  }, 60_000);
});
