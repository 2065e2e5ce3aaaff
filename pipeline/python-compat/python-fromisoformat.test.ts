// datetime.fromisoformat and datetime.timestamp() against CPython (data/fixtures/python-compat/fromisoformat.json).
import { describe, expect, it } from 'vitest';
import { parseIsoInstant } from './python-fromisoformat.js';
import { pythonFloatRepr } from './python-repr.js';
import { instantOfDate, pythonTimestamp } from './python-timestamp.js';
import { readFixture } from './test-support/cpython-fixture.js';

type Case = { text: string; error?: string; naive?: boolean; epochMicroseconds?: string; timestamp?: string };
const fixture = readFixture<{ cases: Case[] }>('fromisoformat');

const outcome = (text: string): Omit<Case, 'text'> => {
  const instant = parseIsoInstant(text);
  if (instant === null) return { error: 'ValueError' };
  const timestamp = pythonTimestamp(instant);
  return {
    naive: instant.naive,
    epochMicroseconds: String(BigInt(instant.seconds) * 1_000_000n + BigInt(instant.microseconds)),
    timestamp: timestamp === null ? 'ValueError' : pythonFloatRepr(timestamp),
  };
};

describe(`fromisoformat and timestamp() as ${fixture.source} computes them on a UTC host (${fixture.generator})`, () => {
  it(`${fixture.cases.length} texts: the same instant to the microsecond, naive or aware, or an error`, () => {
    const wrong = fixture.cases.filter(
      ({ text, ...expected }) =>
        JSON.stringify(outcome(text)) !== JSON.stringify({ ...expected, error: expected.error && 'ValueError' }),
    );
    expect(wrong).toEqual([]);
    expect(fixture.cases.filter((c) => c.error === undefined).length).toBeGreaterThan(400);
  });

  it('naive: float(seconds) + microsecond / 1e6, rounded twice as CPython’s C code adds them; aware: one exact division', () => {
    const pairs = [
      ['1969-12-31T23:59:59.999999', '-1.0000000000287557e-06', '-1e-06'],
      ['1969-12-31T23:59:55.750219', '-4.2497810000000005', '-4.249781'],
    ];
    for (const [text, naive, aware] of pairs)
      expect([outcome(text!).timestamp, outcome(`${text}Z`).timestamp]).toEqual([naive, aware]);
  });

  it('naive: any time on 0001-01-01 raises (CPython probes the UTC offset a day earlier, in year 0)', () => {
    expect(outcome('0001-01-01T23:59:59.999999').timestamp).toBe('ValueError');
    expect(outcome('0001-01-02T00:00:00').timestamp).toBe('-62135510400.0');
    expect(outcome('0001-01-01T00:00:00+00:00').timestamp).toBe('-62135596800.0');
  });

  it('a Date is an aware instant: its timestamp is the milliseconds divided once', () => {
    const date = new Date('2024-07-22T00:00:00.123Z');
    expect(pythonFloatRepr(pythonTimestamp(instantOfDate(date))!)).toBe('1721606400.123');
    expect(instantOfDate(new Date(-1))).toEqual({ seconds: -1, microseconds: 999_000, naive: false });
  });
});
