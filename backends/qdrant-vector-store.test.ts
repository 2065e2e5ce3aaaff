import { randomUUID } from 'node:crypto';
import { createServer, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { BackendUnavailableError, EvalError } from '#core/errors.js';
import { createCogneeBackend } from './cognee-backend.js';
import { createLangmemBackend } from './langmem-backend.js';
import { createLexicalEmbedder } from './lexical-embedder.js';
import { runBackendConformance } from './memory-backend.conformance.js';
import type { MemoryBackend } from './memory-backend.js';
import { QDRANT_START_HINT } from './qdrant-connection.js';
import { createQdrantVectorStore } from './qdrant-vector-store.js';
import { createSimExtractionModel } from './sim-extraction-model.js';
import { runVectorStoreConformance } from './vector-store.conformance.js';
import type { VectorStore } from './vector-store.js';

const url = process.env.QDRANT_URL;
const apiKey = process.env.QDRANT_API_KEY;
const NO_SERVER = 'QDRANT_URL is not set; start Qdrant and set it to run this suite';
if (url === undefined)
  console.log(
    `[qdrant] server suite skipped: ${NO_SERVER} (e.g. docker run -p 6333:6333 qdrant/qdrant; QDRANT_URL=http://127.0.0.1:6333)`,
  );

describe('qdrant vector store without a server', () => {
  it('fails within seconds with BackendUnavailableError naming the URL and how to start a server', async () => {
    const unreachable = 'http://127.0.0.1:1';
    const started = Date.now();
    const error = await createQdrantVectorStore({ url: unreachable, collectionPrefix: 'unreachable' })
      .open()
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(BackendUnavailableError);
    expect(error).toMatchObject({ backend: 'qdrant', url: unreachable, hint: QDRANT_START_HINT });
    expect((error as Error).message).toContain(unreachable);
    expect((error as Error).message).toContain('docker run -p 6333:6333 qdrant/qdrant');
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it('gives up on a listener that never answers after the connect timeout', async () => {
    const sockets: Socket[] = [];
    const silent = createServer((socket) => void sockets.push(socket));
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const address = silent.address();
    const silentUrl = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
    try {
      const started = Date.now();
      const error = await createQdrantVectorStore({ url: silentUrl, collectionPrefix: 'silent', connectTimeoutMs: 300 })
        .open()
        .catch((caught: unknown) => caught);
      expect(error).toMatchObject({ code: 'backend-unavailable', url: silentUrl });
      expect(Date.now() - started).toBeLessThan(3_000);
    } finally {
      sockets.forEach((socket) => {
        socket.destroy();
      });
      await new Promise((resolve) => silent.close(resolve));
    }
  });

  it('rejects a URL without scheme, a bad prefix and use before open, without touching the network', async () => {
    await expect(
      createQdrantVectorStore({ url: '127.0.0.1:6333', collectionPrefix: 'p' }).open(),
    ).rejects.toMatchObject({ code: 'backend-unavailable', hint: expect.stringContaining('not a Qdrant URL') });
    expect(() => createQdrantVectorStore({ url: 'http://127.0.0.1:1', collectionPrefix: 'run/1' })).toThrow(
      /collection prefix/,
    );
    const store = createQdrantVectorStore({ url: 'http://127.0.0.1:1', collectionPrefix: 'p' });
    await expect(store.scroll('c')).rejects.toMatchObject({ code: 'vector-store-not-open' });
    await expect(store.ensureCollection('c', 3)).rejects.toBeInstanceOf(EvalError);
    await store.close(); // closing an unopened store is a no-op
  });
});

describe.skipIf(url === undefined)(`qdrant vector store on ${url ?? `a server (skipped: ${NO_SERVER})`}`, () => {
  const server = url ?? '';
  // Every store gets a prefix of its own and drops its collections on close: tests never see each other's points.
  const stores: VectorStore[] = [];
  const fresh = (): VectorStore => {
    const store = createQdrantVectorStore({
      url: server,
      apiKey,
      collectionPrefix: `stalebench_test_${randomUUID().slice(0, 8)}`,
      dropOnClose: true,
    });
    stores.push(store);
    return store;
  };
  afterEach(async () => {
    await Promise.all(stores.splice(0).map((store) => store.close())); // backends never close a store they were given
  });

  it('reports the server version', async () => {
    const store = createQdrantVectorStore({ url: server, apiKey, collectionPrefix: 'version_probe' });
    await store.open();
    console.log(`[qdrant] server: ${store.serverVersion} at ${server}`);
    expect(store.serverVersion).toMatch(/^Qdrant \d+\.\d+/);
    await store.close();
  });

  runVectorStoreConformance({ name: 'qdrant', create: fresh });

  const lexical = createLexicalEmbedder();
  const settings = (runId: string) => ({
    embedder: lexical,
    runId,
    workDir: '/tmp/unused',
    extraction: createSimExtractionModel(),
  });
  const pair = (create: (runId: string, vectors: VectorStore) => MemoryBackend): [MemoryBackend, MemoryBackend] => {
    const vectors = fresh();
    return [create('run_a', vectors), create('run_b', vectors)];
  };
  const langmem = (runId: string, vectors: VectorStore) => createLangmemBackend({ ...settings(runId), vectors });
  const cognee = (runId: string, vectors: VectorStore) => createCogneeBackend({ ...settings(runId), vectors });

  runBackendConformance({
    name: 'langmem (qdrant vector store)',
    create: () => langmem('conformance', fresh()),
    createSharedPair: () => pair(langmem),
    skip: [
      {
        reason: 'direct seeding hard-deletes the revoked fact (langmem has no soft revocation)',
        tests: ['default search returns revoked and current facts'],
      },
      {
        reason: 'filtered read is the default read: no status marker exists',
        tests: ['store filter excludes the revoked fact'],
      },
    ],
  });

  runBackendConformance({
    name: 'cognee (qdrant vector store)',
    create: () => cognee('conformance', fresh()),
    createSharedPair: () => pair(cognee),
    skip: [
      {
        reason: 'direct seeding never adds the revoked fact (delete-then-reingest is the primitive)',
        tests: ['default search returns revoked and current facts'],
      },
      {
        reason: 'filtered read is the default read: no status marker exists',
        tests: ['store filter excludes the revoked fact'],
      },
    ],
  });
});
