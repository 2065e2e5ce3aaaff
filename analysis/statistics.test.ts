import { describe, expect, test } from 'vitest';
import { exactMatchedPairTest, rate, wilson } from './statistics.js';

/** Percent with one decimal, as §8 prints it. */
const percent = (x: number): string => (100 * x).toFixed(1);

describe('wilson', () => {
  // §8 check values [D]: k, n, rate %, low %, high %.
  const checks: [number, number, string | null, string, string][] = [
    [699, 1620, '43.1', '40.8', '45.6'],
    [358, 810, '44.2', '40.8', '47.6'],
    [341, 810, '42.1', '38.7', '45.5'],
    [0, 1620, null, '0.0', '0.2'],
    [0, 810, null, '0.0', '0.5'],
    [0, 180, null, '0.0', '2.1'],
    [62, 360, '17.2', '13.7', '21.5'],
    [603, 1620, '37.2', '34.9', '39.6'],
    [293, 1620, '18.1', '16.3', '20.0'],
    [116, 900, '12.9', '10.9', '15.2'],
    [583, 720, '81.0', '77.9', '83.7'],
    [42, 62, '67.7', '55.4', '78.0'],
  ];

  test.each(checks)('%i/%i → %s %% [%s, %s]', (k, n, ratePercent, low, high) => {
    if (ratePercent !== null) expect(percent(rate(k, n))).toBe(ratePercent);
    for (const z of [undefined, 1.96]) {
      const interval = wilson(k, n, z);
      expect([percent(interval.low), percent(interval.high)]).toEqual([low, high]);
    }
  });

  test('matches the reference (z = 1.96) to the last bit', () => {
    // Python: attacks/matrix.py::wilson(699, 1620)
    expect(wilson(699, 1620, 1.96)).toEqual({ low: 0.4075529877303335, high: 0.45573417032744745 });
  });

  test('n = 0 gives {0, 0}; bounds are clamped to [0, 1]', () => {
    expect(wilson(0, 0)).toEqual({ low: 0, high: 0 });
    expect(wilson(0, 5).low).toBe(0);
    expect(wilson(5, 5).high).toBe(1);
  });
});

describe('rate', () => {
  test('k/n, and 0 for n = 0 as in the reference', () => {
    expect(rate(1, 4)).toBe(0.25);
    expect(rate(0, 0)).toBe(0);
  });
});

describe('exactMatchedPairTest', () => {
  test.each([
    [10, 7, 0.629059, 6],
    [13, 4, 0.049, 4],
    [12, 5, 0.1435, 4],
  ])('(%i, %i) → %f', (b, c, expected, digits) => {
    expect(exactMatchedPairTest(b, c)).toBeCloseTo(expected, digits);
  });

  test('(0, 39) → 3.64e−12', () => {
    const p = exactMatchedPairTest(0, 39);
    expect(p.toPrecision(3)).toBe('3.64e-12');
    expect(p).toBe(2 / 2 ** 39);
  });

  test('exact values, identical to Python', () => {
    expect(exactMatchedPairTest(0, 0)).toBe(1);
    expect(exactMatchedPairTest(5, 0)).toBe(0.0625);
    expect(exactMatchedPairTest(6, 0)).toBe(0.03125);
    expect(exactMatchedPairTest(10, 7)).toBe(0.629058837890625);
    expect(exactMatchedPairTest(12, 5)).toBe(0.143463134765625);
    expect(exactMatchedPairTest(7, 10)).toBe(exactMatchedPairTest(10, 7));
  });

  test('stays precise up to n = 200 and is capped at 1', () => {
    // Python: review_common.mcnemar_exact(3, 197)
    expect(exactMatchedPairTest(3, 197)).toBe(1.659679419208622e-54);
    expect(exactMatchedPairTest(100, 100)).toBe(1);
    expect(exactMatchedPairTest(0, 200)).toBe(2 ** -199);
  });

  test('rejects counts that are not non-negative integers', () => {
    expect(() => exactMatchedPairTest(-1, 2)).toThrow(RangeError);
    expect(() => exactMatchedPairTest(1.5, 2)).toThrow(RangeError);
  });
});
