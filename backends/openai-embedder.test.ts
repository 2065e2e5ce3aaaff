import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { BackendUnavailableError, type EvalError, ProviderError } from '#core/errors.js';
import { createOpenAIEmbedder } from './openai-embedder.js';

interface Received {
  method: string;
  path: string;
  authorization: string | undefined;
  body: { model?: string; input?: string[]; encoding_format?: string };
}

/** A fake /v1/embeddings on 127.0.0.1: vector i is [i + 1, 0.5], returned in REVERSE index order. */
async function startServer(
  reply?: (body: Received['body']) => { status: number; json: unknown },
): Promise<{ baseURL: string; received: Received[]; server: Server }> {
  const received: Received[] = [];
  const server = createServer((request, response) => {
    let raw = '';
    request.on('data', (chunk: Buffer) => (raw += chunk.toString('utf8')));
    request.on('end', () => {
      const body = JSON.parse(raw) as Received['body'];
      received.push({
        method: request.method ?? '',
        path: request.url ?? '',
        authorization: request.headers.authorization,
        body,
      });
      const inputs = body.input ?? [];
      const fallback = {
        status: 200,
        json: {
          object: 'list',
          model: body.model,
          data: inputs.map((_, index) => ({ object: 'embedding', index, embedding: [index + 1, 0.5] })).reverse(),
          usage: { prompt_tokens: 1, total_tokens: 1 },
        },
      };
      const { status, json } = reply?.(body) ?? fallback;
      response.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(json));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  servers.push(server);
  return { baseURL: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`, received, server };
}

const servers: Server[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => new Promise((resolve) => server.close(resolve))));
});

describe('openai embedder', () => {
  it('reports its server, and the model the server says it ran once it has answered', async () => {
    const { baseURL } = await startServer((body) => ({
      status: 200,
      json: {
        object: 'list',
        model: 'multilingual-e5-small-q4',
        data: (body.input ?? []).map((_, index) => ({ object: 'embedding', index, embedding: [1, 0] })),
      },
    }));
    const embedder = createOpenAIEmbedder({ model: 'e5-passage', baseURL, apiKey: 'unused' });
    expect(embedder.endpoint).toEqual({ baseURL, servedModel: null });
    await embedder.embed(['a']);
    expect(embedder.endpoint).toEqual({ baseURL, servedModel: 'multilingual-e5-small-q4' });
  });

  it('posts model and input to /v1/embeddings and returns vectors in input order', async () => {
    const { baseURL, received } = await startServer();
    const embedder = createOpenAIEmbedder({ model: 'nomic-embed-text', baseURL, apiKey: 'test-key' });
    expect(embedder.id).toBe('openai:nomic-embed-text');
    expect(embedder.dimensions).toBe(0);
    expect(await embedder.embed(['first', 'second', 'third'])).toEqual([
      [1, 0.5],
      [2, 0.5],
      [3, 0.5],
    ]);
    expect(embedder.dimensions).toBe(2);
    expect(received).toEqual([
      {
        method: 'POST',
        path: '/v1/embeddings',
        authorization: 'Bearer test-key',
        body: { model: 'nomic-embed-text', input: ['first', 'second', 'third'], encoding_format: 'float' },
      },
    ]);
  });

  it('makes no request for an empty input and none at creation', async () => {
    const { baseURL, received } = await startServer();
    const embedder = createOpenAIEmbedder({ model: 'm', baseURL, apiKey: 'k' });
    expect(await embedder.embed([])).toEqual([]);
    expect(received).toEqual([]);
  });

  it('checks a given dimension against every response', async () => {
    const { baseURL } = await startServer();
    const embedder = createOpenAIEmbedder({ model: 'm', baseURL, apiKey: 'k', dimensions: 3 });
    expect(embedder.dimensions).toBe(3);
    await expect(embedder.embed(['x'])).rejects.toThrow(/2-d vector; expected 3/);
  });

  it('reports HTTP errors as ProviderError without the key, and an unreachable server as BackendUnavailableError', async () => {
    const { baseURL, server } = await startServer(() => ({
      status: 400,
      json: { error: { message: 'bad model', type: 'invalid_request_error' } },
    }));
    const failing = createOpenAIEmbedder({ model: 'm', baseURL, apiKey: 'secret-key-123' });
    const error = await failing.embed(['x']).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ProviderError);
    expect(error).toMatchObject({ status: 400 });
    expect(String((error as EvalError).message)).not.toContain('secret-key-123');
    await new Promise((resolve) => server.close(resolve));
    const offline = createOpenAIEmbedder({ model: 'm', baseURL, apiKey: 'k' });
    await expect(offline.embed(['x'])).rejects.toBeInstanceOf(BackendUnavailableError);
  }, 20_000);

  it('retries on the shared ladder: 429 and 5xx up to maxAttempts, a 400 never, an unreachable server once', async () => {
    const statuses = [429, 200, 502, 500, 503, 400];
    const { baseURL, received, server } = await startServer((body) => {
      const status = statuses.shift() ?? 200;
      return status === 200
        ? {
            status,
            json: {
              object: 'list',
              model: 'm',
              data: (body.input ?? []).map((_, index) => ({ object: 'embedding', index, embedding: [1, 0] })),
              usage: {},
            },
          }
        : { status, json: { error: { message: `status ${status}` } } };
    });
    const slept: number[] = [];
    const retry = { maxAttempts: 3, baseDelayMs: 10, maxDelayMs: 1_000, jitterMs: 0 };
    const embedder = createOpenAIEmbedder({
      model: 'm',
      baseURL,
      apiKey: 'k',
      retry,
      sleep: async (ms) => void slept.push(ms),
    });
    expect(await embedder.embed(['x'])).toEqual([[1, 0]]);
    expect(slept).toEqual([20]);
    await expect(embedder.embed(['x'])).rejects.toMatchObject({ status: 503, attempts: 3 });
    expect(slept).toEqual([20, 20, 40]);
    await expect(embedder.embed(['x'])).rejects.toMatchObject({ status: 400, attempts: 1 });
    expect(received).toHaveLength(6);
    await new Promise((resolve) => server.close(resolve));
    await expect(embedder.embed(['x'])).rejects.toBeInstanceOf(BackendUnavailableError);
    expect(slept).toEqual([20, 20, 40, 10]);
  });

  it('rejects a response with fewer embeddings than inputs', async () => {
    const { baseURL } = await startServer(() => ({
      status: 200,
      json: { object: 'list', model: 'm', data: [], usage: {} },
    }));
    await expect(createOpenAIEmbedder({ model: 'm', baseURL, apiKey: 'k' }).embed(['x'])).rejects.toThrow(
      /0 embeddings for 1 inputs/,
    );
  });
});
