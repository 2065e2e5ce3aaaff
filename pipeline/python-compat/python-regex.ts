// A Python `re` pattern (the subset the exploit chain's shell patterns use) compiled to a JavaScript RegExp.

// Python `re` on str differs from JavaScript: `.` excludes only `\n`, `\b` and `\s` are Unicode-aware, `$` also
// matches before a final newline. A word character is `str.isalnum()` or `_`: letters and numbers, not marks.
const WORD = String.raw`[\p{L}\p{N}_]`;
const PYTHON_SPACE = String.raw`\t\n\v\f\r\x1c-\x20\x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000`;
const SYNTAX = '^$\\.*+?()[]{}|/-';
const BOUNDARY = `(?:(?<=${WORD})(?!${WORD})|(?<!${WORD})(?=${WORD}))`;

/**
 * Compiles a Python pattern for `re.search` on a str: translates `.`, `\b`, `\s`, `$` and escaped punctuation
 * (`\'` is `'`); every other escape, class and group passes through (the subset is literals, classes, groups, `|`, `?`, `*`, `+`; no flags, no
 * `\w`, `\d` or back-references). Throws a SyntaxError for what JavaScript cannot compile.
 *
 * @example compilePythonPattern(String.raw`\benv\b\s*$`).test('env\n') // true, as re.search finds it
 */
export function compilePythonPattern(source: string): RegExp {
  let out = '';
  let inClass = false;
  for (let at = 0; at < source.length; at += 1) {
    const char = source.charAt(at);
    if (char === '\\') {
      const next = source.charAt(at + 1);
      at += 1;
      if (next === 's') out += inClass ? PYTHON_SPACE : `[${PYTHON_SPACE}]`;
      else if (next === 'b' && !inClass) out += BOUNDARY;
      else if (/[A-Za-z0-9]/.test(next) || SYNTAX.includes(next)) out += `\\${next}`;
      else out += next; // Python reads `\'` as `'`; JavaScript's `u` flag rejects such escapes
    } else if (inClass) {
      if (char === ']') inClass = false;
      out += char;
    } else if (char === '[') {
      inClass = true;
      out += char;
    } else out += char === '.' ? '[^\\n]' : char === '$' ? '(?=\\n?$)' : char;
  }
  return new RegExp(out, 'u');
}
