import { describe, expect, it } from 'vitest';
import { compileFilterPredicate } from './filter-predicate.js';

const JAN = new Date('2026-01-01T00:00:00.000Z');
const JUN = new Date('2026-06-01T00:00:00.000Z');
const DEC = new Date('2026-12-01T00:00:00.000Z');
const at = (iso: string) => new Date(iso);

describe('compileFilterPredicate', () => {
  it('ORs two groups on one field that both bind dates, without sharing a parameter', () => {
    // outside [JAN, DEC]: invalid_at < JAN OR invalid_at > DEC. Graphiti names both dates `invalid_at_0`,
    // so the second group's date would overwrite the first one's.
    const outside = compileFilterPredicate({
      invalid_at: [[{ operator: '<', date: JAN }], [{ operator: '>', date: DEC }]],
    });
    expect(outside({ invalid_at: at('2025-12-31T00:00:00Z') })).toBe(true);
    expect(outside({ invalid_at: at('2026-12-02T00:00:00Z') })).toBe(true);
    expect(outside({ invalid_at: JUN })).toBe(false);
    expect(outside({ invalid_at: null })).toBe(false);
  });

  it('ANDs the comparisons inside a group', () => {
    const within = compileFilterPredicate({
      valid_at: [
        [
          { operator: '>=', date: JAN },
          { operator: '<=', date: JUN },
        ],
      ],
    });
    expect([JAN, JUN, DEC].map((valid_at) => within({ valid_at }))).toEqual([true, true, false]);
  });

  it('requires every field to pass', () => {
    const currentAndRecent = compileFilterPredicate({
      expired_at: [[{ operator: 'IS NULL' }]],
      created_at: [[{ operator: '>', date: JAN }]],
    });
    expect(currentAndRecent({ expired_at: null, created_at: JUN })).toBe(true);
    expect(currentAndRecent({ expired_at: JUN, created_at: JUN })).toBe(false);
    expect(currentAndRecent({ expired_at: null, created_at: JAN })).toBe(false);
  });

  it('follows Cypher null semantics: IS NULL holds for missing values, comparisons with null are false', () => {
    const validNow = compileFilterPredicate({
      invalid_at: [[{ operator: 'IS NULL' }], [{ operator: '>', date: JUN }]],
    });
    expect(validNow({})).toBe(true);
    expect(validNow({ invalid_at: undefined })).toBe(true);
    expect(validNow({ invalid_at: DEC })).toBe(true);
    expect(validNow({ invalid_at: JAN })).toBe(false);
    for (const operator of ['=', '<>', '>', '<', '>=', '<='] as const) {
      expect(compileFilterPredicate({ valid_at: [[{ operator, date: JUN }]] })({ valid_at: null })).toBe(false);
    }
    expect(compileFilterPredicate({ valid_at: [[{ operator: 'IS NOT NULL' }]] })({ valid_at: null })).toBe(false);
    expect(compileFilterPredicate({ valid_at: [[{ operator: '>' }]] })({ valid_at: JUN })).toBe(false);
  });

  it('compares ISO strings as instants, and treats = and <> on time values', () => {
    const exactly = compileFilterPredicate({ created_at: [[{ operator: '=', date: JUN }]] });
    expect(exactly({ created_at: '2026-06-01T02:00:00+02:00' })).toBe(true);
    expect(exactly({ created_at: 'not a date' })).toBe(false);
    const not = compileFilterPredicate({ created_at: [[{ operator: '<>', date: JUN }]] });
    expect(not({ created_at: JAN })).toBe(true);
    expect(not({ created_at: JUN })).toBe(false);
  });

  it('matches nothing for an empty OR list, everything for an empty AND group or an empty filter', () => {
    expect(compileFilterPredicate({ valid_at: [] })({ valid_at: JUN })).toBe(false);
    expect(compileFilterPredicate({ valid_at: [[]] })({ valid_at: JUN })).toBe(true);
    expect(compileFilterPredicate({})({})).toBe(true);
  });
});
