import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createOpenAIDecisionModel, usesCompletionTokenCap } from './openai-decision-model.js';
import { createResponseCache } from './response-cache.js';
import { startOpenAICompatibleServer, type TestServer } from '../test-support/openai-compatible-server.js';
import { ProviderError } from '#core/errors.js';

const messages = [
  { role: 'system' as const, content: 'S' },
  { role: 'user' as const, content: 'U' },
];
const fastRetry = { maxAttempts: 6, baseDelayMs: 1, maxDelayMs: 50, jitterMs: 0 };
let server: TestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

function walk(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? walk(join(dir, e.name)) : [join(dir, e.name)],
  );
}

describe('OpenAI-compatible decision model', () => {
  it('sends the messages at temperature 0.7 with max_tokens 2000 and the SDK retries off', async () => {
    server = await startOpenAICompatibleServer(() => ({ content: '{"action": "REJECT"}' }));
    const model = createOpenAIDecisionModel({
      model: 'llama-3',
      baseURL: server.baseURL,
      apiKey: 'sk-test-secret',
      retry: fastRetry,
    });
    const reply = await model.decide({ messages, trial: 0, sample: 'grid/unit' });
    expect(reply.text).toBe('{"action": "REJECT"}');
    expect(server.requests[0]!.body).toEqual({ model: 'llama-3', messages, temperature: 0.7, max_tokens: 2000 });
    expect(server.requests[0]!.headers.authorization).toBe('Bearer sk-test-secret');
    expect(reply.attempts).toBe(1);
    expect(reply.headers['x-litellm-version']).toBe('test');
  });

  it('uses max_completion_tokens for the gpt-5 family and still asks for temperature 0.7', async () => {
    server = await startOpenAICompatibleServer(() => ({ content: 'x' }));
    const model = createOpenAIDecisionModel({
      model: 'gpt-5-nano',
      baseURL: server.baseURL,
      apiKey: 'k',
      retry: fastRetry,
    });
    await model.decide({ messages, trial: 0, sample: 'grid/unit' });
    expect(server.requests[0]!.body).toMatchObject({ temperature: 0.7, max_completion_tokens: 2000 });
    expect(server.requests[0]!.body).not.toHaveProperty('max_tokens');
    expect(usesCompletionTokenCap('openai/gpt-5.5')).toBe(true);
    expect(usesCompletionTokenCap('gemini-2.5-flash')).toBe(false);
  });

  it('retries a 429 honouring Retry-After and records the attempts', async () => {
    server = await startOpenAICompatibleServer((_, index) =>
      index === 0
        ? { status: 429, error: { message: 'Rate limit reached' }, headers: { 'retry-after': '0' } }
        : { content: '{"action": "A"}' },
    );
    const waits: number[] = [];
    const model = createOpenAIDecisionModel({
      model: 'm',
      baseURL: server.baseURL,
      apiKey: 'k',
      retry: fastRetry,
      sleep: async (ms) => void waits.push(ms),
    });
    const reply = await model.decide({ messages, trial: 0, sample: 'grid/unit' });
    expect(reply.attempts).toBe(2);
    expect(waits).toEqual([0]);
    expect(server.requests).toHaveLength(2);
  });

  it('drops temperature after a rejection naming temperature and support, and records it', async () => {
    server = await startOpenAICompatibleServer((request) =>
      request.body.temperature !== undefined
        ? { status: 400, error: { message: "Unsupported value: 'temperature' does not support 0.7 with this model." } }
        : { content: '{"action": "B"}' },
    );
    const model = createOpenAIDecisionModel({
      model: 'gpt-5-nano',
      baseURL: server.baseURL,
      apiKey: 'k',
      retry: fastRetry,
    });
    const reply = await model.decide({ messages, trial: 0, sample: 'grid/unit' });
    expect(reply.sent).toEqual({ max_completion_tokens: 2000 });
    expect(reply.requested).toEqual({ temperature: 0.7, max_completion_tokens: 2000 });
    expect(reply.notes.join(' ')).toMatch(/rejected temperature/);
    expect(model.providerDefaultTemperature()).toEqual(['gpt-5-nano']);
    await model.decide({ messages, trial: 1, sample: 'grid/unit' });
    expect(server.requests.map((r) => r.body.temperature)).toEqual([0.7, undefined, undefined]);
  });

  it('fails with ProviderError on a non-retryable error, and gives up after maxAttempts on 429s', async () => {
    server = await startOpenAICompatibleServer(() => ({ status: 401, error: { message: 'bad key' } }));
    const model = createOpenAIDecisionModel({ model: 'm', baseURL: server.baseURL, apiKey: 'k', retry: fastRetry });
    await expect(model.decide({ messages, trial: 0, sample: 'grid/unit' })).rejects.toBeInstanceOf(ProviderError);
    expect(server.requests).toHaveLength(1);
    await server.close();
    server = await startOpenAICompatibleServer(() => ({
      status: 429,
      error: { message: 'slow down' },
      headers: { 'retry-after-ms': '1' },
    }));
    const limited = createOpenAIDecisionModel({
      model: 'm',
      baseURL: server.baseURL,
      apiKey: 'k',
      retry: { ...fastRetry, maxAttempts: 3 },
    });
    await expect(limited.decide({ messages, trial: 0, sample: 'grid/unit' })).rejects.toMatchObject({
      attempts: 3,
      status: 429,
    });
    expect(server.requests).toHaveLength(3);
  });

  it('caches validated replies per exact body and trial, never errors or empty content, and stores no key', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'stalebench-cache-'));
    let calls = 0;
    server = await startOpenAICompatibleServer((request) => {
      calls += 1;
      return request.body.messages?.some((m) => m.content === 'empty')
        ? { content: '' }
        : { content: `reply ${calls}` };
    });
    const make = () =>
      createOpenAIDecisionModel({
        model: 'm',
        baseURL: server!.baseURL,
        apiKey: 'sk-must-not-leak',
        retry: fastRetry,
        cache: createResponseCache({ dir, enabled: true }),
      });
    const first = await make().decide({ messages, trial: 0, sample: 'grid/unit' });
    const again = await make().decide({ messages, trial: 0, sample: 'grid/unit' });
    const otherTrial = await make().decide({ messages, trial: 1, sample: 'grid/unit' });
    expect(first.cached).toBe(false);
    expect(again).toMatchObject({ cached: true, text: first.text, attempts: 0 });
    expect(otherTrial.cached).toBe(false);
    const empty = [{ role: 'user' as const, content: 'empty' }];
    await make().decide({ messages: empty, trial: 0, sample: 'grid/unit' });
    expect((await make().decide({ messages: empty, trial: 0, sample: 'grid/unit' })).cached).toBe(false);
    expect(calls).toBe(4);
    for (const file of walk(dir)) expect(readFileSync(file, 'utf8')).not.toContain('sk-must-not-leak');
  });

  it('draws each sample independently: byte-identical bodies of two samples send two requests; a repeated sample hits', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'stalebench-cache-'));
    server = await startOpenAICompatibleServer((_, index) => ({ content: `reply ${index}` }));
    const make = () =>
      createOpenAIDecisionModel({
        model: 'm',
        baseURL: server!.baseURL,
        apiKey: 'k',
        retry: fastRetry,
        cache: createResponseCache({ dir, enabled: true }),
      });
    const graphiti = await make().decide({ messages, trial: 0, sample: 'grid/s/graphiti/direct/none/m/0' });
    const mem0 = await make().decide({ messages, trial: 0, sample: 'grid/s/mem0-exp/direct/none/m/0' });
    expect(server.requests.map((r) => r.raw)).toEqual([server.requests[0]!.raw, server.requests[0]!.raw]);
    expect([graphiti.text, mem0.text]).toEqual(['reply 0', 'reply 1']);
    expect([graphiti.sample, mem0.sample]).toEqual([
      'grid/s/graphiti/direct/none/m/0',
      'grid/s/mem0-exp/direct/none/m/0',
    ]);
    expect(graphiti.cacheKey).toMatch(/^[0-9a-f]{64}$/);
    expect(mem0.cacheKey).not.toBe(graphiti.cacheKey);
    const again = await make().decide({ messages, trial: 0, sample: 'grid/s/mem0-exp/direct/none/m/0' });
    expect(again).toMatchObject({ cached: true, text: 'reply 1', sample: mem0.sample, cacheKey: mem0.cacheKey });
    expect(server.requests).toHaveLength(2);
  });

  it('never caches a content-filter stop; remembers a temperature rejection across samples and runs', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'stalebench-cache-'));
    server = await startOpenAICompatibleServer((request) => {
      if (request.body.temperature !== undefined)
        return {
          status: 400,
          error: { message: "Unsupported value: 'temperature' does not support 0.7 with this model." },
        };
      return request.body.messages?.some((m) => m.content === 'filtered')
        ? { content: 'partial', finishReason: 'content_filter' }
        : { content: '{"action": "B"}' };
    });
    const make = () =>
      createOpenAIDecisionModel({
        model: 'gpt-5-nano',
        baseURL: server!.baseURL,
        apiKey: 'k',
        retry: fastRetry,
        cache: createResponseCache({ dir, enabled: true }),
      });
    await make().decide({ messages, trial: 0, sample: 'grid/one' });
    expect(server.requests.map((r) => r.body.temperature)).toEqual([0.7, undefined]);
    // A fresh model (a resumed run) on another sample sends the accepted body straight away.
    const fresh = make();
    const other = await fresh.decide({ messages, trial: 0, sample: 'grid/two' });
    expect(other).toMatchObject({ cached: false, sent: { max_completion_tokens: 2000 } });
    expect(fresh.providerDefaultTemperature()).toEqual(['gpt-5-nano']);
    expect(server.requests.map((r) => r.body.temperature)).toEqual([0.7, undefined, undefined]);
    const filtered = [{ role: 'user' as const, content: 'filtered' }];
    await make().decide({ messages: filtered, trial: 0, sample: 'grid/three' });
    expect((await make().decide({ messages: filtered, trial: 0, sample: 'grid/three' })).cached).toBe(false);
    expect(server.requests).toHaveLength(5);
  });

  it('treats an entry edited to claim another key, or not JSON, as a miss', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'stalebench-cache-'));
    server = await startOpenAICompatibleServer((_, index) => ({ content: `reply ${index}` }));
    const make = () =>
      createOpenAIDecisionModel({
        model: 'm',
        baseURL: server!.baseURL,
        apiKey: 'k',
        retry: fastRetry,
        cache: createResponseCache({ dir, enabled: true }),
      });
    const first = await make().decide({ messages, trial: 0, sample: 'grid/a' });
    const [file] = walk(dir);
    const entry = JSON.parse(readFileSync(file!, 'utf8'));
    writeFileSync(file!, JSON.stringify({ ...entry, components: { ...entry.components, sample: 'grid/b' } }));
    expect((await make().decide({ messages, trial: 0, sample: 'grid/a' })).cached).toBe(false);
    writeFileSync(file!, '{"torn');
    expect((await make().decide({ messages, trial: 0, sample: 'grid/a' })).cached).toBe(false);
    expect((await make().decide({ messages, trial: 0, sample: 'grid/a' })).cached).toBe(true);
    expect(first.cached).toBe(false);
  });
});
