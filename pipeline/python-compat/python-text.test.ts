// str.isspace() and str.strip() against CPython (data/fixtures/python-compat/text.json).
import { describe, expect, it } from 'vitest';
import { isPythonSpace, pythonSlice, pythonStrip } from './python-text.js';
import { fromCodePoints, readFixture } from './test-support/cpython-fixture.js';

const fixture = readFixture<{ isspace: number[]; strip: { codePoints: number[]; stripped: number[] }[] }>('text');

describe(`whitespace as ${fixture.source} defines it (${fixture.generator})`, () => {
  it('isspace() holds for exactly the pinned code points, over all of Unicode', () => {
    const spaces: number[] = [];
    for (let code = 0; code < 0x110000; code += 1) if (isPythonSpace(String.fromCodePoint(code))) spaces.push(code);
    expect(spaces).toEqual(fixture.isspace);
  });

  it(`strip() on ${fixture.strip.length} texts; JavaScript's trim differs on U+FEFF, U+001C–U+001F and U+0085`, () => {
    for (const { codePoints, stripped } of fixture.strip)
      expect(pythonStrip(fromCodePoints(codePoints))).toBe(fromCodePoints(stripped));
    expect('\ufeffx\x85'.trim()).toBe('x\x85');
    expect(pythonStrip('\ufeffx\x85')).toBe('\ufeffx');
    expect(pythonStrip(`${' '.repeat(200_000)}x${' '.repeat(200_000)}`)).toBe('x');
  });

  it('slices count code points', () => {
    expect(pythonSlice('\u{1F600}abc', 0, 2)).toBe('\u{1F600}a');
    expect('\u{1F600}abc'.slice(0, 2)).toBe('\u{1F600}');
  });
});
