// Runs a task for every item of an iterable, `concurrency` at a time, pulling the items lazily (bounded memory).
import pLimit from 'p-limit';

/**
 * Runs `task(item)` for every item of `items`, at most `concurrency` at a time; resolves once every task has
 * finished, or rejects with the first error (after which no further item is pulled; tasks already started finish).
 *
 * Items are pulled as the work advances, never more than `2 × concurrency` ahead of the tasks finished, so a run of
 * 45k units holds a handful of closures instead of one closure and promise per unit (issue #18). The schedule is the
 * one of `Promise.all(items.map((item) => limit(() => task(item))))` with a `p-limit` limit, microtask for
 * microtask: the same queue, never empty while items remain (each task pulls one item as it starts, so queued plus
 * dequeued-but-not-started items stay `concurrency`, and a task can only finish once started). Tasks that share
 * state through promises (the execution ledger) therefore interleave exactly as they did with every item queued
 * up front, and what they record is unchanged.
 *
 * @example await forEachBounded(pendingUnits(), spec.concurrency, async (key) => record(await runUnit(key)));
 */
export function forEachBounded<T>(
  items: Iterable<T>,
  concurrency: number,
  task: (item: T) => Promise<void>,
): Promise<void> {
  const limit = pLimit(concurrency);
  const iterator = items[Symbol.iterator]();
  return new Promise<void>((resolve, reject) => {
    let open = 0; // tasks queued or running
    let exhausted = false;
    let failed = false;
    const fail = (error: unknown): void => {
      if (failed) return;
      failed = true;
      reject(error);
    };
    const finished = (): void => {
      open -= 1;
      if (exhausted && open === 0 && !failed) resolve();
    };
    const pull = (): void => {
      if (exhausted || failed) return;
      const next = iterator.next();
      if (next.done) {
        exhausted = true;
        if (open === 0) resolve();
        return;
      }
      open += 1;
      const item = next.value;
      // Not an async function: the promise p-limit awaits is the task's own, as when the item was queued up front.
      limit(() => {
        pull();
        return task(item);
      }).then(finished, fail);
    };
    try {
      for (let started = 0; started < concurrency && !exhausted; started += 1) pull();
    } catch (error) {
      fail(error);
    }
  });
}
