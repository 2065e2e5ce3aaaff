// The circuit breaker trips on consecutive failures or on the error share after a minimum sample, once.
import { describe, expect, it } from 'vitest';
import { createCircuitBreaker } from './circuit-breaker.js';

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
});
