import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { missingPython, pythonPaths } from './python-venv.js';
import { startStoreProcess, StoreProcessError } from './store-process.js';

const root = join(import.meta.dirname, '..', '..');
const paths = pythonPaths(root);
const scratch = mkdtempSync(join(tmpdir(), 'store-process-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));
// The protocol itself needs only python3 (no store package): the system interpreter is enough.
const python = missingPython(root) === null ? paths.python : 'python3';

describe('store driver protocol (JSON lines over stdio)', () => {
  it('hello names the protocol version and the adapters; unknown ops and missing fields are driver errors', async () => {
    const store = startStoreProcess({ python, driver: paths.driver });
    try {
      expect(await store.request('hello')).toMatchObject({
        protocol: 1,
        adapters: [
          'acrf_memory_guard_store',
          'atelya_attest_chain',
          'cognee_memory',
          'continuum_events',
          'inspeximus_memory',
          'inspeximus_store',
          'langgraph_encrypted_store',
          'langgraph_ledger_store',
          'langgraph_postgres_store',
          'langgraph_redis_store',
          'langgraph_sqlite_store',
          'mem0_py_memory',
          'mem0_py_store',
          'memory_blackbox_store',
          'openai_agents_session',
        ],
        ops: expect.arrayContaining(['reset', 'insert', 'search', 'list']),
      });
      await expect(store.request('bogus')).rejects.toMatchObject({
        origin: 'driver',
        name: 'DriverError',
        message: expect.stringContaining("unknown op 'bogus'"),
      });
      await expect(store.request('seed', { context: 'A' })).rejects.toMatchObject({
        origin: 'driver',
        message: expect.stringContaining('no open store'),
      });
      await expect(store.request('open', { dir: scratch })).rejects.toMatchObject({
        origin: 'driver',
        message: "request 'open' needs the field 'adapter'",
      });
      await expect(store.request('version', { adapter: '../etc' })).rejects.toMatchObject({
        origin: 'driver',
        message: expect.stringContaining("unknown adapter '../etc'"),
      });
    } finally {
      await store.close();
    }
  });

  it('a process that dies mid-request rejects with origin process and the tail of its stderr', async () => {
    const dying = join(scratch, 'dying.py');
    writeFileSync(dying, 'import sys\nsys.stdin.readline()\nsys.stderr.write("segfault-like death\\n")\nsys.exit(3)\n');
    const store = startStoreProcess({ python, driver: dying });
    const error = await store.request('read', { context: 'A' }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(StoreProcessError);
    expect(error).toMatchObject({
      origin: 'process',
      message: expect.stringMatching(/exited \(code 3.*segfault-like death/),
    });
    await store.close();
    await expect(store.request('hello')).rejects.toMatchObject({ origin: 'process' });
  });

  it('a driver that stops answering is killed after the timeout; stray stdout lines are not taken as answers', async () => {
    const silent = join(scratch, 'silent.py');
    writeFileSync(
      silent,
      'import sys, time\nsys.stdin.readline()\nprint("not json", flush=True)\nprint("{\\"id\\": 99, \\"ok\\": true}", flush=True)\ntime.sleep(30)\n',
    );
    const store = startStoreProcess({ python, driver: silent, timeoutMs: 1_000 });
    const started = Date.now();
    await expect(store.request('hello')).rejects.toMatchObject({ origin: 'process', name: 'StoreProcessTimeout' });
    expect(Date.now() - started).toBeLessThan(5_000);
    await store.close();
  });

  it('names what is missing: no python3, or no venv', () => {
    expect(missingPython(scratch, 'python3-that-does-not-exist')).toBe(
      'python3-that-does-not-exist is not installed (needed to create the venv .cache/python/venv)',
    );
    expect(missingPython(scratch)).toMatch(/^no Python venv at \.cache\/python\/venv: run bash \.ci\/install/);
  });
});

describe.skipIf(missingPython(root) !== null)('store driver memory ops (backends/python/PROTOCOL.md)', () => {
  it("refuses memory ops on a store that is not a memory system, and reports an adapter's bad request as a driver error", async () => {
    const integrity = startStoreProcess({ python: paths.python, driver: paths.driver, env: { HOME: scratch } });
    try {
      await integrity.request('open', { adapter: 'inspeximus_store', dir: join(scratch, 'integrity'), config: {} });
      await expect(integrity.request('search', { namespace: 'n', query: 'q', k: 1 })).rejects.toMatchObject({
        origin: 'driver',
        message: 'this store is not a memory system: it has no search',
      });
    } finally {
      await integrity.close();
    }
    const memory = startStoreProcess({ python: paths.python, driver: paths.driver, env: { HOME: scratch } });
    try {
      await memory.request('open', { adapter: 'inspeximus_memory', dir: join(scratch, 'memory') });
      await expect(memory.request('reset', { namespace: '../escape' })).rejects.toMatchObject({
        origin: 'driver',
        name: 'DriverError',
        message: "namespace '../escape' is not a plain directory name",
      });
      await expect(
        memory.request('search', { namespace: 'n', query: 'q', k: 1, options: { mode: 'semantic' } }),
      ).rejects.toMatchObject({
        origin: 'driver',
        message: expect.stringContaining("recall options ['mode'] are not passed through"),
      });
      await expect(memory.request('insert', { namespace: 'n' })).rejects.toMatchObject({
        origin: 'driver',
        message: "request 'insert' needs the field 'steps'",
      });
    } finally {
      await memory.close();
    }
  });
});

describe('store driver process that cannot start', () => {
  it('an interpreter that does not exist rejects the request instead of hanging, and close returns', async () => {
    const store = startStoreProcess({
      python: join(scratch, 'no-such-python'),
      driver: paths.driver,
      timeoutMs: 5_000,
    });
    await expect(store.request('hello')).rejects.toMatchObject({
      origin: 'process',
      message: expect.stringContaining('could not run'),
    });
    await store.close();
  });
});
