// τ (§10.5) and `expiration_date` (§10.4) read as the reference reads them: Python `str(value)`, then
// `datetime.fromisoformat`. Expected values were printed by CPython 3.11 with TZ=UTC (the port reads naive values
// as UTC, §10.11.7) running the reference's two expressions; they are data here, no Python runs in the tests.
import { describe, expect, it } from 'vitest';
import { explicitRevocation, timestampOf } from './guard-record.js';
import { applyStaleRetrievalGuard, unresolvedConflictNote } from './stale-retrieval-guard.js';

describe('τ: datetime.fromisoformat(str(v).replace("Z", "+00:00")).timestamp(), else ⊥', () => {
  const observed: [unknown, number | null][] = [
    [20240722, 1721606400.0], // str → '20240722', a compact ISO date
    [1721606400, null], // a 10-digit epoch number is no timestamp
    [20240722123, 1721689200.0], // '20240722' + any separator + '23'
    [2024072212300, 1721689200.0],
    [17216064001, null],
    [true, null],
    [false, null],
    [0, null],
    ['20240722', 1721606400.0],
    [20250101, 1735689600.0],
    // A naive time on 0001-01-01 raises in timestamp() ("year 0 is out of range"); aware ones do not.
    ['0001-01-01', null],
    ['00010101', null],
    ['0001-01-01T23:59:59.999999', null],
    ['0001-01-02', -62135510400.0],
    ['0001-01-02T00:00:00', -62135510400.0],
    ['0001-01-01T00:00:00Z', -62135596800.0],
    ['0001-01-01T00:00:00+01:00', -62135600400.0],
    ['0001-01-01T12:00:00-05:00', -62135535600.0],
    ['0001-01-01 00:00:00+00:00', -62135596800.0],
    // Naive: float(seconds) + microsecond / 1e6, two roundings (the old port divided once and gave -1e-06).
    ['1969-12-31T23:59:59.999999', -1.0000000000287557e-6],
    ['1969-12-31T23:59:59.999999Z', -1e-6],
  ];
  it.each(observed)('created_at %j → %j', (value, expected) => {
    expect(timestampOf({ fact: 'x', created_at: value })).toBe(expected);
  });
});

describe('expiration_date: fromisoformat(str(v)), naive = UTC, skipped only when strictly after now', () => {
  const now = new Date('2026-12-03T09:00:00Z');
  const observed: [unknown, 'skipped' | 'revoked'][] = [
    [20990101, 'skipped'],
    [20240101, 'revoked'],
    [20261203, 'revoked'],
    [20261204, 'skipped'],
    [1721606400, 'revoked'], // does not parse: the field still counts
    ['0001-01-01', 'revoked'],
    ['9999-12-31T23:59:59-01:00', 'skipped'],
    [true, 'revoked'],
    [0, 'revoked'],
    ['2026-12-03T09:00:00', 'revoked'],
    ['2026-12-03T09:00:00.000001', 'skipped'],
  ];
  it.each(observed)('expiration_date %j → %s', (value, expected) => {
    expect(explicitRevocation({ fact: 'x', expiration_date: value }, now) === null ? 'skipped' : 'revoked').toBe(
      expected,
    );
  });
});

describe('the guard orders conflicts by these τ values', () => {
  const older = 'Deployment approval requires only one reviewer.';
  const newer = 'Deployment approval requires two independent reviewers.';
  it('compact numeric dates order a conflict as [C] _demo (b) does with ISO strings', () => {
    const result = applyStaleRetrievalGuard([
      { fact: older, created_at: 20240101 },
      { fact: newer, created_at: 20250101 },
    ]);
    expect(result.texts).toEqual([newer]);
    expect(result.withheld).toEqual([
      {
        index: 0,
        text: older,
        reason: 'superseded: opposing terms "one"/"two" (subject overlap 0.75)',
        stage: 'conflict',
        supersededBy: newer,
      },
    ]);
  });
  it('a naive year-1 time is no timestamp: the conflict stays unresolved and both facts are kept', () => {
    const result = applyStaleRetrievalGuard([
      { fact: older, created_at: '0001-01-01T12:00:00' },
      { fact: newer, created_at: '2025-01-01' },
    ]);
    expect(result.texts).toEqual([older, newer]);
    expect(result.notes).toEqual([unresolvedConflictNote('opposing terms "one"/"two" (subject overlap 0.75)')]);
  });
});
