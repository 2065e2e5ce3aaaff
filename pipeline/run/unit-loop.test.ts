import { describe, expect, it } from 'vitest';
import { UnitCancelledError } from './run-control.js';
import { runUnitLoop } from './unit-loop.js';

/** A promise and the functions that settle it. */
function deferred<T = void>() {
  let resolve!: (value: T) => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

const tick = () => new Promise((resolve) => setImmediate(resolve));

describe('runUnitLoop', () => {
  it('appends every line in completion order, at most `concurrency` units in flight', async () => {
    let running = 0;
    let peak = 0;
    const appended: number[] = [];
    const { ran } = await runUnitLoop({
      units: [1, 2, 3, 4, 5, 6, 7],
      concurrency: 3,
      run: async (key) => {
        running += 1;
        peak = Math.max(peak, running);
        await new Promise((resolve) => setTimeout(resolve, (8 - key) * 2));
        running -= 1;
        return key * 10;
      },
      append: (line) => appended.push(line),
    });
    expect(ran).toBe(7);
    expect(peak).toBe(3);
    expect([...appended].sort((a, b) => a - b)).toEqual([10, 20, 30, 40, 50, 60, 70]);
  });

  it('a failing unit ends the loop only after the units already running have appended; none starts after it', async () => {
    const slow = deferred<string>();
    const started: string[] = [];
    const appended: string[] = [];
    let settled = false;
    const loop = runUnitLoop({
      units: ['slow', 'broken', 'later-1', 'later-2'],
      concurrency: 2,
      run: async (key) => {
        started.push(key);
        if (key === 'slow') return slow.promise;
        await null;
        throw new Error(`disk full in ${key}`);
      },
      append: (line) => appended.push(line),
    }).finally(() => {
      settled = true;
    });
    await tick();
    // The broken unit has failed, the slow one still runs: the loop has not ended and nothing else started.
    expect(settled).toBe(false);
    expect(started).toEqual(['slow', 'broken']);
    slow.resolve('slow-line');
    await expect(loop).rejects.toThrow('disk full in broken');
    // The running unit's line landed before the loop ended (not in the background after it).
    expect(appended).toEqual(['slow-line']);
    expect(started).toEqual(['slow', 'broken']);
  });

  it('records nothing for a unit cut short (UnitCancelledError or the cancelled hook) and goes on', async () => {
    const seen: unknown[] = [];
    const appended: string[] = [];
    const { ran } = await runUnitLoop({
      units: ['a', 'cancelled', 'budget', 'b'],
      concurrency: 1,
      run: async (key) => {
        if (key === 'cancelled') throw new UnitCancelledError('stopped');
        if (key === 'budget') throw new RangeError('budget exhausted');
        return key;
      },
      cancelled: (error) => {
        seen.push(error);
        return error instanceof RangeError;
      },
      append: (line) => appended.push(line),
    });
    expect(appended).toEqual(['a', 'b']);
    expect(ran).toBe(2);
    // UnitCancelledError never reaches the hook; the budget error does, once.
    expect(seen).toHaveLength(1);
    expect(seen[0]).toBeInstanceOf(RangeError);
  });

  it('an error the hook does not claim is a failure', async () => {
    await expect(
      runUnitLoop({
        units: ['x'],
        concurrency: 1,
        run: async () => {
          throw new TypeError('a bug');
        },
        cancelled: () => false,
        append: () => undefined,
      }),
    ).rejects.toThrow('a bug');
  });

  it('once the signal is aborted no further unit is pulled or started; the running one still appends', async () => {
    const controller = new AbortController();
    let pulled = 0;
    function* units() {
      for (let i = 0; i < 1000; i += 1) {
        pulled += 1;
        yield i;
      }
    }
    const appended: number[] = [];
    const { ran } = await runUnitLoop({
      units: units(),
      concurrency: 2,
      signal: controller.signal,
      run: async (key) => {
        if (key === 3) controller.abort();
        await null;
        return key;
      },
      append: (line) => appended.push(line),
    });
    expect(appended).toContain(3);
    expect(ran).toBe(appended.length);
    expect(Math.max(...appended)).toBeLessThanOrEqual(4);
    expect(pulled).toBeLessThan(10);
  });
});
