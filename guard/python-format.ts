// Python's str()/repr() and '{:.2f}' formatting, so guard texts and reasons match the reference byte for byte.

/**
 * Python `str(value)` for JSON-like values: a string as is; anything else as `repr` would print it.
 * JSON cannot tell `1` from `1.0`, so an integral number below 1e16 prints as an int (`1`, never `1.0`);
 * object keys print in JavaScript's key order (integer-like keys first), which can differ from Python's
 * insertion order.
 */
export function pythonStr(value: unknown): string {
  return typeof value === 'string' ? value : pythonRepr(value);
}

/** Python `repr` for JSON-like values (`None`, `True`, `'text'`, `[1, 'a']`, `{'k': None}`). */
export function pythonRepr(value: unknown): string {
  if (value === null || value === undefined) return 'None';
  if (typeof value === 'boolean') return value ? 'True' : 'False';
  if (typeof value === 'number') return pythonNumber(value);
  if (typeof value === 'string') return pythonStringRepr(value);
  if (Array.isArray(value)) return `[${value.map(pythonRepr).join(', ')}]`;
  if (value instanceof Date) return pythonStringRepr(value.toISOString());
  if (typeof value === 'object') {
    const entries = Object.entries(value).map(([key, item]) => `${pythonStringRepr(key)}: ${pythonRepr(item)}`);
    return `{${entries.join(', ')}}`;
  }
  return String(value);
}

/** Python `repr(float(value))`: like `pythonRepr`, but an integral value keeps its `.0` (`1721606400.0`). */
export function pythonFloatRepr(value: number): string {
  if (Number.isInteger(value) && Math.abs(value) < 1e16) return `${Object.is(value, -0) ? '-0' : String(value)}.0`;
  return pythonNumber(value);
}

/** Whether `str.isspace()` is true for a character (CPython 3.11): JavaScript's `trim` also strips U+FEFF but not U+001C–U+001F or U+0085. */
function isPythonSpace(char: string): boolean {
  return /^[\t\n\v\f\r\x1c-\x1f \x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]$/.test(char);
}

/** Python `text.strip()` (no argument): leading and trailing whitespace as Python defines it (linear in the length). */
export function pythonStrip(text: string): string {
  let start = 0;
  let end = text.length;
  while (start < end && isPythonSpace(text.charAt(start))) start += 1;
  while (end > start && isPythonSpace(text.charAt(end - 1))) end -= 1;
  return text.slice(start, end);
}

function pythonNumber(value: number): string {
  if (Number.isNaN(value)) return 'nan';
  if (!Number.isFinite(value)) return value > 0 ? 'inf' : '-inf';
  if (Number.isInteger(value) && Math.abs(value) < 1e16) return String(Object.is(value, -0) ? 0 : value);
  // float repr: shortest round-trip digits (as JavaScript), scientific outside 1e-4 <= |x| < 1e16.
  const [mantissa = '', exponentText = '0'] = value.toExponential().split('e');
  const exponent = Number(exponentText);
  if (exponent < -4 || exponent >= 16) {
    return `${mantissa}e${exponent < 0 ? '-' : '+'}${String(Math.abs(exponent)).padStart(2, '0')}`;
  }
  const text = String(value);
  return text.includes('.') ? text : `${text}.0`;
}

/** Python `repr(str)`: single quotes unless the text holds `'` and no `"`; non-printable characters escaped. */
export function pythonStringRepr(text: string): string {
  const quote = text.includes("'") && !text.includes('"') ? '"' : "'";
  let out = quote;
  for (const char of text) {
    const code = char.codePointAt(0) ?? 0;
    if (char === '\\' || char === quote) out += `\\${char}`;
    else if (char === '\n') out += '\\n';
    else if (char === '\r') out += '\\r';
    else if (char === '\t') out += '\\t';
    else if (char !== ' ' && /^[\p{C}\p{Z}]$/u.test(char)) out += escapeCodePoint(code);
    else out += char;
  }
  return out + quote;
}

function escapeCodePoint(code: number): string {
  if (code < 0x100) return `\\x${code.toString(16).padStart(2, '0')}`;
  if (code < 0x10000) return `\\u${code.toString(16).padStart(4, '0')}`;
  return `\\U${code.toString(16).padStart(8, '0')}`;
}

/** Python `repr(sorted(strings))`: code-point order, e.g. `['$10,000', '$1,000,000']` → `['$1,000,000', '$10,000']`. */
export function pythonSortedListRepr(strings: Iterable<string>): string {
  return `[${[...strings].sort(compareCodePoints).map(pythonStringRepr).join(', ')}]`;
}

/** Python's string order (by code point; JavaScript's default sort compares UTF-16 units). */
export function compareCodePoints(left: string, right: string): number {
  const a = [...left];
  const b = [...right];
  for (let i = 0; i < Math.min(a.length, b.length); i += 1) {
    const difference = (a[i]?.codePointAt(0) ?? 0) - (b[i]?.codePointAt(0) ?? 0);
    if (difference !== 0) return difference;
  }
  return a.length - b.length;
}

/**
 * Python `f'{value:.{digits}f}'`: the exact binary value rounded, ties to even. `toFixed` also rounds the
 * exact value but sends ties up, so only exact ties differ (0.125 → Python `0.12`, toFixed `0.13`).
 * A double is an exact tie at `digits` decimals iff value·2^(digits+1) is an odd integer.
 */
export function formatFixed(value: number, digits = 2): string {
  const doubled = value * 2 ** (digits + 1);
  if (!Number.isInteger(doubled) || doubled % 2 === 0 || !Number.isFinite(value)) return value.toFixed(digits);
  const scaled = Math.abs(value) * 10 ** digits; // exactly k + 0.5 here
  const lower = Math.floor(scaled);
  const units = lower % 2 === 0 ? lower : lower + 1;
  const text = String(units).padStart(digits + 1, '0');
  const sign = value < 0 ? '-' : '';
  return digits === 0 ? `${sign}${text}` : `${sign}${text.slice(0, -digits)}.${text.slice(-digits)}`;
}

/**
 * Python `float(text)` for configuration values: surrounding whitespace, sign, decimals, exponent,
 * `inf`/`infinity`/`nan` in any case. Returns `null` when Python would raise (digit underscores unsupported).
 */
export function parsePythonFloat(text: string): number | null {
  const trimmed = text.trim();
  const special = /^([+-]?)(inf|infinity|nan)$/i.exec(trimmed);
  if (special) {
    if (special[2]?.toLowerCase() === 'nan') return Number.NaN;
    return special[1] === '-' ? -Infinity : Infinity;
  }
  return /^[+-]?(\d+\.?\d*|\.\d+)(e[+-]?\d+)?$/i.test(trimmed) ? Number(trimmed) : null;
}
