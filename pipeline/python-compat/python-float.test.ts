// f'{x:.Nf}' and float(text) against CPython (data/fixtures/python-compat/float-format.json).
import { describe, expect, it } from 'vitest';
import { formatFixed, parsePythonFloat } from './python-float.js';
import { doubleFromBits, readFixture } from './test-support/cpython-fixture.js';

const fixture = readFixture<{
  fixed: { bits: string; digits: number; text: string }[];
  parse: { text: string; bits: string | null }[];
}>('float-format');

describe(`float formatting and parsing as ${fixture.source} does it (${fixture.generator})`, () => {
  it(`f'{x:.Nf}' for ${fixture.fixed.length} cases: ties to even, -0.00, 1e21 and above in full, nan, inf`, () => {
    const wrong = fixture.fixed.filter(({ bits, digits, text }) => formatFixed(doubleFromBits(bits), digits) !== text);
    expect(wrong).toEqual([]);
    expect([(0.125).toFixed(2), (-0).toFixed(2), (1e21).toFixed(2)]).toEqual(['0.13', '0.00', '1e+21']); // what toFixed would say
  });

  it(`float(text) for ${fixture.parse.length} texts: underscores, Unicode digits and spaces, inf and nan`, () => {
    for (const { text, bits } of fixture.parse) {
      const expected = bits === null ? null : doubleFromBits(bits);
      const parsed = parsePythonFloat(text);
      expect(
        parsed === null || expected === null
          ? parsed === expected
          : Object.is(parsed, expected) || (Number.isNaN(parsed) && Number.isNaN(expected)),
        JSON.stringify(text),
      ).toBe(true);
    }
  });
});
