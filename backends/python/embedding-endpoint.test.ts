// The run's embedder on a loopback endpoint: the Python libraries' vectors are exactly the embedder's.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { Embedder } from '../embedder.js';
import { createLexicalEmbedder } from '../lexical-embedder.js';
import { startEmbeddingEndpoint, type EmbeddingEndpoint } from './embedding-endpoint.js';
import { pythonPaths } from './python-venv.js';

const ROOT = join(import.meta.dirname, '..', '..');
const TEXTS = ['Deployment approval requires TWO independent reviewers.', '{"content": "Lunch — at noon"}', ''];
let endpoint: EmbeddingEndpoint | undefined;
afterEach(async () => {
  await endpoint?.close();
  endpoint = undefined;
});

const post = async (url: string, body: unknown, path = '') =>
  fetch(url + path, { method: 'POST', body: JSON.stringify(body), headers: { 'content-type': 'application/json' } });

describe('embedding endpoint', () => {
  it("answers each input with the embedder's own vector, in order, and counts the texts", async () => {
    const embedder = createLexicalEmbedder();
    endpoint = await startEmbeddingEndpoint(embedder);
    expect(endpoint.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/embeddings$/);
    const response = await post(endpoint.url, { input: TEXTS, model: 'ignored' });
    expect(response.status).toBe(200);
    const body = (await response.json()) as { model: string; data: { index: number; embedding: number[] }[] };
    expect(body.model).toBe('lexical-hash-v1');
    expect(body.data.map((item) => item.index)).toEqual([0, 1, 2]);
    expect(body.data.map((item) => item.embedding)).toEqual(await embedder.embed(TEXTS));
    const single = (await (await post(endpoint.url, { input: TEXTS[0] })).json()) as {
      data: { embedding: number[] }[];
    };
    expect(single.data.map((item) => item.embedding)).toEqual(await embedder.embed([TEXTS[0]!]));
    expect(endpoint.texts()).toBe(4);
  });

  it('refuses a bad request or path, and reports an embedder failure as an error, never a zero vector', async () => {
    const failing: Embedder = {
      id: 'broken',
      dimensions: 3,
      embed: async () => {
        throw new Error('model server down');
      },
    };
    endpoint = await startEmbeddingEndpoint(failing);
    expect((await post(endpoint.url, { input: [1, 2] })).status).toBe(400);
    expect((await post(endpoint.url.replace('/embeddings', '/chat'), { input: ['a'] })).status).toBe(404);
    const failed = await post(endpoint.url, { input: ['a'] });
    expect(failed.status).toBe(500);
    expect(await failed.json()).toEqual({ error: { message: 'broken: model server down' } });
    expect(endpoint.texts()).toBe(0);
  });

  it.skipIf(!existsSync(pythonPaths(ROOT).python))(
    'the Python side (_run_embedder.embed_texts) gets the very same floats, and refuses a wrong length',
    async () => {
      const embedder = createLexicalEmbedder({ dimensions: 64 });
      endpoint = await startEmbeddingEndpoint(embedder);
      const script = [
        'import json, sys',
        'sys.path.insert(0, sys.argv[1])',
        'from store_adapters._run_embedder import embed_texts, EmbeddingEndpointError',
        'texts = json.loads(sys.argv[3])',
        'print(json.dumps(embed_texts(sys.argv[2], texts, 64)))',
        'try:',
        '    embed_texts(sys.argv[2], texts, 65)',
        'except EmbeddingEndpointError as error:',
        '    print(str(error))',
      ].join('\n');
      // The endpoint answers while this process waits for Python: run it without blocking the event loop.
      const child = spawn(pythonPaths(ROOT).python, [
        '-c',
        script,
        join(ROOT, 'backends', 'python'),
        endpoint.url,
        JSON.stringify(TEXTS),
      ]);
      let stdout = '';
      child.stdout.on('data', (chunk) => (stdout += String(chunk)));
      const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
      expect(code).toBe(0);
      const [vectors, refusal] = stdout.trim().split('\n');
      expect(JSON.parse(vectors!)).toEqual(await embedder.embed(TEXTS));
      expect(refusal).toBe("the run's embedding endpoint returned 3 vectors for 3 texts (expected length 65)");
    },
  );
});
