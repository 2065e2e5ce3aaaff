// Stage 1's taint rule: derived_from_revoked / derived_from_unknown, and nothing else of the guard changes.
import { describe, expect, it } from 'vitest';
import { applyStaleRetrievalGuard } from './stale-retrieval-guard.js';

const NOW = new Date('2026-09-01T12:00:00.000Z');
const journal = 'Decision record: for deploy, the approved action is skip.';
const v2 = { fact: 'Every deployment needs a second approval.', valid_at: '2026-09-01T00:00:00Z' };

describe('guard stage 1: records derived from revoked ones', () => {
  it('withholds a revoked-derived record as derived_from_revoked and an untraceable one as derived_from_unknown', () => {
    const verdict = applyStaleRetrievalGuard(
      [
        { fact: journal, derived_from: '["a"]', derived_from_status: 'revoked' },
        { fact: `${journal} (old)`, derived_from: null, derived_from_status: 'unknown' },
        { fact: `${journal} (clean)`, derived_from: '["b"]', derived_from_status: 'clean' },
        v2,
      ],
      {},
      NOW,
    );
    expect(verdict.withheld).toEqual([
      { index: 0, text: journal, reason: 'derived_from_revoked', stage: 'explicit' },
      { index: 1, text: `${journal} (old)`, reason: 'derived_from_unknown', stage: 'explicit' },
    ]);
    expect(verdict.kept.map((k) => k.index)).toEqual([2, 3]);
  });

  it("keeps the reference's reason when the record is itself revoked, and skips the rule with trustExplicitFields off", () => {
    const both = { fact: journal, expired_at: '2026-08-31T00:00:00Z', derived_from_status: 'revoked' };
    expect(applyStaleRetrievalGuard([both, v2], {}, NOW).withheld[0]!.reason).toBe('backend marked expired_at');
    const off = applyStaleRetrievalGuard(
      [{ fact: journal, derived_from_status: 'revoked' }, v2],
      { trustExplicitFields: false },
      NOW,
    );
    expect(off.withheld).toEqual([]);
  });

  it('ignores the field on a non-map record and any other status value (the paper vectors carry none)', () => {
    const verdict = applyStaleRetrievalGuard([journal, { fact: 'x', derived_from_status: 'REVOKED' }], {}, NOW);
    expect(verdict.withheld).toEqual([]);
  });
});
