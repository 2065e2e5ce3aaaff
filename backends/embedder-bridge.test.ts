// The loopback embeddings bridge answers exactly what the run's embedder computes, in both OpenAI encodings.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmbedderBridge, type EmbedderBridge } from './embedder-bridge.js';
import { createEmbedder } from './index.js';
import type { Embedder } from './embedder.js';

let embedder: Embedder;
let bridge: EmbedderBridge;
beforeAll(async () => {
  embedder = await createEmbedder({ id: 'lexical' });
  bridge = await startEmbedderBridge(embedder);
});
afterAll(async () => bridge.close());

const post = (body: unknown, path = '/embeddings') =>
  fetch(`${bridge.baseURL}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });

describe('embedder bridge', () => {
  it('serves the run embedder on loopback under its id, floats and base64 float32 alike', async () => {
    expect(bridge.baseURL).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/v1$/);
    expect(bridge.model).toBe(embedder.id);
    const texts = ['the user lives in Lisbon', 'cats'];
    const expected = await embedder.embed(texts);
    const floats = (await (await post({ model: embedder.id, input: texts })).json()) as {
      data: { index: number; embedding: number[] }[];
    };
    expect(floats.data.map((item) => item.embedding)).toEqual(expected);
    const encoded = (await (await post({ model: embedder.id, input: 'cats', encoding_format: 'base64' })).json()) as {
      data: { embedding: string }[];
    };
    const bytes = Buffer.from(encoded.data[0]!.embedding, 'base64');
    const decoded = Array.from({ length: bytes.length / 4 }, (_, index) => bytes.readFloatLE(index * 4));
    expect(decoded).toEqual(expected[1]!.map((value) => Math.fround(value)));
    expect(bridge.embedded()).toBe(3);
  });

  it('refuses another model, token arrays and other paths instead of inventing vectors', async () => {
    const wrongModel = await post({ model: 'text-embedding-3-small', input: 'x' });
    expect(wrongModel.status).toBe(400);
    expect(((await wrongModel.json()) as { error: { message: string } }).error.message).toContain(
      `this bridge serves only ${embedder.id}`,
    );
    expect((await post({ model: embedder.id, input: [[1, 2]] })).status).toBe(400);
    expect((await post({ model: embedder.id, input: 'x' }, '/chat/completions')).status).toBe(404);
  });
});
