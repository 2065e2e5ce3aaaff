// Test support: wait on the event itself (a count reached, a line printed, a file changed), never poll on a timer
// (issue #32 item 3). A deadline only bounds how long a test waits; it never decides when the test goes on.
import { existsSync, type FSWatcher, watch } from 'node:fs';
import { createInterface } from 'node:readline';
import type { Readable } from 'node:stream';

/** Occurrences of one event (a request received, a job submitted); `reached(n)` resolves at the n-th. */
export interface EventCount {
  /** How many times it happened so far. */
  readonly count: number;
  /** Records one occurrence and wakes the waiters it satisfies. */
  add(): void;
  /** Resolves once the event happened at least `n` times. */
  reached(n: number): Promise<void>;
}

/** @example const arrivals = createEventCount(); … arrivals.add(); … await arrivals.reached(2); */
export function createEventCount(): EventCount {
  let count = 0;
  const waiters: { n: number; resolve: () => void }[] = [];
  return {
    get count() {
      return count;
    },
    add() {
      count += 1;
      for (const waiter of waiters.filter((w) => w.n <= count)) {
        waiters.splice(waiters.indexOf(waiter), 1);
        waiter.resolve();
      }
    },
    reached(n) {
      if (count >= n) return Promise.resolve();
      return new Promise((resolve) => waiters.push({ n, resolve }));
    },
  };
}

/** `promise`, or a rejection naming `what` once `ms` passed without it settling: a bound on the wait, not a wait. */
export function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out after ${ms} ms waiting for ${what}`)), ms);
  });
  return Promise.race([promise, deadline]).finally(() => clearTimeout(timer));
}

/**
 * The first line of `stream` that matches `pattern`; rejects naming `pattern` when the stream ends before one. The
 * stream is read to its end (a child writing more is never blocked by a full pipe).
 */
export function lineOf(stream: Readable, pattern: RegExp): Promise<string> {
  const lines = createInterface({ input: stream });
  return new Promise<string>((resolve, reject) => {
    lines.on('line', (line) => {
      if (pattern.test(line)) resolve(line);
    });
    lines.on('close', () => reject(new Error(`the stream ended before a line matching ${pattern}`)));
  });
}

/**
 * Resolves once `condition()` holds: checked now and again on every change under `dir` (fs.watch, recursive), so a
 * file written by another process is seen when it is written. Rejects naming `what` after `timeoutMs`. On Linux a
 * recursive watch scans each new subfolder, and fails with ENOENT when one is removed before the scan (a run's
 * per-unit work folder): the watch is then started again and the condition checked, never given up.
 */
export function untilWritten(dir: string, condition: () => boolean, timeoutMs: number, what: string): Promise<void> {
  let watcher: FSWatcher | undefined;
  const held = new Promise<void>((resolve, reject) => {
    const check = () => {
      try {
        if (condition()) resolve();
      } catch (error) {
        reject(error);
      }
    };
    const start = () => {
      watcher = watch(dir, { recursive: true });
      watcher.on('change', check);
      watcher.on('error', (error: NodeJS.ErrnoException) => {
        watcher?.close();
        if (error.code !== 'ENOENT' || !existsSync(dir)) return reject(error);
        start();
        check();
      });
    };
    start();
    check();
  });
  return within(held, timeoutMs, what).finally(() => watcher?.close());
}
