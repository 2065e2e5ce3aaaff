// The round barrier of `--batch` follow-up experiments (issue #31): their later calls depend on earlier replies, so
// the transport sends a round's queued calls once every unit of the round waits, instead of after a quiet time.

/** Counts the units of a round and which of them wait; `release` runs whenever all of them wait. */
export interface RoundBarrier {
  /** True while a unit is joined: queued calls are then sent by the barrier, not by the quiet timer. */
  readonly active: boolean;
  /** Counts one unit in, before it starts; the returned function counts it out when it ends (a second call does nothing). */
  join(): () => void;
  /**
   * Counts the caller as waiting while `work` runs (its call queued or in a job, or its budget reservation, which may
   * wait on calls in jobs). The barrier is checked once `work` has started, so a call it queues is in the release.
   */
  waiting<T>(work: () => Promise<T>): Promise<T>;
  /** Checks again: a waiting caller queued its call only later in its wait (a retry once a re-attached job failed it). */
  recheck(): void;
}

/**
 * Creates a barrier that calls `release` whenever every joined unit waits. A joined unit that waits on anything
 * else (a store, a lock held by another unit of the round) holds the round back, so units of a round must not wait
 * on each other.
 *
 * @example
 * const barrier = createRoundBarrier(() => sendEveryQueue());
 * const leave = barrier.join(); try { await barrier.waiting(() => queued(call)); } finally { leave(); }
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
    recheck: check,
    async waiting(work) {
      waiting += 1;
      try {
        const running = work();
        check();
        return await running;
      } finally {
        waiting -= 1;
      }
    },
  };
}
