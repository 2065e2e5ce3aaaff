// The run's embedder as a loopback OpenAI-compatible /v1/embeddings server, for a library that embeds through its own
// OpenAI client (Letta): the library makes its own calls, and every vector is the run's embedder's.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Embedder } from './embedder.js';

/** A listening bridge. */
export interface EmbedderBridge {
  /** `http://127.0.0.1:<port>/v1`. */
  baseURL: string;
  /** The model name the library must send: the embedder's id (any other is refused with 400). */
  model: string;
  /** How many texts it embedded so far (every library call is counted, none is answered from elsewhere). */
  embedded(): number;
  close(): Promise<void>;
}

const MAX_BODY = 16 * 1024 * 1024;

function readBody(request: IncomingMessage): Promise<string> {
  return new Promise((resolveBody, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    request.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY) reject(new Error(`request body over ${MAX_BODY} bytes`));
      else chunks.push(chunk);
    });
    request.on('end', () => resolveBody(Buffer.concat(chunks).toString('utf8')));
    request.on('error', reject);
  });
}

function reply(response: ServerResponse, status: number, body: unknown): void {
  response.writeHead(status, { 'content-type': 'application/json' });
  response.end(JSON.stringify(body));
}

const refuse = (response: ServerResponse, status: number, message: string) =>
  reply(response, status, { error: { message, type: 'invalid_request_error' } });

/** float32 little-endian bytes in base64, as the OpenAI API answers `encoding_format: "base64"`. */
function base64Of(vector: readonly number[]): string {
  const bytes = Buffer.alloc(vector.length * 4);
  for (const [index, value] of vector.entries()) bytes.writeFloatLE(value, index * 4);
  return bytes.toString('base64');
}

/**
 * Starts the bridge on 127.0.0.1 (a free port). It answers `POST /v1/embeddings` with `{model, input: string |
 * string[], encoding_format?: 'float' | 'base64'}` from `embedder`, in input order; anything else (another model, token
 * arrays, another path) is a 4xx, never a made-up vector.
 *
 * @example
 * const bridge = await startEmbedderBridge(embedder);
 * // point the library at bridge.baseURL with model bridge.model, then: await bridge.close();
 */
export async function startEmbedderBridge(embedder: Embedder): Promise<EmbedderBridge> {
  let count = 0;
  const server = createServer((request, response) => {
    if (request.method !== 'POST' || request.url !== '/v1/embeddings')
      return refuse(response, 404, `${request.method} ${request.url}: only POST /v1/embeddings is served`);
    void (async () => {
      let body: { model?: unknown; input?: unknown; encoding_format?: unknown };
      try {
        body = JSON.parse(await readBody(request)) as typeof body;
      } catch (error) {
        return refuse(response, 400, `unreadable body: ${(error as Error).message}`);
      }
      if (body.model !== embedder.id)
        return refuse(response, 400, `model ${String(body.model)}: this bridge serves only ${embedder.id}`);
      const input = typeof body.input === 'string' ? [body.input] : body.input;
      if (!Array.isArray(input) || input.length === 0 || !input.every((item) => typeof item === 'string'))
        return refuse(response, 400, 'input must be a string or a non-empty array of strings');
      const format = body.encoding_format ?? 'float';
      if (format !== 'float' && format !== 'base64')
        return refuse(response, 400, `encoding_format ${String(format)}: float or base64`);
      try {
        const vectors = await embedder.embed(input as string[]);
        count += input.length;
        reply(response, 200, {
          object: 'list',
          model: embedder.id,
          data: vectors.map((vector, index) => ({
            object: 'embedding',
            index,
            embedding: format === 'base64' ? base64Of(vector) : vector,
          })),
          usage: { prompt_tokens: 0, total_tokens: 0 },
        });
      } catch (error) {
        refuse(response, 502, `the run's embedder failed: ${(error as Error).message}`);
      }
    })();
  });
  await new Promise<void>((resolveListen, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolveListen());
  });
  const { port } = server.address() as AddressInfo;
  return {
    baseURL: `http://127.0.0.1:${port}/v1`,
    model: embedder.id,
    embedded: () => count,
    close: () =>
      new Promise<void>((resolveClose) => {
        server.closeAllConnections();
        server.close(() => resolveClose());
      }),
  };
}
