// The round barrier of `--batch` follow-up experiments (issue #31): their later calls depend on earlier replies, so
// the transport sends a round's queued calls once every unit of the round waits, instead of after a quiet time.

/** Counts the units of a round and which of them wait; `release` runs whenever all of them wait. */
export interface RoundBarrier {
  /** True while a unit is joined: queued calls are then sent by the barrier, not by the quiet timer. */
  readonly active: boolean;
  /** Counts one unit in, before it starts; the returned function counts it out when it ends (a second call does nothing). */
  join(): () => void;
  /**
   * Counts the caller as waiting (its call queued or in a job) until the returned function is called (a second call
   * does nothing). Called the moment its answer is known, not when the caller resumes, so that units resuming from
   * one job never see their job-mates as still waiting. Call `recheck` once the call is queued.
   */
  wait(): () => void;
  /**
   * Counts the caller as waiting while `work` (its budget reservation) blocks: from the first turn of the event loop
   * at which it has not settled (a reservation that fits settles within the current turn, and must not count: its
   * call is about to be queued), until it settles. A blocked reservation waits on calls in jobs, so it must count.
   */
  waiting<T>(work: () => Promise<T>): Promise<T>;
  /** Sends the round if every joined unit waits (after a call was queued). */
  recheck(): void;
}

/**
 * Creates a barrier that calls `release` whenever every joined unit waits. A joined unit that waits on anything
 * else (a store, a lock held by another unit of the round) holds the round back, so units of a round must not wait
 * on each other.
 *
 * @example
 * const barrier = createRoundBarrier(() => sendEveryQueue());
 * const leave = barrier.join(); const answered = barrier.wait(); queue(call, answered); barrier.recheck(); … leave();
 */
export function createRoundBarrier(release: () => void): RoundBarrier {
  let joined = 0;
  let waiting = 0;
  const check = () => {
    if (joined > 0 && waiting >= joined) release();
  };
  return {
    get active() {
      return joined > 0;
    },
    join() {
      joined += 1;
      let left = false;
      return () => {
        if (left) return;
        left = true;
        joined -= 1;
        check();
      };
    },
    wait() {
      waiting += 1;
      let answered = false;
      return () => {
        if (answered) return;
        answered = true;
        waiting -= 1;
      };
    },
    recheck: check,
    async waiting(work) {
      let counted = false;
      const blocked = setImmediate(() => {
        counted = true;
        waiting += 1;
        check();
      });
      try {
        return await work();
      } finally {
        clearImmediate(blocked);
        if (counted) waiting -= 1;
      }
    },
  };
}
