// The unit loop (issue #27 item 2): how every phase of `pnpm eval` (the grid, the follow-ups, forged reasoning) and
// every registered suite (pipeline/suites/run-suite.ts) runs its pending units, written once. What a unit is, how it
// runs and where its line goes are the caller's; the loop owns when units start, when they stop starting, what a
// unit cut short means, and how a failure ends the run.
import { forEachBounded } from './bounded-pool.js';
import { UnitCancelledError } from './run-control.js';

/** One loop over pending units. */
export interface UnitLoop<Key, Line> {
  /** The units still to run, in order; pulled lazily (a grid of 45k units is never held at once). */
  units: Iterable<Key>;
  /** Units in flight at once. */
  concurrency: number;
  /** Once aborted, no further unit starts (Ctrl+C, the breaker, the budget); units running finish or cut short. */
  signal?: AbortSignal;
  /** Runs one unit and returns its line. A `UnitCancelledError` means it was cut short by a stop: nothing is recorded. */
  run(key: Key): Promise<Line>;
  /**
   * Other errors that mean "cut short by a stop, not recorded" (a budget error, anything thrown once the run was
   * aborted); it may act on them (report the budget stop). Default: none.
   */
  cancelled?(error: unknown): boolean;
  /** Records a unit's line (appends it to the chained records file) as soon as the unit returns it. */
  append(line: Line, key: Key): void;
}

/**
 * Runs `loop.units`, `loop.concurrency` at a time, appending each unit's line as it finishes. A unit cut short by a
 * stop is not recorded (a resume runs it again). A unit that throws anything else (a full disk, a bug) ends the
 * loop: no further unit starts, the units already running settle (their lines are appended), then the first error is
 * thrown, so nothing is written to the run directory after the loop has returned or thrown.
 *
 * The schedule is `forEachBounded`'s (the one of `p-limit` with every unit queued up front), so units that share
 * state through promises (the execution ledger) interleave as they always have.
 *
 * @example const { ran } = await runUnitLoop({ units: pending, concurrency: 4, run: runUnit, append: (line) => log.append(line) });
 */
export async function runUnitLoop<Key, Line>(loop: UnitLoop<Key, Line>): Promise<{ ran: number }> {
  let ran = 0;
  let failure: { error: unknown } | null = null;
  const stopped = () => failure !== null || (loop.signal?.aborted ?? false);
  // Units are only pulled while the run goes on: after a stop or a failure none starts.
  function* pending(): Generator<Key> {
    for (const key of loop.units) {
      if (stopped()) return;
      yield key;
    }
  }
  await forEachBounded(pending(), loop.concurrency, async (key) => {
    if (stopped()) return;
    let line: Line;
    try {
      line = await loop.run(key);
    } catch (error) {
      if (error instanceof UnitCancelledError || loop.cancelled?.(error)) return;
      failure ??= { error };
      return;
    }
    loop.append(line, key);
    ran += 1;
  });
  if (failure) throw (failure as { error: unknown }).error;
  return { ran };
}
