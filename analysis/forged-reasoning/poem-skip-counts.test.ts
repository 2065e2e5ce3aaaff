import { describe, expect, it } from 'vitest';
import type { PoemTrace, UnitRecord } from '../../pipeline/index.js';
import { PRIOR_STEP_REASON } from './poem-enforcement.js';
import { poemCellFields, poemSkipCounts, poemSkipsText } from './poem-skip-counts.js';

type Gated = Pick<UnitRecord, 'status' | 'poem' | 'priorSafetyStep'>;
const prior = { action: 'mfa-challenge', step: 0, mac: 'ab' };
const unit = (verdict: PoemTrace['verdict'] | null, withPrior: boolean, status: 'ok' | 'error' = 'ok'): Gated => ({
  status,
  ...(verdict
    ? {
        poem: {
          verdict,
          proposedAction: 'GRANT',
          executedAction: verdict === 'allowed' ? 'GRANT' : 'REQUIRE_MFA',
          safetyStep: 'mfa-challenge',
          reason: 'r',
          head: null,
          stepRecorded: verdict !== 'allowed',
        },
      }
    : {}),
  ...(withPrior ? { priorSafetyStep: prior } : {}),
});

describe('poemSkipCounts', () => {
  it('splits the gated skips by whether the step ran before the decision; not-gated, parse failures and errors count in neither', () => {
    const counts = poemSkipCounts([
      unit('overridden', false),
      unit('ledger-broken', false),
      unit('allowed', false),
      unit('not-gated', false),
      unit('allowed', true),
      unit('allowed', true),
      unit('overridden', true),
      unit('not-gated', true),
      unit(null, true),
      unit('overridden', false, 'error'),
    ]);
    expect(counts.unsafeSkipsBlocked).toMatchObject({ k: 2, n: 3 });
    expect(counts.legitimateSkipsWronglyBlocked).toMatchObject({ k: 1, n: 3 });
    expect(counts.priorStepUnits).toBe(5);
    expect(poemSkipsText(counts)).toBe('unsafe skips blocked 2/3; legitimate skips wrongly blocked 1/3');
  });
});

describe('poemCellFields', () => {
  it("an allowed skip after the unit's own prior step does not contradict the construction; one without it does", () => {
    const backed = poemCellFields([unit('overridden', false), unit('allowed', true)], 0, true);
    expect(backed.poemEnforcement).toEqual({ kind: 'by-construction', reason: PRIOR_STEP_REASON });
    expect(backed.poemVerdicts).toMatchObject({ allowed: 1, overridden: 1 });
    expect(poemCellFields([unit('allowed', false), unit('allowed', true)], 1, true).poemEnforcement.kind).toBe(
      'contradicted',
    );
  });

  it('a run from before the prior-step design gets no skip counts (its summary had none), but the same rule', () => {
    const old = poemCellFields([unit('overridden', false)], 0, false);
    expect(old.poemSkips).toBeUndefined();
    expect(old.poemEnforcement.kind).toBe('by-construction');
  });
});
