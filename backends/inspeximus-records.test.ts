import { describe, expect, it } from 'vitest';
import { UnsupportedFeatureError } from '#core/errors.js';
import { applyStaleRetrievalGuard, memoryRecordToGuardInput } from '../guard/stale-retrieval-guard.js';
import { compileFilterPredicate } from './filter-predicate.js';
import {
  directoryName,
  NOT_SUPERSEDED,
  recallOptions,
  toInspeximusRecord,
  toStoredRecord,
} from './inspeximus-records.js';

// A retired row exactly as recall(include_superseded=True) returned it from inspeximus 3.23.1 (see inspeximus.md).
const RETIRED = {
  id: '257bcaaa89',
  text: 'Deployment approval requires only ONE reviewer.',
  tags: [],
  iso: '2026-12-03T12:57:53Z',
  value: 1.0,
  relevance: 1.0,
  score: 1.693,
  links: [],
  reliability: 0.5,
  source: null,
  stale_derived: false,
  key: 'ns1::policy',
  superseded: true,
};
const CURRENT = {
  id: '172262dad9',
  text: 'Deployment approval requires TWO reviewers.',
  tags: [],
  iso: '2026-12-03T12:57:53Z',
  value: 1.0,
  relevance: 1.0,
  score: 1.693,
  links: [],
  reliability: 0.5,
  source: null,
  stale_derived: false,
  key: 'ns1::policy',
};

describe('inspeximus records', () => {
  it("maps a retired row to a field the guard's stage 1 reads (invalidated_at, from history), keeping the library's own names", () => {
    const record = toInspeximusRecord(RETIRED, 1_790_000_000);
    expect(record.fields).toEqual({
      tags: '[]',
      created_at: '2026-12-03T12:57:53Z',
      value: 1,
      relevance: 1,
      score: 1.693,
      links: '[]',
      reliability: 0.5,
      source: null,
      stale_derived: false,
      key: 'ns1::policy',
      superseded: true,
      invalidated_at: '2026-09-21T14:13:20.000Z',
    });
    expect(toInspeximusRecord(CURRENT, undefined).fields).not.toHaveProperty('invalidated_at');
    expect(toInspeximusRecord(CURRENT, undefined).fields).not.toHaveProperty('superseded');
    // With no time in history the field is still present: a retired row is never handed over as current.
    expect(toInspeximusRecord(RETIRED, null).fields.invalidated_at).toBe(true);
    const verdict = applyStaleRetrievalGuard(
      [toInspeximusRecord(CURRENT, undefined), toInspeximusRecord(RETIRED, 1_790_000_000)].map(
        memoryRecordToGuardInput,
      ),
    );
    expect(verdict.withheld).toEqual([
      { index: 1, text: RETIRED.text, reason: 'backend marked invalidated_at', stage: 'explicit' },
    ]);
  });

  it('the store filter agrees with the fields: invalidated_at IS NULL keeps exactly the rows that are not superseded', () => {
    const passes = compileFilterPredicate(NOT_SUPERSEDED);
    expect(passes(toInspeximusRecord(CURRENT, undefined).fields as Record<string, string | null>)).toBe(true);
    expect(passes(toInspeximusRecord(RETIRED, 1_790_000_000).fields as Record<string, string | null>)).toBe(false);
  });

  it('reads become recall() switches: default per configuration, the store filter, metadata as where; anything else is refused', () => {
    expect(recallOptions('inspeximus', {}, false)).toEqual({ include_superseded: false });
    expect(recallOptions('inspeximus-hist', {}, true)).toEqual({ include_superseded: true });
    expect(recallOptions('inspeximus-hist', { filter: NOT_SUPERSEDED }, true)).toEqual({
      include_superseded: false,
      suppress_stale_values: true,
    });
    expect(recallOptions('inspeximus-keyed', { filter: {} }, false)).toEqual({ include_superseded: true });
    expect(recallOptions('inspeximus', { metadataFilter: { verified: true } }, false)).toEqual({
      include_superseded: false,
      where: { verified: true },
    });
    expect(() => recallOptions('inspeximus', { filter: { expired_at: [[{ operator: 'IS NULL' }]] } }, false)).toThrow(
      UnsupportedFeatureError,
    );
    expect(() =>
      recallOptions('inspeximus', { filter: { invalidated_at: [[{ operator: 'IS NOT NULL' }]] } }, false),
    ).toThrow(/only read filter hides retired records/);
    expect(() => recallOptions('inspeximus', { metadataFilter: { source: 'x', verified: true } }, false)).toThrow(
      /metadata filter on source/,
    );
  });

  it('listed rows are revoked iff the library holds them superseded', () => {
    const base = { text: 't', iso: '2026-12-03T12:57:53Z', valid_from: 1_780_000_000, meta: {} };
    expect(
      toStoredRecord({ ...base, id: 'a', key: 'k', status: 'superseded', invalidated_at: 1_790_000_000 }),
    ).toMatchObject({
      revoked: true,
      record: { fields: { key: 'k', status: 'superseded', invalidated_at: '2026-09-21T14:13:20.000Z' } },
    });
    expect(toStoredRecord({ ...base, id: 'b', key: null, status: 'active', invalidated_at: null })).toMatchObject({
      revoked: false,
      record: { fields: { status: 'active' } },
    });
  });

  it('names a namespace directory plainly, or with a hash when it is not plain (no two names share one)', () => {
    expect(directoryName('mfa_waiver_access')).toBe('mfa_waiver_access');
    expect(directoryName('a/b')).toMatch(/^a_b_[0-9a-f]{12}$/);
    expect(directoryName('a/b')).not.toBe(directoryName('a b'));
    expect(directoryName('..')).not.toBe('..');
  });
});
