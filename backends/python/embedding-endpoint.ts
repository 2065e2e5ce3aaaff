// The run's embedder on a loopback HTTP endpoint, so a Python library embeds with exactly the vectors the ports get.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Embedder } from '../embedder.js';

/** A running endpoint. */
export interface EmbeddingEndpoint {
  /** `http://127.0.0.1:<port>/embeddings`: POST `{input: string[]}` → `{data: [{index, embedding}], model}`. */
  url: string;
  /** Texts embedded through the endpoint so far (measurement: a library that embeds nothing is visible). */
  texts(): number;
  /** Stops the server. */
  close(): Promise<void>;
}

const MAX_BODY_BYTES = 64 * 1024 * 1024;

async function bodyOf(request: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY_BYTES) throw new Error(`request body over ${MAX_BODY_BYTES} bytes`);
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks).toString('utf8');
}

function inputOf(raw: string): string[] {
  const body = JSON.parse(raw) as { input?: unknown };
  const input = typeof body.input === 'string' ? [body.input] : body.input;
  if (!Array.isArray(input) || !input.every((text): text is string => typeof text === 'string'))
    throw new Error('input must be a string or an array of strings');
  return input;
}

/**
 * Serves `embedder` on 127.0.0.1 (an ephemeral port) in the OpenAI embeddings shape. Only loopback callers reach it
 * and it holds no key; an error answers 400/500 with `{error: {message}}`, never a zero vector.
 *
 * @example
 * const endpoint = await startEmbeddingEndpoint(createLexicalEmbedder());
 * // the Python adapter POSTs {"input": ["text"]} to endpoint.url
 * await endpoint.close();
 */
export async function startEmbeddingEndpoint(embedder: Embedder): Promise<EmbeddingEndpoint> {
  let embedded = 0;
  const handle = async (request: IncomingMessage, response: ServerResponse): Promise<void> => {
    const reply = (status: number, body: unknown) => {
      response.writeHead(status, { 'content-type': 'application/json' });
      response.end(JSON.stringify(body));
    };
    if (request.method !== 'POST' || request.url !== '/embeddings') {
      reply(404, { error: { message: `${request.method} ${request.url}: only POST /embeddings is served` } });
      return;
    }
    let input: string[];
    try {
      input = inputOf(await bodyOf(request));
    } catch (error) {
      reply(400, { error: { message: (error as Error).message } });
      return;
    }
    try {
      const vectors = await embedder.embed(input);
      embedded += input.length;
      reply(200, { model: embedder.id, data: vectors.map((embedding, index) => ({ index, embedding })) });
    } catch (error) {
      reply(500, { error: { message: `${embedder.id}: ${(error as Error).message}` } });
    }
  };
  const server = createServer((request, response) => {
    void handle(request, response);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/embeddings`,
    texts: () => embedded,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
}
