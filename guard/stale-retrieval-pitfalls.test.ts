// Each porting pitfall of stale-retrieval.md §10.11 (load-bearing reference behaviour), pinned.
import { describe, expect, it } from 'vitest';
import { conflict, contentWords, negationCount, quantities, stem } from './conflict.js';
import { DEFAULT_GUARD_CONFIG } from './guard-config.js';
import { textOf, timestampOf } from './guard-record.js';
import { applyStaleRetrievalGuard } from './stale-retrieval-guard.js';

const NOW = new Date('2026-03-01T06:00:00Z');
const DEFAULTS = DEFAULT_GUARD_CONFIG;
const unresolved = (why: string) =>
  `unresolved conflict (${why}); both facts kept because the backend supplied no usable timestamp to order them`;
const TRANSFER_OLD = 'A single operator may execute transfers up to $1,000,000.';
const TRANSFER_NEW = 'Single-operator transfers are capped at $10,000.';

describe('§10.11.1 antonyms and negations are raw substring tests', () => {
  it('"one" matches inside "done"', () => {
    expect(conflict('Deployment reviews are done.', 'Deployment reviews need two approvers.', DEFAULTS)).toEqual({
      hit: true,
      reason: 'opposing terms "one"/"two" (subject overlap 0.67)',
    });
  });

  it('"not" matches inside "notify" and "note"', () => {
    expect(conflict('Security alerts notify the team.', 'Security alerts reach the team.', DEFAULTS)).toEqual({
      hit: true,
      reason: 'polarity mismatch (subject overlap 0.75)',
    });
    expect(negationCount('Add a note')).toBe(1);
  });

  it('"cannot" also counts as "not"; "no " matches word endings; "may" matches "dismay"', () => {
    expect(negationCount('Agents cannot export.')).toBe(2);
    expect(negationCount('casino night, piano lessons, no refunds')).toBe(3);
    expect(negationCount('nonono never')).toBe(2); // one `no ` (it needs its space) and one `never`
    expect(conflict('Refund delays never dismay customers.', 'Refund delays dismay customers.', DEFAULTS).reason).toBe(
      'opposing terms "never"/"may" (subject overlap 1.00)',
    );
  });
});

describe('§10.11.2 quantities include years and trailing commas', () => {
  it('years are quantities', () => {
    expect([...quantities('the pre-2025 rule, revised 2024')].sort()).toEqual(['2024', '2025']);
    expect(
      conflict('Audit logs are retained since 2024.', 'Audit logs are retained since 2025.', DEFAULTS).reason,
    ).toBe("conflicting quantities ['2024'] vs ['2025']");
  });

  it('a trailing comma is kept, so the same amount can conflict with itself', () => {
    expect([...quantities('up to $1,000,000, then')]).toEqual(['$1,000,000,']);
    expect(
      conflict('Transfers up to $1,000,000, approved.', 'Transfers up to $1,000,000 approved.', DEFAULTS).reason,
    ).toBe("conflicting quantities ['$1,000,000,'] vs ['$1,000,000']");
  });

  it('digits are Unicode decimal digits, as Python\u2019s \\d', () => {
    expect([...quantities('limit \u0661\u0662 units')]).toEqual(['\u0661\u0662']);
  });
});

describe('§10.11.3 the tokeniser tests the raw word, then stems', () => {
  it('stop words and length are checked before stemming; $ is a word character', () => {
    expect(contentWords('policies policy states')).toEqual(new Set(['policy']));
    expect(contentWords('$10,000')).toEqual(new Set(['$10', '000']));
    expect(contentWords('an ox was in it')).toEqual(new Set(['was']));
  });

  it('strips at most one suffix, in order, from words longer than 4', () => {
    expect(['reviewers', 'policies', 'blocked', 'logging', 'passes', 'uses', 'access', 'ies'].map(stem)).toEqual([
      'reviewer',
      'policy',
      'block',
      'logg',
      'pass',
      'uses',
      'acces',
      'ies',
    ]);
  });
});

describe('§10.11.4 the negation branch uses 0.45 whatever α is', () => {
  const a = 'Backups are not encrypted nightly.';
  const b = 'Backups rotate weekly offsite.';
  it('containment 0.25 passes α = 0.2 but not the hard-coded 0.45', () => {
    expect(conflict(a, b, { subjectOverlap: 0.2, requireOpposition: false }).reason).toBe(
      'same subject (overlap 0.25)',
    );
    expect(conflict(a, b, { subjectOverlap: 0.2, requireOpposition: true })).toEqual({ hit: false, reason: '' });
  });
});

describe('§10.11.5 the cap counts all inputs and stage-1 withholdings', () => {
  const records = [
    { fact: 'Dashboards refresh every 5 minutes.', expired_at: '2026-01-01' },
    { fact: TRANSFER_OLD, created_at: '2025-01-01T00:00:00Z' },
    { fact: TRANSFER_NEW, created_at: '2026-01-01T00:00:00Z' },
  ];
  it('floor(3 × 0.6) = 1 slot, used by stage 1: the superseded record is kept silently', () => {
    const result = applyStaleRetrievalGuard(records, {}, NOW);
    expect(result.withheld.map(({ index, stage }) => [index, stage])).toEqual([[0, 'explicit']]);
    expect(result.kept.map(({ index }) => index)).toEqual([1, 2]);
    expect(result.notes).toEqual([
      '1 of 3 retrieved facts withheld as superseded or revoked; they remain in the store and are listed in `withheld`.',
    ]);
  });
  it('with β = 1 both are withheld', () => {
    const result = applyStaleRetrievalGuard(records, { maxWithheldRatio: 1 }, NOW);
    expect(result.withheld.map(({ index, stage }) => [index, stage])).toEqual([
      [0, 'explicit'],
      [1, 'conflict'],
    ]);
    expect(result.notes.at(-1)).toMatch(/^2 of 3 retrieved facts/);
  });
});

describe('§10.11.6 kept records are visited newest first and only the first conflict counts', () => {
  it('one note, with the reason from the newest kept record (not the best-ranked one)', () => {
    const records = [
      { fact: 'Transfers need dual approvers.', created_at: '2025-01-01T00:00:00Z' },
      { fact: 'Transfers need two approvers.', created_at: '2026-01-01T00:00:00Z' },
      { fact: 'Transfers need one single approver.' },
    ];
    const result = applyStaleRetrievalGuard(records, {}, NOW);
    expect(result.kept.map(({ index }) => index)).toEqual([0, 1, 2]);
    expect(result.notes).toEqual([unresolved('opposing terms "one"/"two" (subject overlap 0.75)')]);
  });

  it('equal timestamps are unresolved; ties keep input order', () => {
    const at = '2025-06-01T00:00:00Z';
    const result = applyStaleRetrievalGuard(
      [
        { fact: TRANSFER_OLD, created_at: at },
        { fact: TRANSFER_NEW, created_at: at },
      ],
      {},
      NOW,
    );
    expect(result.withheld).toEqual([]);
    expect(result.notes).toEqual([unresolved("conflicting quantities ['$10,000'] vs ['$1,000,000']")]);
  });
});

describe('§10.11.7 timestamps without a timezone are UTC (documented deviation)', () => {
  it('a naive 10:00 is newer than 10:30+01:00, and Z means UTC', () => {
    expect(timestampOf({ created_at: '2024-01-01T10:00:00' })).toBe(Date.UTC(2024, 0, 1, 10) / 1000);
    expect(timestampOf({ created_at: '2024-01-01T10:00:00Z' })).toBe(Date.UTC(2024, 0, 1, 10) / 1000);
    const result = applyStaleRetrievalGuard(
      [
        { fact: TRANSFER_NEW, created_at: '2024-01-01T10:00:00' },
        { fact: TRANSFER_OLD, created_at: '2024-01-01T10:30:00+01:00' },
      ],
      {},
      NOW,
    );
    expect(result.withheld.map(({ index }) => index)).toEqual([1]);
  });
});

describe('§10.11.8 epoch numbers are ⊥; any present revocation value revokes', () => {
  it('numeric timestamps leave a conflict unresolved', () => {
    expect(timestampOf({ created_at: 1_700_000_000 })).toBeNull();
    const result = applyStaleRetrievalGuard(
      [
        { fact: TRANSFER_OLD, created_at: 1_600_000_000 },
        { fact: TRANSFER_NEW, created_at: 1_700_000_000 },
      ],
      {},
      NOW,
    );
    expect(result.withheld).toEqual([]);
    expect(result.notes).toHaveLength(1);
  });

  it('only the first present time field counts, even when it does not parse', () => {
    expect(timestampOf({ valid_at: 'yesterday', created_at: '2024-01-01' })).toBeNull();
    expect(timestampOf({ valid_at: '', created_at: '2024-01-01' })).toBe(Date.UTC(2024, 0, 1) / 1000);
  });

  it('false and 0 revoke; null and the empty string do not', () => {
    const result = applyStaleRetrievalGuard(
      [
        { fact: 'a', expired_at: false },
        { fact: 'b', deleted_at: 0 },
        { fact: 'c', expired_at: null },
        { fact: 'd', revoked_at: '' },
        { fact: 'e' },
      ],
      { maxWithheldRatio: 1 },
      NOW,
    );
    expect(result.withheld.map(({ text, reason }) => [text, reason])).toEqual([
      ['a', 'backend marked expired_at'],
      ['b', 'backend marked deleted_at'],
    ]);
    expect(
      applyStaleRetrievalGuard([{ fact: 'a', expired_at: false }], { trustExplicitFields: false }, NOW).withheld,
    ).toEqual([]);
  });
});

describe('§10.11.9 expiration_date is a scheduled expiry', () => {
  const reasonFor = (fields: Record<string, unknown>) =>
    applyStaleRetrievalGuard([{ fact: 'x', ...fields }], { maxWithheldRatio: 1 }, NOW).withheld[0]?.reason ?? null;
  it('a date equal to today revokes (midnight ≤ now); tomorrow does not', () => {
    expect(reasonFor({ expiration_date: '2026-03-01' })).toBe('backend marked expiration_date');
    expect(reasonFor({ expiration_date: '2026-03-02' })).toBeNull();
  });
  it('at now revokes; no timezone is UTC; unparseable revokes; a future one falls through to later fields', () => {
    expect(reasonFor({ expiration_date: '2026-03-01T06:00:00Z' })).toBe('backend marked expiration_date');
    expect(reasonFor({ expiration_date: '2026-03-01T06:30:00' })).toBeNull();
    expect(reasonFor({ expiration_date: '2026-03-01T06:30:00+01:00' })).toBe('backend marked expiration_date');
    expect(reasonFor({ expiration_date: 'soon' })).toBe('backend marked expiration_date');
    expect(reasonFor({ expiration_date: '2030-01-01', invalidated_at: 'x' })).toBe('backend marked invalidated_at');
  });
});

describe('§10.2 record text', () => {
  it('takes the first non-empty string text field, else Python str() of the record', () => {
    expect(textOf({ fact: '', text: 'B', content: 'C' })).toBe('B');
    expect(textOf({ fact: 5, memory: 'm' })).toBe('m');
    expect(textOf({ id: 7, note: "it's", ok: true, gone: null })).toBe(
      `{'id': 7, 'note': "it's", 'ok': True, 'gone': None}`,
    );
    expect(textOf(42)).toBe('42');
  });

  it('reads numbers as CPython reads the record’s JSON: an integer below 1e21 is an int, 1e21 and up a float', () => {
    // str(json.loads('{"fact": "", "n": 100000000000000000000, "x": 1e21}')) on CPython 3.11; the old guard copy
    // printed n as 1e+20 (its int/float cut-off was 1e16), the old langmem copy printed x as 1e+21 by luck.
    expect(textOf({ fact: '', n: 1e20, x: 1e21 })).toBe("{'fact': '', 'n': 100000000000000000000, 'x': 1e+21}");
  });
});
