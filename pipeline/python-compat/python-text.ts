// CPython's str whitespace, str.strip() and slicing, which count and classify by code point.

// biome-ignore lint/suspicious/noControlCharactersInRegex: CPython's str.isspace() counts U+001C-U+001F as space
const PYTHON_SPACE = /^[\t\n\v\f\r\x1c-\x20\x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]$/;

/**
 * Whether `char.isspace()` (CPython 3.11): JavaScript's `\s` and `trim` also take U+FEFF, and take neither
 * U+001C–U+001F nor U+0085.
 */
export function isPythonSpace(char: string): boolean {
  return PYTHON_SPACE.test(char);
}

/**
 * Python `text.strip()` with no argument (linear in the length).
 *
 * @example pythonStrip('\u0085 {"a": 1}\ufeff ') // '{"a": 1}\ufeff'
 */
export function pythonStrip(text: string): string {
  let start = 0;
  let end = text.length;
  while (start < end && isPythonSpace(text.charAt(start))) start += 1;
  while (end > start && isPythonSpace(text.charAt(end - 1))) end -= 1;
  return text.slice(start, end);
}

/**
 * Python `text[start:end]` for non-negative bounds: counted in code points, so an emoji is one character
 * (JavaScript's `slice` counts UTF-16 units and can cut a surrogate pair in half).
 *
 * @example pythonSlice('😀abc', 0, 2) // '😀a'
 */
export function pythonSlice(text: string, start: number, end?: number): string {
  return [...text].slice(start, end).join('');
}
