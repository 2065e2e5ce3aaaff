// CPython's json.loads (the C scanner, strict=True): the values it builds and the errors it raises, with positions.
import type { PythonValue } from './python-value.js';

/** CPython's `json.JSONDecodeError`: `msg`, `pos` (in code points), `lineno`, `colno`; the message is `str(error)`. */
export class PythonJsonDecodeError extends Error {
  override readonly name = 'PythonJsonDecodeError';
  /**
   * @param msg CPython's message without the position (`Expecting ',' delimiter`).
   * @param pos Offset of the error in code points, as Python indexes the text.
   * @param lineno 1-based line (lines end at `\n`).
   * @param colno 1-based column in code points.
   */
  constructor(
    readonly msg: string,
    readonly pos: number,
    readonly lineno: number,
    readonly colno: number,
  ) {
    super(`${msg}: line ${lineno} column ${colno} (char ${pos})`);
  }
}

/** Options of `pythonJsonLoads`. */
export interface PythonJsonOptions {
  /** Accept `NaN`, `Infinity` and `-Infinity` as CPython does (default true); false reads strict JSON, as `JSON.parse`. */
  constants?: boolean;
}

// Past this depth CPython raises RecursionError (not JSONDecodeError); here it is reported as "Expecting value".
const MAX_DEPTH = 1000;
const NUMBER = /-?(?:0|[1-9][0-9]*)(\.[0-9]+)?([eE][-+]?[0-9]+)?/y;
const ESCAPES: Readonly<Record<string, string>> = {
  '"': '"',
  '\\': '\\',
  '/': '/',
  b: '\b',
  f: '\f',
  n: '\n',
  r: '\r',
  t: '\t',
};
const CONSTANTS = [
  ['NaN', Number.NaN],
  ['Infinity', Infinity],
  ['-Infinity', -Infinity],
] as const;
const isHex = (char: string) => /^[0-9a-fA-F]$/.test(char);
const isSpace = (char: string) => char === ' ' || char === '\t' || char === '\n' || char === '\r';

/** Whether `text` holds at least `count` code points from UTF-16 offset `from` (without counting them all). */
function hasCodePoints(text: string, from: number, count: number): boolean {
  if (text.length - from >= 2 * count) return true;
  return [...text.slice(from)].length >= count;
}

/** Raised at a UTF-16 offset; converted to CPython's code-point position by `decodeError`. */
class ScanFailure {
  constructor(
    readonly msg: string,
    readonly at: number,
  ) {}
}

/** The JSONDecodeError CPython raises at UTF-16 offset `at` of `text`. */
function decodeError(text: string, msg: string, at: number): PythonJsonDecodeError {
  const before = text.slice(0, at);
  const pos = [...before].length;
  const lineStart = before.lastIndexOf('\n');
  const colno = lineStart === -1 ? pos + 1 : [...before.slice(lineStart + 1)].length + 1;
  return new PythonJsonDecodeError(msg, pos, before.split('\n').length, colno);
}

/**
 * CPython `json.loads(text)`: int → bigint (every digit kept), float → number, dict → Map (a repeated key keeps
 * its first position and its last value), `NaN`/`Infinity`/`-Infinity` accepted unless `constants: false`.
 * Throws `PythonJsonDecodeError` with CPython's message and position where CPython raises JSONDecodeError.
 *
 * @example pythonJsonLoads('{"a": [1, 1.0]}') // Map { 'a' => [1n, 1] }
 */
export function pythonJsonLoads(text: string, options: PythonJsonOptions = {}): PythonValue {
  const constants = options.constants ?? true;
  let at = 0;
  const fail = (msg: string, where: number = at): never => {
    throw new ScanFailure(msg, where);
  };
  const skipSpace = (): void => {
    while (at < text.length && isSpace(text.charAt(at))) at += 1;
  };
  const string = (): string => {
    const begin = at; // the opening quote
    at += 1;
    let out = '';
    for (;;) {
      const char = text.charAt(at);
      if (char === '') fail('Unterminated string starting at', begin);
      if (char === '"') {
        at += 1;
        return out;
      }
      if (char < ' ') fail('Invalid control character at');
      if (char !== '\\') {
        out += char;
        at += 1;
        continue;
      }
      const escape = text.charAt(at + 1);
      if (escape === '') fail('Unterminated string starting at', begin);
      if (escape !== 'u') {
        if (!Object.hasOwn(ESCAPES, escape)) fail('Invalid \\escape');
        out += ESCAPES[escape] ?? '';
        at += 2;
        continue;
      }
      const unit = (u: number): number => {
        const hex = text.slice(u + 1, u + 5);
        if (![...hex].every(isHex)) fail('Invalid \\uXXXX escape', u);
        return Number.parseInt(hex, 16);
      };
      if (!hasCodePoints(text, at + 2, 5)) fail('Invalid \\uXXXX escape', at + 1); // CPython: `end >= len`
      const high = unit(at + 1);
      at += 6;
      out += String.fromCharCode(high);
      // A high surrogate followed by a second \u escape: CPython reads (and validates) that escape at once.
      if (high >= 0xd800 && high <= 0xdbff && hasCodePoints(text, at, 7) && text.startsWith('\\u', at)) {
        const low = unit(at + 1);
        if (low >= 0xdc00 && low <= 0xdfff) {
          out += String.fromCharCode(low);
          at += 6;
        }
      }
    }
  };
  const value = (depth: number): PythonValue => {
    if (depth > MAX_DEPTH) fail('Expecting value');
    const char = text.charAt(at);
    if (char === '"') return string();
    if (char === '{' || char === '[') return char === '{' ? object(depth) : array(depth);
    for (const [word, result] of [
      ['null', null],
      ['true', true],
      ['false', false],
    ] as const) {
      if (text.startsWith(word, at)) {
        at += word.length;
        return result;
      }
    }
    for (const [word, result] of constants ? CONSTANTS : []) {
      if (text.startsWith(word, at)) {
        at += word.length;
        return result;
      }
    }
    NUMBER.lastIndex = at;
    const match = NUMBER.exec(text);
    if (!match) return fail('Expecting value');
    at = NUMBER.lastIndex;
    return match[1] === undefined && match[2] === undefined ? BigInt(match[0]) : Number(match[0]);
  };
  const object = (depth: number): Map<string, PythonValue> => {
    const entries = new Map<string, PythonValue>();
    at += 1;
    skipSpace();
    if (text.charAt(at) === '}') {
      at += 1;
      return entries;
    }
    for (;;) {
      if (text.charAt(at) !== '"') fail('Expecting property name enclosed in double quotes');
      const key = string();
      skipSpace();
      if (text.charAt(at) !== ':') fail("Expecting ':' delimiter");
      at += 1;
      skipSpace();
      entries.set(key, value(depth + 1));
      skipSpace();
      if (text.charAt(at) === '}') {
        at += 1;
        return entries;
      }
      if (text.charAt(at) !== ',') fail("Expecting ',' delimiter");
      at += 1;
      skipSpace();
    }
  };
  const array = (depth: number): PythonValue[] => {
    const items: PythonValue[] = [];
    at += 1;
    skipSpace();
    if (text.charAt(at) === ']') {
      at += 1;
      return items;
    }
    for (;;) {
      items.push(value(depth + 1));
      skipSpace();
      if (text.charAt(at) === ']') {
        at += 1;
        return items;
      }
      if (text.charAt(at) !== ',') fail("Expecting ',' delimiter");
      at += 1;
      skipSpace();
    }
  };
  try {
    if (text.startsWith('\ufeff')) fail('Unexpected UTF-8 BOM (decode using utf-8-sig)', 0);
    skipSpace();
    const result = value(0);
    skipSpace();
    if (at !== text.length) fail('Extra data');
    return result;
  } catch (error) {
    if (error instanceof ScanFailure) throw decodeError(text, error.msg, error.at);
    throw error;
  }
}
