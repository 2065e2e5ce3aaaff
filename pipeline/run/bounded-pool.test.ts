// forEachBounded: the schedule of p-limit over every item queued up front, with a bounded number of items pulled.
import pLimit from 'p-limit';
import { describe, expect, it, vi } from 'vitest';
import { forEachBounded } from './bounded-pool.js';

/**
 * Tasks of uneven length (in microtasks) that share one promise-serialised counter, like units sharing the execution
 * ledger: what each task reads of the counter depends on exactly how the tasks interleave.
 */
function workload(trace: string[]) {
  let queue: Promise<unknown> = Promise.resolve();
  let counter = 0;
  const exclusive = <T>(task: () => T): Promise<T> => {
    const run = queue.then(task);
    queue = run;
    return run;
  };
  return async (item: number): Promise<void> => {
    trace.push(`start ${item}`);
    for (let step = 0; step < (item * 7) % 5; step += 1) await null;
    const seen = await exclusive(() => (item % 3 === 0 ? ++counter : counter));
    for (let step = 0; step < (item * 3) % 4; step += 1) await Promise.resolve();
    trace.push(`end ${item} saw ${seen}`);
  };
}

const items = Array.from({ length: 60 }, (_, index) => index);

describe('forEachBounded', () => {
  it.each([1, 2, 3, 4, 16])(
    'interleaves tasks exactly as p-limit with every item queued up front (concurrency %i)',
    async (concurrency) => {
      const upFront: string[] = [];
      const task = workload(upFront);
      const limit = pLimit(concurrency);
      await Promise.all(items.map((item) => limit(() => task(item))));
      const bounded: string[] = [];
      await forEachBounded(items, concurrency, workload(bounded));
      expect(bounded).toEqual(upFront);
      expect(bounded).toHaveLength(2 * items.length);
    },
  );

  it('runs at most `concurrency` tasks at once, reaching it, and pulls at most 2 × concurrency items ahead', async () => {
    let running = 0;
    let peak = 0;
    let pulled = 0;
    let finished = 0;
    let ahead = 0;
    function* source() {
      for (const item of items) {
        pulled += 1;
        ahead = Math.max(ahead, pulled - finished);
        yield item;
      }
    }
    // Each task holds its slot for a timer of 1 ms on vitest's clock, which the test runs to the end.
    vi.useFakeTimers();
    try {
      const run = forEachBounded(source(), 3, async () => {
        running += 1;
        peak = Math.max(peak, running);
        await new Promise((resolve) => setTimeout(resolve, 1));
        running -= 1;
        finished += 1;
      });
      await vi.runAllTimersAsync();
      await run;
    } finally {
      vi.useRealTimers();
    }
    expect(finished).toBe(items.length);
    expect(peak).toBe(3);
    expect(ahead).toBeLessThanOrEqual(6);
  });

  it('rejects with the first error and pulls no further item', async () => {
    let pulled = 0;
    function* source() {
      for (const item of items) {
        pulled += 1;
        yield item;
      }
    }
    const run = forEachBounded(source(), 2, async (item) => {
      await null;
      if (item === 5) throw new Error('unit 5 failed');
    });
    await expect(run).rejects.toThrow('unit 5 failed');
    const atFailure = pulled;
    // The tasks only await promises: one turn of the event loop lets every one still running finish.
    await new Promise((resolve) => setImmediate(resolve));
    expect(pulled).toBe(atFailure);
    expect(pulled).toBeLessThan(items.length / 2);
  });

  it('resolves at once for no items', async () => {
    let calls = 0;
    await forEachBounded([], 4, async () => {
      calls += 1;
    });
    expect(calls).toBe(0);
  });
});
