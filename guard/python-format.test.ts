// Python-compatible formatting and ISO parsing, checked against values printed by CPython 3.11.
import { describe, expect, it } from 'vitest';
import { parseIsoInstant } from './iso-datetime.js';
import { formatFixed, parsePythonFloat, pythonFloatRepr, pythonRepr, pythonSortedListRepr, pythonStrip } from './python-format.js';

describe('formatFixed (Python "{:.2f}")', () => {
  it('rounds exact binary ties to even, where toFixed rounds up', () => {
    expect([0.125, 0.375, 0.625, 0.875].map((x) => formatFixed(x))).toEqual(['0.12', '0.38', '0.62', '0.88']);
    expect((0.125).toFixed(2)).toBe('0.13');
  });
  it('matches toFixed elsewhere (the exact value decides: 0.005 is below the tie)', () => {
    expect([2 / 3, 0.75, 1, 0, 0.005, 0.015, 3 / 7, 0.45].map((x) => formatFixed(x))).toEqual(['0.67', '0.75', '1.00', '0.00', '0.01', '0.01', '0.43', '0.45']);
  });
});

describe('pythonRepr / pythonSortedListRepr', () => {
  it('prints like str() of a dict', () => {
    expect(pythonRepr({ a: 'x', b: null, c: true, d: 1.5, e: 1e20, f: [1, "it's"], g: { h: 'q"' }, u: 'é\n', s: 1e-7, t: '\u00a0' })).toBe(
      `{'a': 'x', 'b': None, 'c': True, 'd': 1.5, 'e': 1e+20, 'f': [1, "it's"], 'g': {'h': 'q"'}, 'u': 'é\\n', 's': 1e-07, 't': '\\xa0'}`,
    );
  });
  it('sorts by code point', () => {
    expect(pythonSortedListRepr(['$10,000', '$1,000,000'])).toBe("['$1,000,000', '$10,000']");
  });
  it('parses floats like Python float()', () => {
    expect(['0.5', ' 1e-1 ', '.5', '-inf', 'NaN', '1/2', '', '0x10'].map(parsePythonFloat)).toEqual([0.5, 0.1, 0.5, -Infinity, Number.NaN, null, null, null]);
  });
});

describe('parseIsoInstant (CPython 3.12 fromisoformat; naive = UTC)', () => {
  const seconds = (text: string) => parseIsoInstant(text)?.seconds ?? null;
  it('accepts the extended, basic and week forms with any separator', () => {
    const midnight = Date.UTC(2024, 0, 1) / 1000;
    expect(['2024-01-01', '20240101', '2024-W01-1', '2024W011', '2024-W01'].map(seconds)).toEqual(Array(5).fill(midnight));
    expect(['2024-01-01T10', '2024-01-01 10:00', '2024-01-01x1000', '20240101T100000', '2024-01-01T10:00Z'].map(seconds)).toEqual(Array(5).fill(midnight + 36_000));
    expect(seconds('2024-01-01T10:00:00+05:30')).toBe(midnight + 36_000 - 19_800);
    expect(seconds('2024-01-01T10:00:00-00:00')).toBe(midnight + 36_000);
  });
  it('keeps microseconds (extra digits dropped, comma allowed)', () => {
    expect(parseIsoInstant('2024-01-01T10:00:00.1234567')?.microseconds).toBe(123_456);
    expect(parseIsoInstant('2024-01-01T10:00:00,5')?.microseconds).toBe(500_000);
    expect(parseIsoInstant('2024-01-01T10.5')?.microseconds).toBe(500_000);
  });
  it('says whether the value named a timezone (Python: tzinfo is None)', () => {
    expect(['2024-01-01', '20240101T10', '2024-01-01T10:00:00.5', '2024-01-01T10Z', '2024-01-01T10:00-00:00'].map((text) => parseIsoInstant(text)?.naive)).toEqual([true, true, true, false, false]);
  });
  it('rejects what Python rejects', () => {
    for (const text of ['1700000000', 'True', '2024-1-1', ' 2024-01-01', '2024-01-01T24:00:00', '2024-01-01T10:00:00z', '2023-02-29', '2024-01-01T', '2024-01-01T10:00+24:00', '2021-W53']) {
      expect(parseIsoInstant(text), text).toBeNull();
    }
  });
});

describe('pythonStrip / pythonFloatRepr', () => {
  it('strips what str.strip() strips (CPython 3.11 output)', () => {
    const observed: [string, string][] = [
      ['  {"action": "APPROVE"}\n\n', '{"action": "APPROVE"}'],
      ['\ufeff{"a":1}\ufeff', '\ufeff{"a":1}\ufeff'],
      ['\u001c\u001d\u001e\u001f{"a":1}\u0085', '{"a":1}'],
      ['\u3000\u00a0x\u2028\t', 'x'],
      ['', ''],
      [' \n ', ''],
      ['a\u200bb ', 'a\u200bb'],
    ];
    for (const [text, stripped] of observed) expect(pythonStrip(text)).toBe(stripped);
    expect(pythonStrip(`${' '.repeat(200_000)}x${' '.repeat(200_000)}`)).toBe('x');
  });
  it('prints floats as repr(float) does', () => {
    expect([1721606400, 1721606400.123, -0.5, 0, 1e16, 1e-5].map(pythonFloatRepr)).toEqual(['1721606400.0', '1721606400.123', '-0.5', '0.0', '1e+16', '1e-05']);
  });
});
