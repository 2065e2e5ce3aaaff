import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createEndpointPool, type EndpointLease } from './endpoint-pool.js';
import type { PoolEndpoint } from './endpoints-file.js';

const endpoint = (name: string, over: Partial<PoolEndpoint> = {}): PoolEndpoint => ({
  name,
  baseURL: `http://127.0.0.1:9/${name}/v1`,
  keyEnv: `KEY_${name.toUpperCase()}`,
  apiKey: `key-of-${name}`,
  maxConcurrency: 2,
  weight: 1,
  models: null,
  ...over,
});

// The pool's clock and its cool-down timer are vitest's: a cool-down ends when the test moves the clock past it.
beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

/** Settles every grant the pool has made so far (grants are promise callbacks; the clock does not move). */
const settle = () => vi.advanceTimersByTimeAsync(0);

/** Acquires `n` leases that are granted now (a lease still waiting once the grants settled is left pending). */
async function grantedNow(pool: ReturnType<typeof createEndpointPool>, n: number, model = 'm') {
  const granted: EndpointLease[] = [];
  const pending = Array.from({ length: n }, () => pool.acquire(model).then((lease) => void granted.push(lease)));
  await settle();
  return { granted, pending };
}

const names = (leases: readonly EndpointLease[]) => leases.map((l) => l.name).sort();

describe('the endpoint pool', () => {
  it('never puts more requests on an endpoint than its limit, and hands a freed slot to the next waiter', async () => {
    const pool = createEndpointPool([endpoint('a', { maxConcurrency: 2 }), endpoint('b', { maxConcurrency: 3 })], {
      timeoutMs: 1000,
    });
    const { granted } = await grantedNow(pool, 7);
    expect(names(granted)).toEqual(['a', 'a', 'b', 'b', 'b']);
    granted.find((l) => l.name === 'a')!.release({ kind: 'ok' });
    await settle();
    expect(names(granted.slice(5))).toEqual(['a']);
    expect(pool.counts().map((c) => [c.name, c.requests, c.ok, c.maxInFlight])).toEqual([
      ['a', 3, 1, 2],
      ['b', 3, 0, 3],
    ]);
  });

  it('splits requests by weight while every endpoint has room', async () => {
    const pool = createEndpointPool(
      [endpoint('a', { maxConcurrency: 10, weight: 3 }), endpoint('b', { maxConcurrency: 10, weight: 1 })],
      { timeoutMs: 1000 },
    );
    const { granted } = await grantedNow(pool, 8);
    expect(names(granted)).toEqual(['a', 'a', 'a', 'a', 'a', 'a', 'b', 'b']);
  });

  it('cools an endpoint down after a 429 for its Retry-After while the other keeps serving', async () => {
    const pool = createEndpointPool([endpoint('a', { maxConcurrency: 4 }), endpoint('b', { maxConcurrency: 4 })], {
      timeoutMs: 1000,
    });
    const first = await pool.acquire('m');
    expect(first.name).toBe('a');
    first.release({ kind: 'rate-limited', headers: new Headers({ 'retry-after-ms': '150' }) });
    const during = await grantedNow(pool, 3);
    expect(names(during.granted)).toEqual(['b', 'b', 'b']);
    for (const lease of during.granted) lease.release({ kind: 'ok' });
    await vi.advanceTimersByTimeAsync(149);
    const stillCooling = await grantedNow(pool, 1);
    expect(names(stillCooling.granted)).toEqual(['b']);
    stillCooling.granted[0]!.release({ kind: 'ok' });
    await vi.advanceTimersByTimeAsync(1);
    const after = await grantedNow(pool, 2);
    expect(names(after.granted)).toEqual(['a', 'b']);
    expect(pool.counts()[0]).toMatchObject({ name: 'a', rateLimited: 1 });
  });

  it('makes requests wait when every endpoint cools down, then serves them when the first cool-down ends', async () => {
    const pool = createEndpointPool([endpoint('a')], { timeoutMs: 1000 });
    (await pool.acquire('m')).release({ kind: 'rate-limited', headers: new Headers({ 'retry-after': '0.1' }) });
    const started = Date.now();
    let lease: EndpointLease | undefined;
    const waiting = pool.acquire('m').then((granted) => (lease = granted));
    await vi.advanceTimersByTimeAsync(99);
    expect(lease).toBeUndefined();
    await vi.advanceTimersByTimeAsync(1);
    await waiting;
    expect(Date.now() - started).toBeGreaterThanOrEqual(90);
    expect(lease!.name).toBe('a');
  });

  it('sends an alias only to endpoints that serve it, refuses one nobody serves, and stops waiting on abort', async () => {
    const pool = createEndpointPool(
      [endpoint('a', { models: ['x'], maxConcurrency: 1 }), endpoint('b', { models: ['y'] })],
      {
        timeoutMs: 1000,
      },
    );
    expect((await pool.acquire('y')).name).toBe('b');
    expect(pool.unserved(['x', 'y', 'z'])).toEqual(['z']);
    await expect(pool.acquire('z')).rejects.toThrow(/no endpoint of the pool serves model "z"/);
    await pool.acquire('x');
    const controller = new AbortController();
    const waiting = pool.acquire('x', controller.signal);
    controller.abort();
    await expect(waiting).rejects.toThrow(/cancelled while waiting/);
  });
});
