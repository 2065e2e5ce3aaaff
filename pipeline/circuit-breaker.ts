// The circuit breaker: a run stops (status `aborted`, exit 2) when units keep failing, instead of failing one by one for hours.

/** Settings of `createCircuitBreaker`. */
export interface CircuitBreakerSettings {
  /** Consecutive failed units that trip it (`--max-consecutive-errors`, default 5). */
  maxConsecutive: number;
  /** Error share that trips it once `minSample` units finished (`--max-error-rate`). */
  maxErrorRate: number;
  /** Units that must have finished before the error share is judged (default 20). */
  minSample?: number;
}

/** Why the breaker tripped, as the run's last line says it. */
export interface BreakerTrip {
  reason: string;
  consecutive: number;
  failed: number;
  finished: number;
  lastError: string;
}

/**
 * Counts unit outcomes of this invocation (a unit whose provider or transport call failed after its retries is a
 * failure; a parse failure is not: the endpoint answered). `record` returns the trip the first time a limit is
 * passed, then null; `tripped` keeps it.
 *
 * @example
 * const breaker = createCircuitBreaker({ maxConsecutive: 5, maxErrorRate: 0 });
 * const trip = breaker.record(record.status === 'error' ? { failed: true, error: record.error.message } : { failed: false });
 * if (trip) controller.abort(trip.reason);
 */
export function createCircuitBreaker(settings: CircuitBreakerSettings) {
  const minSample = settings.minSample ?? 20;
  let consecutive = 0;
  let failed = 0;
  let finished = 0;
  let lastError = '';
  let trip: BreakerTrip | null = null;
  return {
    record(outcome: { failed: boolean; error?: string }): BreakerTrip | null {
      if (trip) return null;
      finished += 1;
      if (outcome.failed) {
        consecutive += 1;
        failed += 1;
        lastError = outcome.error ?? lastError;
      } else consecutive = 0;
      let reason: string | null = null;
      if (settings.maxConsecutive > 0 && consecutive >= settings.maxConsecutive) {
        reason = `${consecutive} consecutive units failed (--max-consecutive-errors ${settings.maxConsecutive}); last error: ${lastError}`;
      } else if (
        finished >= minSample &&
        failed / finished > settings.maxErrorRate &&
        failed > 0 &&
        settings.maxErrorRate < 1
      ) {
        reason = `${failed}/${finished} units failed (${((100 * failed) / finished).toFixed(1)}% > --max-error-rate ${settings.maxErrorRate}, judged after ${minSample} units); last error: ${lastError}`;
      }
      if (reason === null) return null;
      trip = { reason, consecutive, failed, finished, lastError };
      return trip;
    },
    get tripped(): BreakerTrip | null {
      return trip;
    },
  };
}
