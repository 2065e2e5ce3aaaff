// Spending safely at the model edge: bounded attempts, redacted errors, Ctrl+C mid-backoff, the budget gate before any byte is sent.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { BudgetExhaustedError, createBudget, createSpendGate } from '../run/budget.js';
import { ProviderError } from '#core/errors.js';
import { abortableSleep } from '#core/retry-policy.js';
import { createOpenAIDecisionModel } from './openai-decision-model.js';
import { startOpenAICompatibleServer, type TestServer } from '../test-support/openai-compatible-server.js';

const messages = [
  { role: 'system' as const, content: 'S' },
  { role: 'user' as const, content: 'U' },
];
const KEY = 'sk-spend-test-key-9876543210';
let server: TestServer | undefined;
let hung: Server | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
  if (hung)
    await new Promise<void>((resolve) => {
      hung!.closeAllConnections();
      hung!.close(() => resolve());
    });
  hung = undefined;
});

async function hungServer(): Promise<string> {
  hung = createServer(() => undefined);
  await new Promise<void>((resolve) => hung!.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(hung.address() as AddressInfo).port}/v1`;
}

const failureOf = async (promise: Promise<unknown>) =>
  (await promise.then(
    () => null,
    (error: unknown) => error,
  )) as ProviderError;

describe('OpenAI-compatible decision model: bounded and safe', () => {
  it('a hung endpoint fails each attempt at the request timeout and gives up after the retry ladder, naming the URL', async () => {
    const baseURL = await hungServer();
    const model = createOpenAIDecisionModel({
      model: 'm',
      baseURL,
      apiKey: KEY,
      timeoutMs: 200,
      retry: { maxAttempts: 2, baseDelayMs: 1, maxDelayMs: 1, jitterMs: 0 },
    });
    const started = Date.now();
    const error = await failureOf(model.decide({ messages, trial: 0, sample: 's' }));
    expect(Date.now() - started).toBeLessThan(2_000);
    expect(error).toBeInstanceOf(ProviderError);
    expect(error.message).toBe(`${baseURL}: no answer within 0.2 s (timeout) (gave up after 2 attempts)`);
    expect(model.description.settings.timeoutMs).toBe(200);
    expect(createOpenAIDecisionModel({ model: 'm', baseURL, apiKey: KEY }).description.settings.timeoutMs).toBe(60_000);
  });

  it('a refused connection names the URL and the cause', async () => {
    const baseURL = await hungServer();
    await new Promise<void>((resolve) => hung!.close(() => resolve()));
    hung = undefined;
    const model = createOpenAIDecisionModel({
      model: 'm',
      baseURL,
      apiKey: KEY,
      retry: { maxAttempts: 1, baseDelayMs: 1, maxDelayMs: 1, jitterMs: 0 },
    });
    const error = await failureOf(model.decide({ messages, trial: 0, sample: 's' }));
    expect(error.message).toBe(
      `${baseURL}: connection refused (nothing is listening there) (gave up after 1 attempts)`,
    );
  });

  it('a 401 whose body echoes the key is redacted in the error', async () => {
    server = await startOpenAICompatibleServer((request) => ({
      status: 401,
      error: { message: `Incorrect API key provided: ${String(request.headers.authorization).slice(7)}.` },
    }));
    const model = createOpenAIDecisionModel({ model: 'm', baseURL: server.baseURL, apiKey: KEY });
    const error = await failureOf(model.decide({ messages, trial: 0, sample: 's' }));
    expect(error.status).toBe(401);
    expect(error.message).toContain('Incorrect API key provided: [redacted].');
    expect(`${error.message}\n${error.stack}`).not.toContain(KEY);
  });

  it('Ctrl+C during a long backoff stops at once', async () => {
    server = await startOpenAICompatibleServer(() => ({
      status: 429,
      error: { message: 'slow down' },
      headers: { 'retry-after': '50' },
    }));
    const controller = new AbortController();
    const backoffs: number[] = [];
    const model = createOpenAIDecisionModel({
      model: 'm',
      baseURL: server.baseURL,
      apiKey: KEY,
      retry: { maxAttempts: 6, baseDelayMs: 50_000, maxDelayMs: 60_000, jitterMs: 0 },
      // The default sleep; Ctrl+C is pressed once the backoff has started (the event), not after a guessed delay.
      sleep: (ms, signal) => {
        backoffs.push(ms);
        const sleeping = abortableSleep(ms, signal);
        controller.abort();
        return sleeping;
      },
    });
    const started = Date.now();
    const error = await failureOf(model.decide({ messages, trial: 0, sample: 's', signal: controller.signal }));
    expect(backoffs).toEqual([50_000]);
    expect(Date.now() - started).toBeLessThan(2_000);
    expect(error.message).toMatch(/cancelled/);
    expect(server.requests).toHaveLength(1);
  });

  it('the budget is checked before anything is sent, and settled with the proxy cost', async () => {
    server = await startOpenAICompatibleServer(() => ({ content: '{"action": "B"}' }));
    const prices = { m: { input: 1, output: 10, source: 'test' } };
    const budget = createBudget({ limitUsd: 0.0201, priceOf: (m) => prices[m as 'm'] ?? null, allowUnpriced: false });
    const spend = createSpendGate(budget, { countTokens: () => 10, priceOf: (m) => prices[m as 'm'] ?? null });
    // Upper bound per call: (ceil(10 × 1.1) + 16) × 1e-6 + 2000 × 10e-6 = 0.020027; the server bills usage 10 in / 5 out = 0.00006.
    // Call 1: 0.020027 ≤ 0.0201; call 2: 0.00006 + 0.020027 ≤ 0.0201; call 3: 0.00012 + 0.020027 > 0.0201, refused unsent.
    const model = createOpenAIDecisionModel({ model: 'm', baseURL: server.baseURL, apiKey: KEY, spend });
    await model.decide({ messages, trial: 0, sample: 's1' });
    expect(budget.totals().spentUsd).toBeCloseTo(0.00006, 10);
    await model.decide({ messages, trial: 0, sample: 's2' });
    await expect(model.decide({ messages, trial: 0, sample: 's3' })).rejects.toBeInstanceOf(BudgetExhaustedError);
    expect(server.requests).toHaveLength(2);
    expect(budget.totals().spentUsd).toBeLessThanOrEqual(0.0201);
  });

  it('concurrent calls wait for the budget instead of failing; a call stopped while it waits is not sent and not counted', async () => {
    const release: (() => void)[] = [];
    server = await startOpenAICompatibleServer(async () => {
      await new Promise<void>((resolve) => release.push(resolve));
      return { content: '{"action": "B"}' };
    });
    const prices = { m: { input: 1, output: 10, source: 'test' } };
    // Upper bound per call 0.020027 (see above): two fit in 0.05, three do not; each reply bills 0.00006.
    const budget = createBudget({ limitUsd: 0.05, priceOf: () => prices.m, allowUnpriced: false });
    const spend = createSpendGate(budget, { countTokens: () => 10, priceOf: () => prices.m });
    const model = createOpenAIDecisionModel({ model: 'm', baseURL: server.baseURL, apiKey: KEY, spend });
    const stop = new AbortController();
    const calls = ['s1', 's2', 's3'].map((sample) => model.decide({ messages, trial: 0, sample }));
    const stopped = model.decide({ messages, trial: 0, sample: 's4', signal: stop.signal });
    await server.arrived(2);
    expect(budget.totals().reservedUsd).toBeCloseTo(2 * 0.020027, 9);
    stop.abort();
    expect((await failureOf(stopped)).message).toBe('cancelled before sending');
    // Answer the first two; the third is sent once one of them has settled, and answered when it arrives.
    for (const answer of release.splice(0)) answer();
    await server.arrived(3);
    for (const answer of release.splice(0)) answer();
    await Promise.all(calls);
    expect(server.requests).toHaveLength(3);
    expect(budget.totals()).toMatchObject({ reservedUsd: 0, callsWithUnknownCost: 0 });
    expect(budget.totals().spentUsd).toBeCloseTo(3 * 0.00006, 12);
  });

  it('a refused or HTTP-failed attempt is not billed; a timed-out one keeps its reservation (fail-closed)', async () => {
    const prices = { m: { input: 1, output: 1, source: 'test' } };
    const budget = createBudget({ limitUsd: 1, priceOf: () => prices.m, allowUnpriced: false });
    const spend = createSpendGate(budget, { countTokens: () => 10, priceOf: () => prices.m });
    server = await startOpenAICompatibleServer(() => ({ status: 400, error: { message: 'bad request' } }));
    const model = createOpenAIDecisionModel({ model: 'm', baseURL: server.baseURL, apiKey: KEY, spend });
    await failureOf(model.decide({ messages, trial: 0, sample: 's' }));
    expect(budget.totals()).toMatchObject({ spentUsd: 0, reservedUsd: 0 });
    const baseURL = await hungServer();
    const slow = createOpenAIDecisionModel({
      model: 'm',
      baseURL,
      apiKey: KEY,
      spend,
      timeoutMs: 100,
      retry: { maxAttempts: 1, baseDelayMs: 1, maxDelayMs: 1, jitterMs: 0 },
    });
    await failureOf(slow.decide({ messages, trial: 0, sample: 's' }));
    expect(budget.totals()).toMatchObject({ callsWithUnknownCost: 1, reservedUsd: 0 });
    expect(budget.totals().spentUsd).toBeGreaterThan(0);
  });
});
