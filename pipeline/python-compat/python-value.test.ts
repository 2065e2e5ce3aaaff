// fromJsonLike: a JavaScript value read as CPython reads its JSON text.
import { describe, expect, it } from 'vitest';
import { pythonJsonLoads } from './python-json.js';
import { pythonRepr } from './python-repr.js';
import { fromJsonLike } from './python-value.js';

describe('fromJsonLike = json.loads(JSON.stringify(value))', () => {
  it('agrees with the JSON round trip on numbers around every threshold and on nested values', () => {
    const numbers = [
      0,
      -0,
      1,
      -1,
      0.5,
      1e15,
      1e16,
      2 ** 53,
      2 ** 53 + 2,
      1e20,
      1e21 - 65536,
      1e21,
      1e22,
      1e-7,
      -123.25,
      Number.MAX_VALUE,
      Number.MIN_VALUE,
    ];
    const values: unknown[] = [
      ...numbers,
      { a: numbers, b: { c: null, d: 'x', e: true } },
      [null, 'q', [[]]],
      new Date(0),
      'plain',
    ];
    for (const value of values)
      expect(pythonRepr(fromJsonLike(value)), String(value)).toBe(pythonRepr(pythonJsonLoads(JSON.stringify(value))));
  });

  it('undefined properties vanish and undefined items are None, as JSON.stringify writes them', () => {
    expect(pythonRepr(fromJsonLike({ a: undefined, b: [undefined] }))).toBe(
      pythonRepr(pythonJsonLoads(JSON.stringify({ a: undefined, b: [undefined] }))),
    );
  });

  it('NaN and ±Infinity stay floats (JSON.stringify would write null; json.dumps writes NaN)', () => {
    expect(pythonRepr(fromJsonLike([Number.NaN, Infinity, -Infinity]))).toBe('[nan, inf, -inf]');
  });

  it('Python values pass through: 1.0 as a float prints 1.0, 1n as an int prints 1', () => {
    expect(
      pythonRepr(
        fromJsonLike(
          new Map<string, unknown>([
            ['f', 1],
            ['i', 1n],
          ]),
        ),
      ),
    ).toBe("{'f': 1, 'i': 1}");
    expect(
      pythonRepr(
        new Map<string, number | bigint>([
          ['f', 1],
          ['i', 1n],
        ]),
      ),
    ).toBe("{'f': 1.0, 'i': 1}");
  });
});
