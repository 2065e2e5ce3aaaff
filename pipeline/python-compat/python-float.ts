// CPython's float(text) and f'{x:.Nf}' formatting, for configuration values and the guard's reasons.
import { isPythonSpace } from './python-text.js';

/**
 * Python `f'{value:.{digits}f}'`: the exact binary value rounded half to even (`toFixed` rounds exact ties away from
 * zero: 0.125 → Python `0.12`, toFixed `0.13`), every digit written out above 1e21 (where `toFixed` switches to
 * exponent form), `-0.00` for negative zero, and `nan`, `inf`, `-inf`.
 *
 * @example [0.125, -0, 1e21].map((x) => formatFixed(x)) // ['0.12', '-0.00', '1000000000000000000000.00']
 */
export function formatFixed(value: number, digits = 2): string {
  if (Number.isNaN(value)) return 'nan';
  if (!Number.isFinite(value)) return value > 0 ? 'inf' : '-inf';
  const sign = value < 0 || Object.is(value, -0) ? '-' : '';
  const magnitude = Math.abs(value);
  if (magnitude >= 1e21) return `${sign}${BigInt(magnitude)}${digits > 0 ? `.${'0'.repeat(digits)}` : ''}`;
  // A double is an exact tie at `digits` decimals iff value·2^(digits+1) is an odd integer.
  const doubled = magnitude * 2 ** (digits + 1);
  if (!Number.isInteger(doubled) || doubled % 2 === 0) return sign + magnitude.toFixed(digits);
  const lower = (BigInt(doubled) * 5n ** BigInt(digits) - 1n) / 2n; // value · 10^digits = lower + 0.5 exactly
  const text = String(lower % 2n === 0n ? lower : lower + 1n).padStart(digits + 1, '0');
  return digits === 0 ? `${sign}${text}` : `${sign}${text.slice(0, -digits)}.${text.slice(-digits)}`;
}

/**
 * Python `float(text)`, or `null` where it raises ValueError: non-ASCII whitespace and decimal digits count as
 * their ASCII forms (`'\u3000١٢'` → 12), ASCII whitespace around is ignored (U+001C–U+001F and U+FEFF are not),
 * `_` only between digits, `inf`/`infinity`/`nan` in any case with an optional sign.
 *
 * @example ['0.5', '1_000', ' 1e-1 ', '1__0', '0x10'].map(parsePythonFloat) // [0.5, 1000, 0.1, null, null]
 */
export function parsePythonFloat(text: string): number | null {
  const ascii = [...text]
    .map(asciiForm)
    .join('')
    .replace(/^[ \t\n\r\v\f]+|[ \t\n\r\v\f]+$/g, '');
  const special = /^([+-]?)(inf|infinity|nan)$/i.exec(ascii);
  if (special) {
    if (special[2]?.toLowerCase() === 'nan') return Number.NaN;
    return special[1] === '-' ? -Infinity : Infinity;
  }
  if (/(^|[^0-9])_|_($|[^0-9])/.test(ascii)) return null;
  const plain = ascii.replaceAll('_', '');
  return /^[+-]?(\d+\.?\d*|\.\d+)(e[+-]?\d+)?$/i.test(plain) ? Number(plain) : null;
}

/** CPython's `_PyUnicode_TransformDecimalAndSpaceToASCII` on one character: non-ASCII space → ' ', digit → '0'–'9'. */
function asciiForm(char: string): string {
  const code = char.codePointAt(0) ?? 0;
  if (code < 0x80) return char;
  if (isPythonSpace(char)) return ' ';
  if (!DECIMAL.test(char)) return '?';
  // Decimal digits come in runs of ten, 0 to 9 (a Unicode stability guarantee): count back to the run's start.
  let start = code;
  while (start > 0 && DECIMAL.test(String.fromCodePoint(start - 1))) start -= 1;
  return String((code - start) % 10);
}

const DECIMAL = /^\p{Nd}$/u;
