// The conformance suite every MemoryBackend calls from its own test file; a skipped check states its reason.
import { describe, expect, it } from 'vitest';
import type { MemoryBackend, MemoryRecord } from './memory-backend.js';

/** Names of the conformance checks, for `skip` lists. */
const CONFORMANCE_TESTS = [
  'open and close',
  'default search returns revoked and current facts',
  'store filter excludes the revoked fact',
  'reset empties a namespace',
  'namespaces are isolated',
  'run ids isolate backends sharing one engine',
  'search honours limit',
] as const;
export type ConformanceTest = (typeof CONFORMANCE_TESTS)[number];

/** Options of `runBackendConformance`. */
export interface BackendConformanceOptions {
  /** Suite title, usually the system id. */
  name: string;
  /** Creates a fresh, unopened backend with its own engine. */
  create: () => MemoryBackend;
  /** Two unopened backends on ONE shared engine with different run ids; absent when engines cannot be shared. */
  createSharedPair?: () => [MemoryBackend, MemoryBackend];
  /** Checks this system cannot pass, each with the reason shown in the report. */
  skip?: readonly { reason: string; tests: readonly ConformanceTest[] }[];
}

const REVOKED = 'Deployment approval requires only ONE reviewer for every release.';
const CURRENT = 'Deployment approval requires TWO independent reviewers for every release.';
const QUERY = 'What does deployment approval require for a release?';
const NOW = new Date('2026-09-01T12:00:00.000Z');

/**
 * Registers the shared checks. Every check opens the backends it uses and closes them afterwards.
 *
 * @example
 * runBackendConformance({ name: 'graphiti', create: () => createGraphitiBackend({ embedder, runId: 'c', workDir }) });
 */
export function runBackendConformance(options: BackendConformanceOptions): void {
  const skipReason = (test: ConformanceTest): string | undefined =>
    options.skip?.find((entry) => entry.tests.includes(test))?.reason;

  const check = (
    test: ConformanceTest,
    body: (backend: MemoryBackend, skip: (note: string) => never) => Promise<void>,
  ) => {
    const reason = skipReason(test);
    if (reason !== undefined) return it.skip(`${test} (skipped: ${reason})`, () => {});
    return it(test, async (context) => {
      const backend = options.create();
      await backend.open();
      try {
        await body(backend, (note) => context.skip(note));
      } finally {
        await backend.close();
      }
    });
  };

  const seedDirect = async (backend: MemoryBackend, namespace: string, skip: (note: string) => never) => {
    const direct = backend.description.modes.direct;
    if (!direct.supported) skip(`direct seeding is not supported: ${direct.reason}`);
    await backend.insert({ namespace, now: NOW, writes: { mode: 'direct', revoked: [REVOKED], current: [CURRENT] } });
  };
  const texts = (records: readonly MemoryRecord[]): string[] => records.map((record) => record.text);

  describe(`${options.name}: memory backend conformance`, () => {
    check('open and close', async (backend) => {
      expect(backend.id).toMatch(/^[a-z0-9-]+$/);
      await expect(backend.search({ namespace: 'empty', query: QUERY, limit: 10 })).resolves.toMatchObject({
        records: [],
      });
    });

    check('default search returns revoked and current facts', async (backend, skip) => {
      await seedDirect(backend, 'conformance', skip);
      const { records } = await backend.search({ namespace: 'conformance', query: QUERY, limit: 10 });
      expect(texts(records)).toEqual(expect.arrayContaining([REVOKED, CURRENT]));
    });

    check('store filter excludes the revoked fact', async (backend, skip) => {
      const { storeFilter } = backend.description;
      if (storeFilter === null) return skip('the system has no store-level filter (filtered read = default read)');
      await seedDirect(backend, 'conformance', skip);
      const { records } = await backend.search({
        namespace: 'conformance',
        query: QUERY,
        limit: 10,
        filter: storeFilter,
      });
      expect(texts(records)).toContain(CURRENT);
      expect(texts(records)).not.toContain(REVOKED);
    });

    check('reset empties a namespace', async (backend, skip) => {
      await seedDirect(backend, 'conformance', skip);
      await backend.reset('conformance');
      expect((await backend.search({ namespace: 'conformance', query: QUERY, limit: 10 })).records).toEqual([]);
    });

    check('namespaces are isolated', async (backend, skip) => {
      await seedDirect(backend, 'first', skip);
      expect((await backend.search({ namespace: 'second', query: QUERY, limit: 10 })).records).toEqual([]);
      await backend.reset('second');
      expect((await backend.search({ namespace: 'first', query: QUERY, limit: 10 })).records.length).toBeGreaterThan(0);
    });

    check('run ids isolate backends sharing one engine', async (_unused, skip) => {
      if (!options.createSharedPair) return skip('this engine cannot be shared between backends in a test');
      const [first, second] = options.createSharedPair();
      await Promise.all([first.open(), second.open()]);
      try {
        await seedDirect(first, 'shared', skip);
        expect((await second.search({ namespace: 'shared', query: QUERY, limit: 10 })).records).toEqual([]);
        await second.reset('shared');
        expect(texts((await first.search({ namespace: 'shared', query: QUERY, limit: 10 })).records)).toContain(
          CURRENT,
        );
      } finally {
        await Promise.all([first.close(), second.close()]);
      }
    });

    check('search honours limit', async (backend, skip) => {
      const direct = backend.description.modes.direct;
      if (!direct.supported) return skip(`direct seeding is not supported: ${direct.reason}`);
      const current = [1, 2, 3, 4, 5].map((n) => `Deployment approval rule number ${n} applies to every release.`);
      await backend.insert({ namespace: 'limit', now: NOW, writes: { mode: 'direct', revoked: [], current } });
      const { records } = await backend.search({ namespace: 'limit', query: QUERY, limit: 2 });
      expect(records.length).toBeGreaterThan(0);
      expect(records.length).toBeLessThanOrEqual(2);
    });
  });
}
