// CPython's repr() and str() of the values json.loads builds, and the code-point order Python sorts strings by.
import type { PythonValue } from './python-value.js';

/**
 * Python `repr(value)`: `None`, `True`, `1` (int), `1.0` (float), `'text'`, `[1, 'a']`, `{'k': None}`.
 *
 * @example pythonRepr(new Map([['k', [1n, 1.0, null]]])) // "{'k': [1, 1.0, None]}"
 */
export function pythonRepr(value: PythonValue): string {
  if (value === null) return 'None';
  if (typeof value === 'boolean') return value ? 'True' : 'False';
  if (typeof value === 'bigint') return value.toString();
  if (typeof value === 'number') return pythonFloatRepr(value);
  if (typeof value === 'string') return pythonStringRepr(value);
  if (Array.isArray(value)) return `[${value.map(pythonRepr).join(', ')}]`;
  const entries = [...(value as ReadonlyMap<string, PythonValue>)];
  return `{${entries.map(([key, item]) => `${pythonStringRepr(key)}: ${pythonRepr(item)}`).join(', ')}}`;
}

/** Python `str(value)`: a string as it is, anything else as `repr` prints it. */
export function pythonStr(value: PythonValue): string {
  return typeof value === 'string' ? value : pythonRepr(value);
}

/**
 * Python `repr(float)` (and `str(float)`): the shortest digits that round-trip, in exponent form when the
 * decimal exponent is below −4 or at least 16; an integral value keeps `.0`; `nan`, `inf`, `-inf`, `-0.0`.
 *
 * @example [1721606400, 1e16, 1e-5, -0].map(pythonFloatRepr) // ['1721606400.0', '1e+16', '1e-05', '-0.0']
 */
export function pythonFloatRepr(x: number): string {
  if (Number.isNaN(x)) return 'nan';
  if (!Number.isFinite(x)) return x > 0 ? 'inf' : '-inf';
  if (x === 0) return Object.is(x, -0) ? '-0.0' : '0.0';
  const sign = x < 0 ? '-' : '';
  const [mantissa = '', exponentText = '0'] = Math.abs(x).toExponential().split('e');
  const digits = mantissa.replace('.', '');
  const exponent = Number(exponentText);
  const point = exponent + 1; // digits before the decimal point
  if (point > 16 || point < -3) {
    const fraction = digits.length > 1 ? `.${digits.slice(1)}` : '';
    return `${sign}${digits.charAt(0)}${fraction}e${exponent < 0 ? '-' : '+'}${String(Math.abs(exponent)).padStart(2, '0')}`;
  }
  if (point <= 0) return `${sign}0.${'0'.repeat(-point)}${digits}`;
  if (point >= digits.length) return `${sign}${digits}${'0'.repeat(point - digits.length)}.0`;
  return `${sign}${digits.slice(0, point)}.${digits.slice(point)}`;
}

/**
 * Python `repr(str)`: single quotes unless the text holds `'` and no `"`; `\\`, the quote, `\t \n \r` escaped;
 * a character `str.isprintable()` rejects (categories C* and Z* except the space) as `\xhh`, `\uhhhh` or
 * `\Uhhhhhhhh`. Printability follows the running Node's Unicode tables, so it differs from a CPython with older
 * tables only on code points that CPython's tables leave unassigned.
 */
export function pythonStringRepr(text: string): string {
  const quote = text.includes("'") && !text.includes('"') ? '"' : "'";
  let out = quote;
  for (const char of text) {
    const code = char.codePointAt(0) ?? 0;
    if (char === quote || char === '\\') out += `\\${char}`;
    else if (char === '\t') out += '\\t';
    else if (char === '\n') out += '\\n';
    else if (char === '\r') out += '\\r';
    else if (code >= 0x20 && code < 0x7f) out += char;
    else if (code >= 0x7f && !NON_PRINTABLE.test(char)) out += char;
    else if (code <= 0xff) out += `\\x${code.toString(16).padStart(2, '0')}`;
    else if (code <= 0xffff) out += `\\u${code.toString(16).padStart(4, '0')}`;
    else out += `\\U${code.toString(16).padStart(8, '0')}`;
  }
  return out + quote;
}

const NON_PRINTABLE = /^[\p{C}\p{Z}]$/u;

/**
 * Python `repr(sorted(strings))`: code-point order.
 *
 * @example pythonSortedListRepr(['$10,000', '$1,000,000']) // "['$1,000,000', '$10,000']"
 */
export function pythonSortedListRepr(strings: Iterable<string>): string {
  return pythonRepr([...strings].sort(compareCodePoints));
}

/** Python's order of strings: by code point (JavaScript's `<` and default sort compare UTF-16 units). */
export function compareCodePoints(left: string, right: string): number {
  const a = [...left];
  const b = [...right];
  for (let i = 0; i < Math.min(a.length, b.length); i += 1) {
    const difference = (a[i]?.codePointAt(0) ?? 0) - (b[i]?.codePointAt(0) ?? 0);
    if (difference !== 0) return difference;
  }
  return a.length - b.length;
}
