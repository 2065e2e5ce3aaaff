// The circuit breaker: a run stops (status `aborted`, exit 2) when units or attempts keep failing, instead of failing one
// by one for hours. It hears finished units and every provider attempt, so a dead endpoint stops it within a bounded time.
import type { AttemptResult } from '#core/retry-policy.js';

/** Settings of `createCircuitBreaker`. */
export interface CircuitBreakerSettings {
  /** Consecutive failed units that trip it (`--max-consecutive-errors`, default 5; 0 turns every rule but the share off). */
  maxConsecutive: number;
  /** Error share that trips it once `minSample` units finished (`--max-error-rate`). */
  maxErrorRate: number;
  /** Units that must have finished before the error share is judged (default 20). */
  minSample?: number;
  /** Consecutive failed attempts, across units, that trip it (default `maxConsecutive` × 4; the run passes × max(4, -j)). */
  maxConsecutiveAttempts?: number;
  /** Attempts have failed (two at least) and none succeeded for this long, counted from the first failure's start (default 60 s). */
  failingWindowMs?: number;
  /** Injected for tests: the clock (ms). */
  now?: () => number;
  /** Injected for tests: runs `check` after `ms`; returns a cancel. Default: an unref'd `setTimeout`. */
  schedule?: (ms: number, check: () => void) => () => void;
  /** Called when a rule trips on its own timer (not from `record` or `attemptEnded`, which return the trip). */
  onTrip?: (trip: BreakerTrip) => void;
}

/** Why the breaker tripped, as the run's last line says it. */
export interface BreakerTrip {
  /** Which rule tripped. */
  rule: 'consecutive-units' | 'error-rate' | 'consecutive-attempts' | 'failing-window';
  reason: string;
  consecutive: number;
  failed: number;
  finished: number;
  lastError: string;
}

/** The failing window's default: the issue #26 bound is this plus one request timeout. */
const FAILING_WINDOW_MS = 60_000;

const defaultSchedule = (ms: number, check: () => void) => {
  const timer = setTimeout(check, ms);
  timer.unref?.();
  return () => clearTimeout(timer);
};

/**
 * Counts unit outcomes and provider attempts of this invocation (a unit whose provider or transport call failed after
 * its retries is a failure; a parse failure is not: the endpoint answered). `record` and `attemptEnded` return the trip
 * the first time a limit is passed, then null; `tripped` keeps it. The failing window also trips on its own timer
 * (`onTrip`): attempts have failed and nothing has succeeded for `failingWindowMs`, and no attempt sent within the
 * window is still in flight, so a slow but healthy endpoint gets its answer first and a dead one stops within the
 * window plus one request timeout.
 *
 * @example
 * const breaker = createCircuitBreaker({ maxConsecutive: 5, maxErrorRate: 0.25, onTrip: (trip) => stop(trip.reason) });
 * const end = breaker.attemptStarted(); end({ kind: 'failed', error: '500 Internal Server Error' });
 * const trip = breaker.record(record.status === 'error' ? { failed: true, error: record.error.message } : { failed: false });
 */
export function createCircuitBreaker(settings: CircuitBreakerSettings) {
  const minSample = settings.minSample ?? 20;
  const now = settings.now ?? Date.now;
  const schedule = settings.schedule ?? defaultSchedule;
  const maxAttempts = settings.maxConsecutiveAttempts ?? settings.maxConsecutive * 4;
  const windowMs = settings.failingWindowMs ?? FAILING_WINDOW_MS;
  const attemptRules = settings.maxConsecutive > 0;
  let consecutive = 0;
  let failed = 0;
  let finished = 0;
  let lastError = '';
  let trip: BreakerTrip | null = null;
  // The attempt streak: failed attempts since the last success, the start of its first one, and its window's timer.
  let failedAttempts = 0;
  let streakStart: number | null = null;
  let cancelTimer: (() => void) | null = null;
  const inFlight = new Map<number, number>();
  let nextAttempt = 0;

  const tripWith = (rule: BreakerTrip['rule'], reason: string): BreakerTrip => {
    trip = { rule, reason, consecutive, failed, finished, lastError };
    cancelTimer?.();
    cancelTimer = null;
    return trip;
  };
  /** The failing window's verdict: past the window, two failures at least, nothing sent within it still in flight. */
  const windowCheck = (): BreakerTrip | null => {
    if (trip || streakStart === null || failedAttempts < 2) return null;
    const expiry = streakStart + windowMs;
    if (now() < expiry) return null;
    for (const started of inFlight.values()) if (started <= expiry) return null;
    return tripWith(
      'failing-window',
      `no call succeeded for ${Math.round((now() - streakStart) / 1000)} s while ${failedAttempts} attempts failed (the endpoint looks down; window ${windowMs / 1000} s); last error: ${lastError}`,
    );
  };
  const onTimer = () => {
    cancelTimer = null;
    const tripped = windowCheck();
    if (tripped) settings.onTrip?.(tripped);
  };

  return {
    /** A unit finished; `retried` marks its second run (the end-of-run retry): its success takes back its failure. */
    record(outcome: { failed: boolean; error?: string; retried?: boolean }): BreakerTrip | null {
      if (trip) return null;
      if (!outcome.retried) finished += 1;
      if (outcome.failed) {
        consecutive += 1;
        if (!outcome.retried) failed += 1;
        lastError = outcome.error ?? lastError;
      } else {
        consecutive = 0;
        if (outcome.retried) failed -= 1;
      }
      if (settings.maxConsecutive > 0 && consecutive >= settings.maxConsecutive)
        return tripWith(
          'consecutive-units',
          `${consecutive} consecutive units failed (--max-consecutive-errors ${settings.maxConsecutive}); last error: ${lastError}`,
        );
      if (finished >= minSample && failed / finished > settings.maxErrorRate && failed > 0 && settings.maxErrorRate < 1)
        return tripWith(
          'error-rate',
          `${failed}/${finished} units failed (${((100 * failed) / finished).toFixed(1)}% > --max-error-rate ${settings.maxErrorRate}, judged after ${minSample} units); last error: ${lastError}`,
        );
      return null;
    },
    /** A provider attempt is sent; call the returned function with how it ended. */
    attemptStarted(): (result: AttemptResult) => BreakerTrip | null {
      const id = nextAttempt++;
      inFlight.set(id, now());
      return (result) => {
        const started = inFlight.get(id);
        if (started === undefined) return null;
        inFlight.delete(id);
        if (trip || !attemptRules) return null;
        if (result.kind === 'ok') {
          failedAttempts = 0;
          streakStart = null;
          cancelTimer?.();
          cancelTimer = null;
          return null;
        }
        if (result.kind === 'failed') {
          failedAttempts += 1;
          lastError = result.error;
          if (streakStart === null) {
            streakStart = started;
            cancelTimer = schedule(Math.max(0, started + windowMs - now()), onTimer);
          }
          if (failedAttempts >= maxAttempts)
            return tripWith(
              'consecutive-attempts',
              `${failedAttempts} consecutive failed attempts across units, none succeeded in between (limit ${maxAttempts}); last error: ${lastError}`,
            );
        }
        return windowCheck();
      };
    },
    /** Stops the window's timer (the run is over). */
    close(): void {
      cancelTimer?.();
      cancelTimer = null;
    },
    get tripped(): BreakerTrip | null {
      return trip;
    },
  };
}
