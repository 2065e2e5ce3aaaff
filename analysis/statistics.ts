// Rates, Wilson intervals and the exact matched-pair sign test (stale-retrieval.md §8).

/** A two-sided confidence interval on a proportion, both ends in [0, 1]. */
export interface Interval {
  /** Lower bound. */
  low: number;
  /** Upper bound. */
  high: number;
}

/** The 97.5 % standard-normal quantile: a 95 % two-sided interval. */
const Z_95 = 1.959963984540054;

/**
 * Proportion k/n. `n = 0` gives 0, the reference convention (`k / n if n else 0.0`,
 * `attacks/matrix.py::summarize`); callers that must tell "no trials" from "no unsafe trials" check n.
 */
export function rate(k: number, n: number): number {
  return n === 0 ? 0 : k / n;
}

/**
 * Wilson score interval, formula exactly as `attacks/matrix.py::wilson` (§8); `n = 0` gives `{0, 0}`.
 * The reference passes z = 1.96; the default here is the exact quantile. Pass `1.96` for bit-identical
 * reference values; every §8 check value is the same at 0.1 % either way.
 *
 * @example wilson(699, 1620) // { low: 0.4076, high: 0.4557 } (rounded)
 */
export function wilson(k: number, n: number, z: number = Z_95): Interval {
  if (n === 0) return { low: 0, high: 0 };
  const p = k / n;
  const d = 1 + (z * z) / n;
  const c = p + (z * z) / (2 * n);
  const s = z * Math.sqrt((p * (1 - p)) / n + (z * z) / (4 * n * n));
  return { low: Math.max(0, (c - s) / d), high: Math.min(1, (c + s) / d) };
}

/**
 * Two-sided exact binomial (sign / exact McNemar) test on the discordant cells of a matched-pair
 * comparison: b = #cells where A is worse than B, c = the reverse, n = b + c,
 * p = min(1, 2 · Σ_{i=0}^{min(b,c)} C(n, i) / 2ⁿ), and p = 1 when n = 0
 * (`attacks/review_common.py::mcnemar_exact`, commit 9cf166ad3ff3).
 *
 * Binomials are exact BigInts. Python's int / int true division is correctly rounded; so is this
 * (`Number(bigint)` rounds to nearest and dividing by 2ⁿ is an exact power-of-two scaling) for n ≤ 1000.
 *
 * @example exactMatchedPairTest(10, 7) // 0.629058837890625
 */
export function exactMatchedPairTest(b: number, c: number): number {
  if (!Number.isSafeInteger(b) || !Number.isSafeInteger(c) || b < 0 || c < 0) {
    throw new RangeError(`discordant counts must be non-negative integers, got (${b}, ${c})`);
  }
  const n = b + c;
  if (n === 0) return 1;
  let term = 1n; // C(n, 0)
  let sum = 1n;
  const nBig = BigInt(n);
  for (let i = 1n; i <= BigInt(Math.min(b, c)); i++) {
    term = (term * (nBig - i + 1n)) / i; // C(n, i) from C(n, i − 1); the division is exact
    sum += term;
  }
  return Math.min(1, ratioToPowerOfTwo(2n * sum, n));
}

/** numerator / 2^exponent as a double; exact rounding while 2^exponent is finite. */
function ratioToPowerOfTwo(numerator: bigint, exponent: number): number {
  const limit = 1000;
  if (exponent <= limit) return Number(numerator) / 2 ** exponent;
  // Beyond 2^1023 the denominator overflows: drop the same number of low bits from both sides.
  const shift = BigInt(exponent - limit);
  return Number(numerator >> shift) / 2 ** limit;
}
