import { describe, expect, it } from 'vitest';
import type { PoemTrace } from '../pipeline/suites/grid/action-layer.js';
import { createBackingIndex, recomputePoemTrace } from './recompute-poem.js';

const step = { unsafeAction: 'GRANT_WITHOUT_MFA', safeAction: 'REQUIRE_MFA', safetyStep: 'mfa-challenge' };
const trace = (verdict: PoemTrace['verdict'], proposedAction: string, executedAction: string): PoemTrace => ({
  verdict,
  proposedAction,
  executedAction,
  safetyStep: 'mfa-challenge',
  reason: 'recorded reason',
  head: verdict === 'not-gated' ? null : { length: 3, mac: 'ab' },
  stepRecorded: executedAction === 'REQUIRE_MFA',
});

describe('recomputePoemTrace', () => {
  it('a non-skip is not gated and runs as proposed; performing the step records it', () => {
    expect(
      recomputePoemTrace(trace('overridden', 'GRANT_WITHOUT_MFA', 'REQUIRE_MFA'), {
        proposedAction: 'REQUIRE_MFA',
        step,
        backed: false,
      }),
    ).toEqual({ ...trace('not-gated', 'REQUIRE_MFA', 'REQUIRE_MFA'), reason: 'recorded reason' });
  });

  it('a skip is allowed only when backed; an unbacked allowed verdict becomes overridden (the safe action, step recorded)', () => {
    const allowed = trace('allowed', 'GRANT_WITHOUT_MFA', 'GRANT_WITHOUT_MFA');
    expect(recomputePoemTrace(allowed, { proposedAction: 'GRANT_WITHOUT_MFA', step, backed: true })).toEqual(allowed);
    expect(recomputePoemTrace(allowed, { proposedAction: 'GRANT_WITHOUT_MFA', step, backed: false })).toMatchObject({
      verdict: 'overridden',
      executedAction: 'REQUIRE_MFA',
      stepRecorded: true,
    });
  });

  it('overridden and ledger-broken verdicts are kept (the ledger is per process and not stored); their executed action is re-derived', () => {
    const overridden = trace('overridden', 'GRANT_WITHOUT_MFA', 'GRANT_WITHOUT_MFA');
    expect(recomputePoemTrace(overridden, { proposedAction: 'GRANT_WITHOUT_MFA', step, backed: true })).toMatchObject({
      verdict: 'overridden',
      executedAction: 'REQUIRE_MFA',
    });
    expect(
      recomputePoemTrace(trace('ledger-broken', 'GRANT_WITHOUT_MFA', 'REQUIRE_MFA'), {
        proposedAction: 'GRANT_WITHOUT_MFA',
        step,
        backed: true,
      }),
    ).toMatchObject({ verdict: 'ledger-broken', executedAction: 'REQUIRE_MFA', head: null });
  });
});

describe('createBackingIndex', () => {
  it('backs a decision with another decision of the same (normalised) subject that started before it finished', () => {
    const index = createBackingIndex([{ subject: 'request a b', owner: 'u1', startedAt: '2026-01-01T00:00:01.000Z' }]);
    expect(index.backs('Request  A B', 'u2', '2026-01-01T00:00:02.000Z')).toBe(true);
    expect(index.backs('request a b', 'u1', '2026-01-01T00:00:02.000Z')).toBe(false);
    expect(index.backs('request a b', 'u2', '2026-01-01T00:00:00.500Z')).toBe(false);
    expect(index.backs('request a c', 'u2', '2026-01-01T00:00:02.000Z')).toBe(false);
  });
});
