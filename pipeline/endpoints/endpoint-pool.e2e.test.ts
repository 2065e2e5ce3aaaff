// `pnpm eval --endpoints`: two local OpenAI-compatible servers, one answering 429 now and then; both stay busy within
// their limits, the run completes, and the manifest counts what each did. Keys come from the environment only.
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { loadScenarios } from '../../scenarios/index.js';
import type { RunManifest, UnitRecord } from '../run-log/run-log.js';
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

/** A server that answers the scenario's safe action after `delayMs`, tracking requests in flight; `limited(i)`: answer 429. */
async function trackedServer(delayMs: number, limited: (index: number) => boolean) {
  const seen = { inFlight: 0, maxInFlight: 0, rateLimited: 0 };
  const server = await startOpenAICompatibleServer(async (request, index): Promise<ScriptedReply> => {
    seen.inFlight += 1;
    seen.maxInFlight = Math.max(seen.maxInFlight, seen.inFlight);
    // Kept: the server's fixed latency is what is under test (requests stay in flight, so the limits are reached).
    await new Promise((resolve) => setTimeout(resolve, delayMs));
    seen.inFlight -= 1;
    if (limited(index)) {
      seen.rateLimited += 1;
      return { status: 429, error: { message: 'rate limited' }, headers: { 'retry-after-ms': '60' } };
    }
    const user = request.body.messages?.find((m) => m.role === 'user')?.content ?? '';
    const scenario = scenarios.find((s) => user.includes(`Question: ${s.task}\n`))!;
    return { content: JSON.stringify({ action: scenario.actions[1], reason: 'policy' }) };
  });
  servers.push(server);
  return { server, seen };
}

const files = (dir: string): string[] =>
  readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? files(join(dir, e.name)) : [join(dir, e.name)],
  );

describe('an endpoint pool', () => {
  it('keeps both endpoints busy within their limits through 429s on one, and the run completes', async () => {
    const a = await trackedServer(40, (index) => index % 4 === 3);
    const b = await trackedServer(40, () => false);
    const root = mkdtempSync(join(tmpdir(), 'stalebench-pool-'));
    const endpoints = join(root, 'endpoints.json');
    writeFileSync(
      endpoints,
      JSON.stringify({
        endpoints: [
          { name: 'a', baseURL: a.server.baseURL, keyEnv: 'POOL_KEY_A', maxConcurrency: 2 },
          { name: 'b', baseURL: b.server.baseURL, keyEnv: 'POOL_KEY_B', maxConcurrency: 3, weight: 2 },
        ],
      }),
    );
    const env = { POOL_KEY_A: 'pool-secret-aaaa', POOL_KEY_B: 'pool-secret-bbbb' };
    const result = await evalInProcess(
      [
        '--model',
        'pool-model',
        '--systems',
        'graphiti',
        '--modes',
        'direct',
        '--arms',
        'none',
        '--trials',
        '4',
        '-j',
        '8',
        '--no-cache',
        '--quiet',
        '--yes',
        '--endpoints',
        endpoints,
        '--out',
        join(root, 'runs'),
      ],
      env,
    );
    expect(result.code, result.stderr).toBe(0);
    // Both busy, neither past its limit; the 429s happened and were absorbed.
    expect(a.seen.maxInFlight).toBe(2);
    expect(b.seen.maxInFlight).toBe(3);
    expect(a.seen.rateLimited).toBeGreaterThan(0);
    // Every endpoint was probed once, each with its own key.
    expect(a.server.modelListRequests).toHaveLength(1);
    expect(b.server.modelListRequests).toHaveLength(1);
    expect(new Set(a.server.requests.map((r) => r.headers.authorization))).toEqual(
      new Set(['Bearer pool-secret-aaaa']),
    );
    expect(new Set(b.server.requests.map((r) => r.headers.authorization))).toEqual(
      new Set(['Bearer pool-secret-bbbb']),
    );
    const runDir = join(root, 'runs', readdirSync(join(root, 'runs'))[0]!);
    const manifest = JSON.parse(readFileSync(join(runDir, 'manifest.json'), 'utf8')) as RunManifest;
    expect(manifest.status).toBe('success');
    expect(manifest.counts).toMatchObject({ units: scenarios.length * 4, errors: 0 });
    expect(manifest.endpoints).toEqual([
      expect.objectContaining({
        name: 'a',
        keyEnv: 'POOL_KEY_A',
        maxConcurrency: 2,
        requests: a.server.requests.length,
        rateLimited: a.seen.rateLimited,
        ok: a.server.requests.length - a.seen.rateLimited,
        maxInFlight: 2,
      }),
      expect.objectContaining({ name: 'b', requests: b.server.requests.length, rateLimited: 0, maxInFlight: 3 }),
    ]);
    const records = readFileSync(join(runDir, 'records.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as UnitRecord);
    expect(records.every((r) => r.status === 'ok')).toBe(true);
    expect(a.server.requests.length - a.seen.rateLimited + b.server.requests.length).toBe(records.length);
    // The keys are in no file of the run.
    for (const path of files(runDir)) expect(readFileSync(path, 'utf8'), path).not.toMatch(/pool-secret/);
  }, 60_000);

  it('refuses a bad endpoints file before anything is written, naming the file, the field and the reason', async () => {
    const root = mkdtempSync(join(tmpdir(), 'stalebench-pool-'));
    const endpoints = join(root, 'endpoints.json');
    writeFileSync(
      endpoints,
      JSON.stringify({ endpoints: [{ baseURL: 'http://127.0.0.1:9/v1', keyEnv: 'NOPE_KEY', maxConcurrency: 0 }] }),
    );
    const result = await evalInProcess(
      ['--model', 'pool-model', '--systems', 'graphiti', '--endpoints', endpoints, '--out', join(root, 'runs')],
      {},
    );
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(endpoints);
    expect(result.stderr).toMatch(/endpoints\.0\.maxConcurrency: /);
    expect(readdirSync(root)).toEqual(['endpoints.json']);
  });
});
