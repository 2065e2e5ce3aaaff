// The run's embedder served as an OpenAI-compatible /v1/embeddings endpoint on loopback, for a library in another
// process (cognee's openai_compatible provider) to embed with exactly the vectors every other system gets.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Embedder } from './embedder.js';

/** A running endpoint. */
export interface LoopbackEmbeddings {
  /** `http://127.0.0.1:<port>/v1`. */
  readonly baseURL: string;
  /** Texts embedded so far (every request's inputs). */
  embedded(): number;
  /** Stops listening and closes open connections. */
  close(): Promise<void>;
}

/** Largest request body accepted (a batch of chunk texts), in bytes. */
const MAX_BODY = 32 * 1024 * 1024;

function reply(response: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  response.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  response.end(text);
}

const failure = (message: string) => ({ error: { message, type: 'invalid_request_error' } });

async function readBody(request: IncomingMessage): Promise<string | null> {
  const parts: Buffer[] = [];
  let size = 0;
  for await (const part of request) {
    size += (part as Buffer).length;
    if (size > MAX_BODY) return null;
    parts.push(part as Buffer);
  }
  return Buffer.concat(parts).toString('utf8');
}

/**
 * Serves `embedder` on 127.0.0.1 (a free port): `POST /v1/embeddings` with `input` a string or a list of strings and
 * `encoding_format` absent or `float` answers one vector per input, in order, with `model` = the embedder's id (the
 * requested model name is ignored: the vectors are always the run's); `GET /v1/models` names the embedder. Anything
 * else (token arrays, base64) is a 400, never a guess.
 *
 * @example
 * const endpoint = await serveEmbeddings(embedder);
 * // EMBEDDING_ENDPOINT=endpoint.baseURL
 * await endpoint.close();
 */
export async function serveEmbeddings(embedder: Embedder): Promise<LoopbackEmbeddings> {
  let count = 0;
  const handle = async (request: IncomingMessage, response: ServerResponse): Promise<void> => {
    const path = (request.url ?? '').split('?')[0];
    if (request.method === 'GET' && path === '/v1/models') {
      reply(response, 200, { object: 'list', data: [{ id: embedder.id, object: 'model', owned_by: 'stalebench' }] });
      return;
    }
    if (request.method !== 'POST' || path !== '/v1/embeddings') {
      reply(response, 404, failure(`no route ${request.method} ${path}`));
      return;
    }
    const raw = await readBody(request);
    if (raw === null) {
      reply(response, 413, failure(`request body over ${MAX_BODY} bytes`));
      return;
    }
    let body: { input?: unknown; encoding_format?: unknown };
    try {
      body = JSON.parse(raw) as typeof body;
    } catch {
      reply(response, 400, failure('the body is not JSON'));
      return;
    }
    const input = typeof body.input === 'string' ? [body.input] : body.input;
    if (!Array.isArray(input) || !input.every((text): text is string => typeof text === 'string')) {
      reply(response, 400, failure('input must be a string or a list of strings'));
      return;
    }
    if (body.encoding_format !== undefined && body.encoding_format !== 'float') {
      reply(response, 400, failure(`encoding_format ${JSON.stringify(body.encoding_format)} is not served; use float`));
      return;
    }
    const vectors = await embedder.embed(input);
    count += input.length;
    reply(response, 200, {
      object: 'list',
      model: embedder.id,
      data: vectors.map((embedding, index) => ({ object: 'embedding', index, embedding })),
      usage: { prompt_tokens: 0, total_tokens: 0 },
    });
  };
  const server = createServer((request, response) => {
    handle(request, response).catch((error: unknown) => {
      if (!response.headersSent) reply(response, 500, failure(`the embedder failed: ${(error as Error).message}`));
      else response.destroy();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    baseURL: `http://127.0.0.1:${port}/v1`,
    embedded: () => count,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
