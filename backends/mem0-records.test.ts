import { describe, expect, it } from 'vitest';
import { UnsupportedFeatureError } from '#core/errors.js';
import { compileFilterPredicate } from './filter-predicate.js';
import {
  mem0UserId,
  notExpiredFilter,
  revokedExpirationDate,
  showExpiredFor,
  startOfUtcDay,
  toMem0Record,
  utcDate,
} from './mem0-records.js';

const NOW = new Date('2026-12-02T16:00:00.000Z');

describe('mem0 mapping helpers', () => {
  it('writes the revoked expiry as yesterday in UTC, never from a clock ahead of mem0', () => {
    expect(revokedExpirationDate(NOW, NOW)).toBe('2026-12-01');
    // 00:30 in Tokyo on 2 Dec is 15:30 UTC on 1 Dec: the local "yesterday" (1 Dec) is UTC-today and mem0 would show it.
    const tokyoJustAfterMidnight = new Date('2026-12-02T00:30:00+09:00');
    expect(revokedExpirationDate(tokyoJustAfterMidnight, tokyoJustAfterMidnight)).toBe('2026-11-30');
    // A harness clock ahead of the wall clock would write a date mem0 does not yet treat as past.
    expect(revokedExpirationDate(new Date('2027-01-10T00:00:00Z'), NOW)).toBe('2026-12-01');
    expect(revokedExpirationDate(new Date('2026-09-01T12:00:00Z'), NOW)).toBe('2026-08-31');
    expect(utcDate(startOfUtcDay(NOW))).toBe('2026-12-02');
  });

  it('builds whitespace-free user ids that keep runs and namespaces apart', () => {
    expect(mem0UserId('r1', 'mfa_waiver_access')).toBe('r1__mfa_waiver_access');
    expect(mem0UserId('2026-12-02.run', 'ns')).toBe('2026-12-02.run__ns');
    expect(mem0UserId('my run', 'ns')).toMatch(/^my_run_[0-9a-f]{8}__ns$/);
    expect(mem0UserId('a__b', 'c')).not.toBe(mem0UserId('a', 'b__c'));
  });

  it('expresses showExpired: false as a filter the shared predicate evaluates exactly like mem0', () => {
    const filter = notExpiredFilter(NOW);
    expect(filter).toEqual({
      expiration_date: [[{ operator: 'IS NULL' }], [{ operator: '>=', date: new Date('2026-12-02T00:00:00.000Z') }]],
    });
    const keep = compileFilterPredicate(filter);
    // mem0: expired iff the date is strictly before today's UTC date.
    expect(
      ['2026-12-01', '2026-12-02', '2026-12-03', null].map((expiration_date) => keep({ expiration_date })),
    ).toEqual([false, true, true, true]);
    expect(showExpiredFor(filter, NOW)).toBe(false);
    const [isNull, fromToday] = filter.expiration_date ?? [];
    expect(showExpiredFor({ expiration_date: [fromToday ?? [], isNull ?? []] }, NOW)).toBe(false);
    expect(showExpiredFor({}, NOW)).toBe(true);
    expect(showExpiredFor({ valid_at: undefined }, NOW)).toBe(true);
  });

  it('refuses every other filter with UnsupportedFeatureError', () => {
    const midnight = startOfUtcDay(NOW);
    const refused = [
      { invalid_at: [[{ operator: 'IS NULL' as const }]] },
      { expiration_date: [[{ operator: 'IS NULL' as const }]] },
      { expiration_date: [[{ operator: 'IS NULL' as const }], [{ operator: '>' as const, date: midnight }]] },
      {
        expiration_date: [
          [{ operator: 'IS NULL' as const }],
          [{ operator: '>=' as const, date: new Date(midnight.getTime() + 1) }],
        ],
      },
      { expiration_date: [[{ operator: 'IS NULL' as const }, { operator: '>=' as const, date: midnight }]] },
    ];
    for (const filter of refused) expect(() => showExpiredFor(filter, NOW)).toThrow(UnsupportedFeatureError);
  });

  it('flattens a mem0 result to snake_case with expiration_date at the top level', () => {
    const record = toMem0Record({
      id: 'm1',
      memory: 'Old rule.',
      hash: 'h',
      createdAt: '2026-12-02T10:00:00.000Z',
      score: 0.5,
      metadata: { expiration_date: '2026-12-01', sourceTag: 'x' },
      attributedTo: 'user',
      ...({ user_id: 'r__ns' } as object),
    });
    expect(record).toEqual({
      id: 'm1',
      text: 'Old rule.',
      fields: {
        created_at: '2026-12-02T10:00:00.000Z',
        updated_at: null,
        expiration_date: '2026-12-01',
        score: 0.5,
        hash: 'h',
        attributed_to: 'user',
        user_id: 'r__ns',
        source_tag: 'x',
      },
    });
  });
});
