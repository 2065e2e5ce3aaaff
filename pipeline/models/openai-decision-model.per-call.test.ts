// Per-call work of the endpoint model: the run's stop signal keeps no listener per call, each body is hashed once.
import { getEventListeners } from 'node:events';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createOpenAIDecisionModel } from './openai-decision-model.js';
import { createResponseCache, type ResponseCache } from './response-cache.js';
import { startOpenAICompatibleServer, type TestServer } from '../test-support/openai-compatible-server.js';

const messages = [
  { role: 'system' as const, content: 'S' },
  { role: 'user' as const, content: 'U' },
];
let server: TestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

describe('per call', () => {
  it("leaves no listener per call on the run's signal (the SDK never removes its own), and still cancels", async () => {
    let hold = false;
    let answerHeld = () => {};
    const held = new Promise<void>((resolve) => (answerHeld = resolve));
    server = await startOpenAICompatibleServer(async () => {
      if (hold) await held;
      return { content: '{"action": "REJECT"}' };
    });
    const model = createOpenAIDecisionModel({ model: 'm', baseURL: server.baseURL, apiKey: 'sk-local-0000' });
    const run = new AbortController();
    for (let trial = 0; trial < 12; trial += 1)
      await model.decide({ messages, trial, sample: 's', signal: run.signal });
    expect(getEventListeners(run.signal, 'abort').length).toBeLessThanOrEqual(1);
    hold = true;
    const pending = model.decide({ messages, trial: 99, sample: 's', signal: run.signal });
    // Stopped while the held call is on the wire (it has arrived), not after a guessed delay.
    await server.arrived(13);
    run.abort();
    await expect(pending).rejects.toThrow(/cancelled/);
    answerHeld();
  });

  it('serializes and hashes each body once per call (lookup and store share the key), with the same cache key', async () => {
    server = await startOpenAICompatibleServer((_, index) => ({ content: `reply ${index}` }));
    const dir = mkdtempSync(join(tmpdir(), 'stalebench-cache-'));
    const real = createResponseCache({ dir, enabled: false });
    const bodies: string[] = [];
    const cache: ResponseCache = {
      ...real,
      keyOf: (components) => {
        bodies.push(components.body);
        return real.keyOf(components);
      },
    };
    const model = createOpenAIDecisionModel({ model: 'm', baseURL: server.baseURL, apiKey: 'k', cache });
    const first = await model.decide({ messages, trial: 0, sample: 'grid/a' });
    const second = await model.decide({ messages, trial: 1, sample: 'grid/a' });
    // The temperature marker's key once per model, then one key per call.
    expect(bodies).toEqual([
      JSON.stringify({ marker: 'temperature-rejected' }),
      server.requests[0]!.raw,
      server.requests[1]!.raw,
    ]);
    expect(first.cacheKey).toBe(
      real.keyOf({ baseURL: server.baseURL, model: 'm', sample: 'grid/a', trial: 0, body: server.requests[0]!.raw })
        .key,
    );
    expect(second.cacheKey).not.toBe(first.cacheKey);
  });
});
