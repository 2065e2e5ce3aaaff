// A local OpenAI-compatible chat-completions server for tests: the network edge we do not own, faked on 127.0.0.1.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createEventCount } from './wait-for-event.js';

/** One request the server received. */
export interface ReceivedRequest {
  path: string;
  headers: IncomingMessage['headers'];
  body: Record<string, unknown> & {
    model?: string;
    messages?: { role: string; content: string }[];
    temperature?: number;
  };
  raw: string;
}

/** What the handler returns: a reply text (usage default 10 in / 5 out), or a raw HTTP status with a JSON error body. */
export type ScriptedReply =
  | {
      content: string;
      model?: string;
      finishReason?: string;
      headers?: Record<string, string>;
      usage?: { prompt_tokens: number; completion_tokens: number };
    }
  | { status: number; error: { message: string; type?: string }; headers?: Record<string, string> };

/** Routes served before the chat-completions route: an answer, or null to fall through. */
export type ExtraRoutes = (request: {
  method: string;
  path: string;
  headers: IncomingMessage['headers'];
  raw: string;
}) => Promise<{ status: number; body: string; contentType?: string } | null>;

/** The chat-completion body of a scripted reply (also a Batch API output line's body). */
export function completionBody(
  scripted: Extract<ScriptedReply, { content: string }>,
  model: string | undefined,
  index: number,
) {
  return {
    id: `chatcmpl-test-${index}`,
    object: 'chat.completion',
    created: 1_700_000_000,
    model: scripted.model ?? model,
    system_fingerprint: 'fp_test',
    choices: [
      {
        index: 0,
        message: { role: 'assistant', content: scripted.content },
        finish_reason: scripted.finishReason ?? 'stop',
      },
    ],
    usage: scripted.usage
      ? { ...scripted.usage, total_tokens: scripted.usage.prompt_tokens + scripted.usage.completion_tokens }
      : { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 },
  };
}

/** A running server; `requests` records every model call in arrival order, `modelListRequests` the `GET /models`. */
export interface TestServer {
  baseURL: string;
  requests: ReceivedRequest[];
  modelListRequests: ReceivedRequest[];
  /** Resolves once `n` model calls have arrived (before any is answered): wait on this, never poll `requests`. */
  arrived(n: number): Promise<void>;
  close(): Promise<void>;
}

/**
 * Starts the server. `reply` is called for every chat-completions request (it may be async, e.g. to delay).
 * `GET /models` lists `options.models` (default `*`: a LiteLLM-style wildcard serving every alias).
 *
 * @example
 * const server = await startOpenAICompatibleServer(() => ({ content: '{"action": "REJECT"}' }));
 * process.env.OPENAI_BASE_URL = server.baseURL;
 */
export async function startOpenAICompatibleServer(
  reply: (request: ReceivedRequest, index: number) => ScriptedReply | Promise<ScriptedReply>,
  options: { models?: string[]; routes?: ExtraRoutes } = {},
): Promise<TestServer> {
  const requests: ReceivedRequest[] = [];
  const modelListRequests: ReceivedRequest[] = [];
  const arrivals = createEventCount();
  const handle = async (incoming: IncomingMessage, outgoing: ServerResponse) => {
    const chunks: Buffer[] = [];
    for await (const chunk of incoming) chunks.push(chunk as Buffer);
    const raw = Buffer.concat(chunks).toString('utf8');
    // Routes of another API on the same server (the Batch API: pipeline/test-support/batch-api-server.ts).
    const routed = await options.routes?.({
      method: incoming.method ?? 'GET',
      path: incoming.url ?? '',
      headers: incoming.headers,
      raw,
    });
    if (routed) {
      outgoing.writeHead(routed.status, { 'content-type': routed.contentType ?? 'application/json' }).end(routed.body);
      return;
    }
    const request: ReceivedRequest = {
      path: incoming.url ?? '',
      headers: incoming.headers,
      body: raw ? JSON.parse(raw) : {},
      raw,
    };
    // The preflight's `GET /models` is answered apart (every alias is served) and not counted among `requests`.
    if (incoming.method === 'GET' && request.path.endsWith('/models')) {
      modelListRequests.push(request);
      outgoing
        .writeHead(200, { 'content-type': 'application/json' })
        .end(
          JSON.stringify({ object: 'list', data: (options.models ?? ['*']).map((id) => ({ id, object: 'model' })) }),
        );
      return;
    }
    const index = requests.push(request) - 1;
    arrivals.add();
    if (!request.path.endsWith('/chat/completions')) {
      outgoing
        .writeHead(404, { 'content-type': 'application/json' })
        .end(JSON.stringify({ error: { message: `no route ${request.path}` } }));
      return;
    }
    const scripted = await reply(request, index);
    if ('status' in scripted) {
      outgoing
        .writeHead(scripted.status, { 'content-type': 'application/json', ...scripted.headers })
        .end(JSON.stringify({ error: scripted.error }));
      return;
    }
    const body = completionBody(scripted, request.body.model, index);
    outgoing
      .writeHead(200, { 'content-type': 'application/json', 'x-litellm-version': 'test', ...scripted.headers })
      .end(JSON.stringify(body));
  };
  const server = createServer((incoming, outgoing) => {
    handle(incoming, outgoing).catch((error: Error) =>
      outgoing.writeHead(500).end(JSON.stringify({ error: { message: error.message } })),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseURL: `http://127.0.0.1:${port}/v1`,
    requests,
    modelListRequests,
    arrived: (n) => arrivals.reached(n),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
