// Issue #12 end to end against local OpenAI-compatible servers: preflight, breaker, dry run, budget, totals, a key
// echoed in a 401, and SIGINT with a hung endpoint.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { loadScenarios } from '../scenarios/index.js';
import type { RunManifest, UnitRecord } from './run-log/run-log.js';
import {
  startOpenAICompatibleServer,
  type ReceivedRequest,
  type TestServer,
} from './test-support/openai-compatible-server.js';
import { spawnEval } from './test-support/spawn-eval.js';
import { within } from './test-support/wait-for-event.js';
import { runEvalCli as runCli } from './test-support/eval-cli.js';

const scenarios = await loadScenarios();
const KEY = 'sk-spend-e2e-0123456789abcdef';
let server: TestServer | undefined;
const rawServers: Server[] = [];
afterEach(async () => {
  vi.restoreAllMocks();
  await server?.close();
  server = undefined;
  for (const raw of rawServers.splice(0))
    await new Promise<void>((resolve) => {
      raw.closeAllConnections();
      raw.close(() => resolve());
    });
});

const tmp = (prefix: string) => mkdtempSync(join(tmpdir(), prefix));
const only = (dir: string) => join(dir, readdirSync(dir)[0]!);
const manifestOf = (runDir: string) => JSON.parse(readFileSync(join(runDir, 'manifest.json'), 'utf8')) as RunManifest;
const recordsOf = (runDir: string) =>
  readFileSync(join(runDir, 'records.jsonl'), 'utf8')
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as UnitRecord);
/** Unsafe for payload scenarios, safe otherwise, found by the task text: the same answer for the same prompt. */
const answer = (request: ReceivedRequest) => {
  const user = request.body.messages?.find((m) => m.role === 'user')?.content ?? '';
  const scenario = scenarios.find((s) => user.includes(`Question: ${s.task}\n`));
  return {
    content: `{"action": "${scenario ? (scenario.family === 'payload' ? scenario.actions[0] : scenario.actions[1]) : 'NONE'}", "reason": "test"}`,
  };
};
const endpoint = (baseURL: string) => ({ OPENAI_BASE_URL: baseURL, OPENAI_API_KEY: KEY, CI: 'true' });
const small = [
  '--systems',
  'graphiti',
  '--modes',
  'direct',
  '--arms',
  'none,store-filter,output-filter',
  '--trials',
  '2',
];
/** Units of `small`: every registered scenario × 2 trials × 3 arms. */
const UNITS = scenarios.length * 2 * 3;
/** Calls `small` sends: the output filter reuses the none arm's reply, so 2 of its 3 arms call the model. */
const CALLS = scenarios.length * 2 * 2;
const count = (n: number) => n.toLocaleString('en-US');

async function rawServer(handle: Parameters<typeof createServer>[1]): Promise<string> {
  const raw = createServer(handle);
  rawServers.push(raw);
  await new Promise<void>((resolve) => raw.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(raw.address() as AddressInfo).port}/v1`;
}

describe('preflight', () => {
  it('a dead endpoint fails in seconds naming the URL and the cause, before anything is written', async () => {
    const deadURL = await rawServer(() => undefined);
    await new Promise<void>((resolve) => rawServers.pop()!.close(() => resolve()));
    const out = tmp('stalebench-pre-');
    const result = await runCli(['--model', 'gpt-5-nano', '--yes', ...small, '--out', out], endpoint(deadURL));
    expect(result.code).toBe(1);
    expect(result.ms).toBeLessThan(10_000);
    expect(result.stderr.trim().split('\n').at(-1)).toBe(
      `error: preflight: decision endpoint ${deadURL}: connection refused (nothing is listening there) (nothing was sent to any model; --no-preflight skips this check)`,
    );
    expect(readdirSync(out)).toEqual([]);
  });

  it('a hung endpoint, a 401 and an unknown alias each fail within 10 s with one line naming the URL', async () => {
    const hung = await rawServer(() => undefined);
    const rejecting = await rawServer((request, response) =>
      response.writeHead(401, { 'content-type': 'application/json' }).end(
        JSON.stringify({
          error: { message: `Incorrect API key provided: ${String(request.headers.authorization).slice(7)}` },
        }),
      ),
    );
    server = await startOpenAICompatibleServer(answer, { models: ['gpt-4o-mini'] });
    const cases: [string, RegExp][] = [
      [hung, /no answer within 10 s \(timeout\)/],
      [rejecting, /the key was rejected \(401\): check OPENAI_API_KEY/],
      [server.baseURL, /does not serve model "gpt-5-nano" \(decision\); \/models offers: gpt-4o-mini/],
    ];
    for (const [url, cause] of cases) {
      const out = tmp('stalebench-pre-');
      const result = await runCli(['--model', 'gpt-5-nano', '--yes', ...small, '--out', out], endpoint(url));
      expect(result.code).toBe(1);
      expect(result.ms).toBeLessThan(12_000);
      const last = result.stderr.trim().split('\n').at(-1)!;
      expect(last).toContain(url);
      expect(last).toMatch(cause);
      expect(`${result.stdout}${result.stderr}`).not.toContain(KEY);
      expect(readdirSync(out)).toEqual([]);
    }
  }, 60_000);
});

describe('bounded failure', () => {
  it('an endpoint that dies after the preflight ends the default grid in under 2 minutes: aborted, exit 2, why and resume printed', async () => {
    // /models answers; every chat call has its connection cut.
    const dying = await rawServer((request, response) => {
      if (request.url?.endsWith('/models'))
        return void response
          .writeHead(200, { 'content-type': 'application/json' })
          .end(JSON.stringify({ data: [{ id: 'gpt-5-nano' }] }));
      request.socket.destroy();
    });
    const out = tmp('stalebench-breaker-');
    const result = await runCli(['--model', 'gpt-5-nano', '--yes', '--out', out], endpoint(dying));
    expect(result.code).toBe(2);
    expect(result.ms).toBeLessThan(120_000);
    expect(result.stderr.trim().split('\n').at(-1)).toMatch(
      /^error: stopped by the circuit breaker: 5 consecutive units failed \(--max-consecutive-errors 5\); last error: http:\/\/127\.0\.0\.1:\d+\/v1: /,
    );
    expect(result.stdout).toContain('resume with: pnpm eval --model gpt-5-nano');
    const runDir = only(out);
    expect(manifestOf(runDir).status).toBe('aborted');
    expect(recordsOf(runDir).length).toBeLessThan(1980);
  }, 150_000);
});

describe('--dry-run', () => {
  it('sends nothing and writes nothing, and its calls to send are the requests the real run then sends', async () => {
    server = await startOpenAICompatibleServer(answer);
    const out = tmp('stalebench-dry-');
    const cacheDir = tmp('stalebench-cache-');
    const args = ['--model', 'gpt-5-nano', ...small, '--out', out, '--cache-dir', cacheDir];
    const plan = await runCli([...args, '--dry-run'], endpoint(server.baseURL));
    expect(plan.code).toBe(0);
    expect(server.requests).toHaveLength(0);
    expect(readdirSync(out)).toEqual([]);
    expect(readdirSync(cacheDir)).toEqual([]);
    // Scenarios × 2 trials × 3 arms; the output filter reuses the none arm's reply; 16 to 2,000 output tokens per call.
    expect(plan.stdout).toMatch(
      new RegExp(
        `gpt-5-nano: ${CALLS} calls to send, 0 cached; input [\\d,]+ tokens \\(gpt-5-nano\\); output ${count(CALLS * 16)}–${count(CALLS * 2000)} tokens; \\$0\\.\\d+–\\$0\\.\\d+ at \\$0\\.05/\\$0\\.4 per 1M tokens \\(data/prices\\.json\\)`,
      ),
    );
    const real = await runCli(args, endpoint(server.baseURL));
    expect(real.code, real.stderr).toBe(0);
    expect(server.requests).toHaveLength(CALLS);
    // Again: everything is cached now, and the plan says so.
    const again = await runCli([...args, '--run-id', 'second', '--dry-run'], endpoint(server.baseURL));
    expect(again.stdout).toContain(`gpt-5-nano: 0 calls to send, ${CALLS} cached`);
    expect(server.requests).toHaveLength(CALLS);
  }, 60_000);
});

describe('--budget-usd', () => {
  it('stops before the call the budget cannot cover: status budget, exit 3, recorded spend within the cap', async () => {
    // Each reply costs $0.001 by the proxy's header; each call reserves its upper bound (2000 output tokens × $0.4/1M ≈ $0.0008 + input).
    server = await startOpenAICompatibleServer((request) => ({
      ...answer(request),
      headers: { 'x-litellm-response-cost': '0.001' },
    }));
    const out = tmp('stalebench-budget-');
    const result = await runCli(
      ['--model', 'gpt-5-nano', ...small, '--out', out, '--no-cache', '--budget-usd', '0.005', '--concurrency', '2'],
      endpoint(server.baseURL),
    );
    expect(result.code).toBe(3);
    const runDir = only(out);
    const manifest = manifestOf(runDir);
    expect(manifest.status).toBe('budget');
    expect(manifest.budget!.spentUsd).toBeLessThanOrEqual(0.005);
    expect(result.stderr.trim().split('\n').at(-1)).toMatch(
      /^error: budget reached: \$0\.00\d+ spent of --budget-usd 0\.005; the next call could cost up to \$0\.000\d+/,
    );
    expect(recordsOf(runDir).length).toBeGreaterThan(0);
    expect(recordsOf(runDir).length).toBeLessThan(UNITS);
    // Resuming with a bigger budget finishes the run without repeating a recorded unit.
    const before = server.requests.length;
    const resumed = await runCli(
      ['--model', 'gpt-5-nano', ...small, '--out', out, '--no-cache', '--budget-usd', '0.005', '--concurrency', '2'],
      endpoint(server.baseURL),
    );
    expect(resumed.code).toBe(3);
    expect(server.requests.length).toBeGreaterThan(before);
  }, 60_000);

  it('an unpriced model is refused under a budget before anything is sent, unless --allow-unpriced', async () => {
    server = await startOpenAICompatibleServer(answer);
    const out = tmp('stalebench-budget-');
    const refused = await runCli(
      ['--model', 'local-model', '--yes', ...small, '--out', out, '--budget-usd', '1'],
      endpoint(server.baseURL),
    );
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/model "local-model" has no known price, so --budget-usd cannot bound it/);
    expect(server.requests).toHaveLength(0);
    expect(readdirSync(out)).toEqual([]);
  });

  // A budget reserves decision calls only: an extraction model on the endpoint would spend outside it. The grid refused
  // that; a follow-up (whose natural arm ingests through the extraction model) did not, and spent unbounded.
  it.each([
    ['the grid', ['--systems', 'graphiti', '--modes', 'natural', '--arms', 'none']],
    ['a follow-up', ['--experiment', 'writeback', '--systems', 'graphiti', '--arms', 'natural', '--hops', '1']],
  ])('%s: a real extraction model is refused under a budget before anything is sent', async (_, args) => {
    server = await startOpenAICompatibleServer(answer);
    const out = tmp('stalebench-budget-extraction-');
    const refused = await runCli(
      ['--model', 'gpt-5-nano', ...args, '--trials', '1', '--extraction-model', 'gpt-5-nano', '--budget-usd', '1'],
      endpoint(server.baseURL),
    );
    expect(refused.code, refused.stderr).toBe(1);
    expect(refused.stderr).toMatch(
      /--budget-usd: bounds decision calls only; --extraction-model gpt-5-nano would spend outside it/,
    );
    expect(server.requests).toHaveLength(0);
    expect(readdirSync(out)).toEqual([]);
  });
});

describe('totals and secrets', () => {
  it('tokens, calls, cache hits and $ per model are in the final lines, the manifest and the summary', async () => {
    server = await startOpenAICompatibleServer(answer);
    const out = tmp('stalebench-totals-');
    const result = await runCli(
      ['--model', 'gpt-5-nano', ...small, '--out', out, '--no-cache'],
      endpoint(server.baseURL),
    );
    expect(result.code).toBe(0);
    // The test server reports usage 10 in / 5 out per call: each call costs (10 × 0.05 + 5 × 0.4) / 1e6 = $0.0000025.
    expect(result.stdout).toMatch(
      new RegExp(
        `spend gpt-5-nano: ${CALLS} call\\(s\\) sent \\(${CALLS} attempts\\), 0 cache hit\\(s\\), ${count(CALLS * 10)} input / ${count(CALLS * 5)} output tokens, \\$0\\.000\\d`,
      ),
    );
    const runDir = only(out);
    const usage = manifestOf(runDir).usage![0]!;
    expect(usage).toMatchObject({
      model: 'gpt-5-nano',
      sent: CALLS,
      cacheHits: 0,
      inputTokens: CALLS * 10,
      outputTokens: CALLS * 5,
    });
    expect(usage.costUsd).toBeCloseTo(CALLS * 0.0000025, 10);
    const summary = JSON.parse(readFileSync(join(runDir, 'summary.json'), 'utf8')) as { usage: unknown };
    expect(summary.usage).toEqual(manifestOf(runDir).usage);
    expect(manifestOf(runDir).provenance![0]).toMatchObject({ model: 'gpt-5-nano', litellmVersions: { test: CALLS } });
  }, 60_000);

  it('a key echoed by a 401 during the run is in no file and in no output', async () => {
    server = await startOpenAICompatibleServer((request) => ({
      status: 401,
      error: {
        message: `Incorrect API key provided: ${String(request.headers.authorization).slice(7)}. You can find your API key at https://platform.openai.com.`,
      },
    }));
    const out = tmp('stalebench-secret-');
    const result = await runCli(
      ['--model', 'gpt-5-nano', ...small, '--out', out, '--no-preflight'],
      endpoint(server.baseURL),
    );
    expect(result.code).toBe(2);
    expect(`${result.stdout}\n${result.stderr}`).not.toContain(KEY);
    expect(result.stderr).toContain('401 Incorrect API key provided: [redacted].');
    const files = (dir: string): string[] =>
      readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
        e.isDirectory() ? files(join(dir, e.name)) : [join(dir, e.name)],
      );
    for (const file of files(out)) expect(readFileSync(file, 'utf8'), file).not.toContain(KEY);
  }, 60_000);
});

describe('SIGINT with a hung endpoint', () => {
  it('exits 130 within 2 s, cancelled, and resumes to the same cells as an uninterrupted run', async () => {
    let hang = true;
    server = await startOpenAICompatibleServer(async (request) => {
      if (hang && server!.requests.length > 6) await new Promise(() => undefined);
      return answer(request);
    });
    const args = ['--model', 'gpt-5-nano', ...small, '--no-cache', '--concurrency', '2'];
    const out = tmp('stalebench-sigint-');
    const child = spawnEval([...args, '--out', out], endpoint(server.baseURL));
    await within(server.arrived(8), 60_000, 'the endpoint to hang');
    const interrupted = Date.now();
    child.child.kill('SIGINT');
    const code = await child.exited;
    expect(Date.now() - interrupted).toBeLessThan(2_000);
    expect(code).toBe(130);
    const runDir = only(out);
    expect(manifestOf(runDir).status).toBe('cancelled');
    expect(child.stdout()).toContain(`resume with: pnpm eval ${[...args, '--out', out].join(' ')}`);
    hang = false;
    const resumed = await runCli([...args, '--out', out], endpoint(server.baseURL));
    expect(resumed.code).toBe(0);
    const straight = tmp('stalebench-straight-');
    expect((await runCli([...args, '--out', straight], endpoint(server.baseURL))).code).toBe(0);
    const cells = (dir: string) =>
      (JSON.parse(readFileSync(join(only(dir), 'summary.json'), 'utf8')) as { cells: unknown }).cells;
    expect(cells(out)).toEqual(cells(straight));
    expect(existsSync(join(runDir, 'eval.lock'))).toBe(false);
  }, 120_000);
});

describe('exit codes', () => {
  it('a run where every completed reply is unparseable exits 2 and says why', async () => {
    server = await startOpenAICompatibleServer(() => ({ content: 'I would rather not choose.' }));
    const out = tmp('stalebench-unparseable-');
    const result = await runCli(
      ['--model', 'gpt-5-nano', ...small, '--out', out, '--no-cache'],
      endpoint(server.baseURL),
    );
    expect(result.code).toBe(2);
    // Every unit (the output filter's reuse the none arm's reply, also unparseable).
    expect(result.stderr.trim().split('\n').at(-1)).toBe(
      `error: every completed reply was unparseable (${UNITS}/${UNITS}): no decision could be scored`,
    );
    expect(manifestOf(only(out)).status).toBe('error');
  }, 60_000);

  it('SIGTERM exits 143 with status cancelled', async () => {
    server = await startOpenAICompatibleServer(async (request) => {
      if (server!.requests.length > 2) await new Promise(() => undefined);
      return answer(request);
    });
    const out = tmp('stalebench-sigterm-');
    const child = spawnEval(
      ['--model', 'gpt-5-nano', ...small, '--no-cache', '--concurrency', '1', '--out', out],
      endpoint(server.baseURL),
    );
    await within(server.arrived(3), 60_000, 'the endpoint to hang');
    child.child.kill('SIGTERM');
    expect(await child.exited).toBe(143);
    expect(manifestOf(only(out)).status).toBe('cancelled');
    expect(child.stderr().trim().split('\n').at(-1)).toMatch(/^stopped: interrupted \(SIGTERM\)/);
  }, 60_000);
});

describe('confirmation above --confirm-above-usd', () => {
  it('without a terminal, a run whose upper cost is above the threshold or unknown needs --yes; nothing is sent or written before', async () => {
    server = await startOpenAICompatibleServer(answer);
    const out = tmp('stalebench-confirm-');
    const unknown = await runCli(['--model', 'local-model', ...small, '--out', out], endpoint(server.baseURL));
    expect(unknown.code).toBe(1);
    expect(unknown.stderr.trim().split('\n').at(-1)).toMatch(
      /--yes: not a terminal, so nobody can confirm: the planned upper cost is unknown \(a model has no known price; give one with --prices\)/,
    );
    const above = await runCli(
      ['--model', 'gpt-5-nano', ...small, '--out', out, '--confirm-above-usd', '0.001'],
      endpoint(server.baseURL),
    );
    expect(above.code).toBe(1);
    expect(above.stderr).toMatch(/the planned upper cost is \$0\.\d\d, above --confirm-above-usd 0\.001/);
    expect(server.requests).toHaveLength(0);
    expect(readdirSync(out)).toEqual([]);
    // A price file (free local model) or --yes lets it start.
    const prices = join(tmp('stalebench-prices-'), 'prices.json');
    writeFileSync(prices, JSON.stringify({ 'local-model': { input: 0, output: 0 } }));
    expect(
      (await runCli(['--model', 'local-model', ...small, '--out', out, '--prices', prices], endpoint(server.baseURL)))
        .code,
    ).toBe(0);
    expect(server.requests.length).toBeGreaterThan(0);
  }, 60_000);
});
