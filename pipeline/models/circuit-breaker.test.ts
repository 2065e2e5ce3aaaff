// The circuit breaker trips on consecutive failures or on the error share after a minimum sample, once; and (issue #26
// item 6) on failed provider attempts across units: a streak of them, or a failing window with no success.
import { describe, expect, it } from 'vitest';
import { createCircuitBreaker, type BreakerTrip } from './circuit-breaker.js';
import { createRunControl, runEnding } from '../run/run-control.js';
import { DEFAULT_MAX_ERROR_RATE } from '../run/run-spec.js';

/** A manual clock and timer: `advance(ms)` moves time and runs what came due. */
function manualClock() {
  let time = 0;
  let timers: { at: number; run: () => void }[] = [];
  return {
    now: () => time,
    schedule: (ms: number, run: () => void) => {
      const timer = { at: time + ms, run };
      timers.push(timer);
      return () => {
        timers = timers.filter((t) => t !== timer);
      };
    },
    advance(ms: number) {
      time += ms;
      const due = timers.filter((t) => t.at <= time);
      timers = timers.filter((t) => t.at > time);
      for (const timer of due) timer.run();
    },
    get pending() {
      return timers.length;
    },
  };
}

describe('circuit breaker', () => {
  it('trips after N consecutive failures; a success in between resets the streak', () => {
    const breaker = createCircuitBreaker({ maxConsecutive: 3, maxErrorRate: 1 });
    expect(breaker.record({ failed: true, error: 'a' })).toBeNull();
    expect(breaker.record({ failed: true, error: 'b' })).toBeNull();
    expect(breaker.record({ failed: false })).toBeNull();
    expect(breaker.record({ failed: true, error: 'c' })).toBeNull();
    expect(breaker.record({ failed: true, error: 'd' })).toBeNull();
    const trip = breaker.record({ failed: true, error: 'connection refused' });
    expect(trip?.reason).toBe(
      '3 consecutive units failed (--max-consecutive-errors 3); last error: connection refused',
    );
    expect(breaker.record({ failed: true })).toBeNull();
    expect(breaker.tripped).toEqual(trip);
  });

  it('trips on the error share only after the minimum sample', () => {
    const breaker = createCircuitBreaker({ maxConsecutive: 0, maxErrorRate: 0.1, minSample: 10 });
    const outcomes = [true, false, true, false, false, false, false, false, false];
    for (const failed of outcomes) expect(breaker.record({ failed, error: 'x' })).toBeNull();
    expect(breaker.record({ failed: false })?.reason).toMatch(
      /^2\/10 units failed \(20\.0% > --max-error-rate 0\.1, judged after 10 units\)/,
    );
  });

  it('a tolerated share of 1 never trips on the share; parse failures are not failures', () => {
    const breaker = createCircuitBreaker({ maxConsecutive: 0, maxErrorRate: 1, minSample: 1 });
    for (let i = 0; i < 50; i += 1) expect(breaker.record({ failed: true })).toBeNull();
  });

  it('counts failed attempts across units: a streak of them trips it before any unit has finished', () => {
    const breaker = createCircuitBreaker({ maxConsecutive: 5, maxErrorRate: 1, maxConsecutiveAttempts: 20 });
    let trip: BreakerTrip | null = null;
    for (let attempt = 1; attempt <= 20 && !trip; attempt += 1) {
      trip = breaker.attemptStarted()({ kind: 'failed', error: '500 Internal Server Error' });
      if (attempt < 20) expect(trip).toBeNull();
    }
    expect(trip).toMatchObject({ rule: 'consecutive-attempts', finished: 0 });
    expect(trip!.reason).toMatch(
      /^20 consecutive failed attempts across units, none succeeded in between \(limit 20\)/,
    );
  });

  it('a success resets the attempt streak; a 429 (busy), a refusal and a cancelled attempt count neither way', () => {
    const clock = manualClock();
    const breaker = createCircuitBreaker({ maxConsecutive: 5, maxErrorRate: 1, maxConsecutiveAttempts: 3, ...clock });
    const fail = () => breaker.attemptStarted()({ kind: 'failed', error: 'reset' });
    expect(fail()).toBeNull();
    expect(fail()).toBeNull();
    expect(breaker.attemptStarted()({ kind: 'ok' })).toBeNull();
    expect(clock.pending).toBe(0);
    expect(fail()).toBeNull();
    for (let i = 0; i < 50; i += 1) expect(breaker.attemptStarted()({ kind: 'busy' })).toBeNull();
    expect(breaker.attemptStarted()({ kind: 'refused' })).toBeNull();
    expect(breaker.attemptStarted()({ kind: 'cancelled' })).toBeNull();
    expect(fail()).toBeNull();
    expect(fail()?.rule).toBe('consecutive-attempts');
  });

  it('the failing window trips on its own timer once nothing succeeded for 60 s and two attempts failed', () => {
    const clock = manualClock();
    const trips: BreakerTrip[] = [];
    const breaker = createCircuitBreaker({
      maxConsecutive: 5,
      maxErrorRate: 1,
      ...clock,
      onTrip: (t) => trips.push(t),
    });
    // -j 1 against a 500 endpoint without Retry-After: attempts at 0, 8, 24, 56 s; the ladder then sleeps 60 s.
    for (const at of [0, 8_000, 24_000, 56_000]) {
      clock.advance(at - clock.now());
      expect(breaker.attemptStarted()({ kind: 'failed', error: '500 Internal Server Error' })).toBeNull();
    }
    clock.advance(3_999);
    expect(trips).toEqual([]);
    clock.advance(1);
    expect(trips).toHaveLength(1);
    expect(trips[0]).toMatchObject({ rule: 'failing-window' });
    expect(trips[0]!.reason).toMatch(/^no call succeeded for 60 s while 4 attempts failed/);
  });

  it('a hung endpoint stops at the first timeouts when the window has passed (60 s from the failed attempts start)', () => {
    const clock = manualClock();
    const breaker = createCircuitBreaker({ maxConsecutive: 5, maxErrorRate: 1, ...clock });
    const inFlight = [1, 2, 3, 4].map(() => breaker.attemptStarted());
    clock.advance(60_000);
    expect(inFlight[0]!({ kind: 'failed', error: 'timed out after 60 s' })).toBeNull();
    expect(inFlight[1]!({ kind: 'failed', error: 'timed out after 60 s' })).toBeNull();
    expect(inFlight[2]!({ kind: 'failed', error: 'timed out after 60 s' })).toBeNull();
    expect(inFlight[3]!({ kind: 'failed', error: 'timed out after 60 s' })?.rule).toBe('failing-window');
  });

  it('a slow but healthy endpoint does not trip it: an attempt sent within the window gets its answer first', () => {
    const clock = manualClock();
    const trips: BreakerTrip[] = [];
    const breaker = createCircuitBreaker({
      maxConsecutive: 5,
      maxErrorRate: 1,
      ...clock,
      onTrip: (t) => trips.push(t),
    });
    // Two quick 500s, then a retry that takes 55 s and succeeds.
    expect(breaker.attemptStarted()({ kind: 'failed', error: '500' })).toBeNull();
    clock.advance(8_000);
    expect(breaker.attemptStarted()({ kind: 'failed', error: '500' })).toBeNull();
    clock.advance(16_000);
    const slow = breaker.attemptStarted();
    clock.advance(40_000);
    expect(trips).toEqual([]);
    clock.advance(15_000);
    expect(slow({ kind: 'ok' })).toBeNull();
    clock.advance(600_000);
    expect(trips).toEqual([]);
    expect(breaker.tripped).toBeNull();
  });

  it('0 consecutive errors turns the attempt rules off', () => {
    const clock = manualClock();
    const breaker = createCircuitBreaker({ maxConsecutive: 0, maxErrorRate: 1, maxConsecutiveAttempts: 2, ...clock });
    for (let i = 0; i < 10; i += 1) expect(breaker.attemptStarted()({ kind: 'failed', error: 'x' })).toBeNull();
    clock.advance(600_000);
    expect(breaker.tripped).toBeNull();
  });

  it('a retried unit that succeeds takes back its failure from the error share', () => {
    const breaker = createCircuitBreaker({ maxConsecutive: 0, maxErrorRate: 0.1, minSample: 10 });
    for (let i = 0; i < 8; i += 1) expect(breaker.record({ failed: false })).toBeNull();
    expect(breaker.record({ failed: true, error: 'x' })).toBeNull();
    // The end-of-run retry of that unit succeeds: 0 failed of 9 finished (not 1 of 10).
    expect(breaker.record({ failed: false, retried: true })).toBeNull();
    // 1/10 is within 0.1; 2/11 (the retry counted as a new unit, the failure kept) would not be.
    expect(breaker.record({ failed: true, error: 'y' })).toBeNull();
    expect(breaker.record({ failed: true, error: 'z', retried: true })).toBeNull();
    expect(breaker.tripped).toBeNull();
  });
});

describe('the default tolerance (issue #26 item 7)', () => {
  it('a 10 % flaky endpoint completes; a mostly failing one is stopped by the share rule after 20 units', () => {
    const flaky = createCircuitBreaker({ maxConsecutive: 5, maxErrorRate: DEFAULT_MAX_ERROR_RATE });
    for (let unit = 0; unit < 100; unit += 1)
      expect(flaky.record({ failed: unit % 10 === 3, error: '500' })).toBeNull();
    const failing = createCircuitBreaker({ maxConsecutive: 5, maxErrorRate: DEFAULT_MAX_ERROR_RATE });
    let trip: BreakerTrip | null = null;
    for (let unit = 0; unit < 100 && !trip; unit += 1) trip = failing.record({ failed: unit % 5 < 3, error: '500' });
    expect(trip).toMatchObject({ rule: 'error-rate', finished: 20, failed: 12 });
  });

  it('a completed run with failed units exits 4 and names them; above the tolerance it exits 2', () => {
    const failedUnits = ['a/graphiti/direct/none/m/0', 'b/graphiti/direct/none/m/1'];
    const base = { completed: 18, unparseable: 0, stop: null, failedUnits };
    const ending = runEnding({ ...base, units: 20, errored: 2, maxErrorRate: DEFAULT_MAX_ERROR_RATE });
    expect(ending).toMatchObject({ status: 'success', exitCode: 4 });
    for (const id of failedUnits) expect(ending.why).toContain(id);
    expect(ending.why).toMatch(/^completed with 2\/20 units failed/);
    expect(runEnding({ ...base, units: 20, errored: 6, maxErrorRate: DEFAULT_MAX_ERROR_RATE }).exitCode).toBe(2);
    expect(runEnding({ ...base, units: 20, errored: 0, maxErrorRate: DEFAULT_MAX_ERROR_RATE }).exitCode).toBe(0);
  });

  it('the run control stops the run (aborted, its signal aborted) when the failing window trips on its timer', () => {
    const clock = manualClock();
    const control = createRunControl({
      maxConsecutiveErrors: 5,
      maxErrorRate: DEFAULT_MAX_ERROR_RATE,
      concurrency: 4,
      breakerClock: clock,
      progress: { write: () => {}, style: 'quiet' },
    });
    control.attemptStarted()({ kind: 'failed', error: '500 Internal Server Error' });
    clock.advance(9_000);
    control.attemptStarted()({ kind: 'failed', error: '500 Internal Server Error' });
    expect(control.signal.aborted).toBe(false);
    clock.advance(51_000);
    expect(control.signal.aborted).toBe(true);
    expect(control.stopped).toMatchObject({ kind: 'aborted' });
    expect((control.stopped as { reason: string }).reason).toMatch(
      /^no call succeeded for 60 s while 2 attempts failed/,
    );
  });
});
