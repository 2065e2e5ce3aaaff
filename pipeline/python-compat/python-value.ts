// Python values as this module models them, and the one rule that turns a JavaScript value into one.

/**
 * A Python value of the kinds `json.loads` builds: `None` → `null`, `bool` → boolean, `int` → bigint,
 * `float` → number, `str` → string, `list` → array, `dict` → Map (insertion order kept, as in Python).
 */
export type PythonValue =
  | null
  | boolean
  | bigint
  | number
  | string
  | readonly PythonValue[]
  | ReadonlyMap<string, PythonValue>;

/**
 * A JavaScript value as CPython would hold it after `json.loads(JSON.stringify(value))`: the rule for values our
 * own code builds (records, memory values), where `1` and `1.0` are the same number. A finite integral number
 * below 1e21 (which `JSON.stringify` writes without a point or exponent) is an `int`; any other number is a
 * `float` (NaN and ±Infinity too, as `json.dumps` writes them); a Date is its ISO text; an object is a dict in
 * key order; an `undefined` property is left out and an `undefined` array item is `None`, as `JSON.stringify`
 * does. A PythonValue passed in (bigint, Map) is kept.
 *
 * @example pythonRepr(fromJsonLike({ n: 1, x: 0.5, big: 1e21 })) // "{'n': 1, 'x': 0.5, 'big': 1e+21}"
 */
export function fromJsonLike(value: unknown): PythonValue {
  if (value === null || value === undefined) return null;
  if (typeof value === 'boolean' || typeof value === 'string' || typeof value === 'bigint') return value;
  if (typeof value === 'number') return Number.isInteger(value) && Math.abs(value) < 1e21 ? BigInt(value) : value;
  if (value instanceof Date) return Number.isNaN(value.getTime()) ? null : value.toISOString();
  if (Array.isArray(value)) return value.map(fromJsonLike);
  if (value instanceof Map) return new Map([...value].map(([key, item]) => [String(key), fromJsonLike(item)]));
  if (typeof value === 'object') {
    const entries = Object.entries(value).filter(([, item]) => item !== undefined && typeof item !== 'function');
    return new Map(entries.map(([key, item]) => [key, fromJsonLike(item)]));
  }
  return String(value);
}

/**
 * A Python value as a JavaScript JSON-like value, as `JSON.parse` would read the text `json.dumps` writes for it:
 * dict → plain object (own properties, `__proto__` included), int → number (exact up to 2^53), float → number.
 * The inverse of `fromJsonLike` except that an integral float reads back as an int (JavaScript cannot keep `1.0`).
 *
 * @example toJsonLike(pythonJsonLoads('{"n": 1, "a": [true, null]}')) // { n: 1, a: [true, null] }
 */
export function toJsonLike(value: PythonValue): unknown {
  if (typeof value === 'bigint') return Number(value);
  if (Array.isArray(value)) return value.map(toJsonLike);
  if (value instanceof Map) return Object.fromEntries([...value].map(([key, item]) => [key, toJsonLike(item)]));
  return value;
}
