// Strict JSON parsing that reports where the first syntax error is (1-based line and column, in code points).

/** A parse outcome: the value, or the error's position and message. */
export type JsonTextOutcome = { ok: true; value: unknown } | { ok: false; line: number; column: number; message: string };

/**
 * Parses `text` with `JSON.parse`; on failure locates the first offending character with a strict scan
 * (V8 omits positions from most messages and quotes multi-line snippets), so callers can say
 * `line 3, column 7: unexpected "}"`.
 */
export function parseJsonText(text: string): JsonTextOutcome {
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch {
    const offset = syntaxErrorOffset(text);
    const before = text.slice(0, offset).split('\n');
    const line = before.length;
    const column = [...(before.at(-1) ?? '')].length + 1;
    const found = offset >= text.length ? 'end of input' : JSON.stringify(String.fromCodePoint(text.codePointAt(offset) ?? 0));
    return { ok: false, line, column, message: `unexpected ${found}` };
  }
}

const WHITESPACE = ' \t\n\r';
const ESCAPES = '"\\/bfnrt';
const LITERAL = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?|true|false|null/y;

/** Offset of the first character strict JSON rejects (the text length when input ends too early). */
export function syntaxErrorOffset(text: string): number {
  let at = 0;
  const fail = (): never => {
    throw at;
  };
  const space = (): void => {
    while (at < text.length && WHITESPACE.includes(text.charAt(at))) at += 1;
  };
  const take = (char: string): void => {
    if (text.charAt(at) !== char) fail();
    at += 1;
  };
  const string = (): void => {
    take('"');
    for (;;) {
      const char = text.charAt(at);
      if (char === '"') return void (at += 1);
      if (char === '' || char < ' ') fail();
      if (char !== '\\') at += 1;
      else if (text.charAt(at + 1) === 'u' && /^[\da-fA-F]{4}$/.test(text.slice(at + 2, at + 6))) at += 6;
      else if (text.charAt(at + 1) !== '' && ESCAPES.includes(text.charAt(at + 1))) at += 2;
      else {
        at += 1;
        fail();
      }
    }
  };
  const value = (): void => {
    space();
    const char = text.charAt(at);
    if (char === '[' || char === '{') {
      const close = char === '[' ? ']' : '}';
      at += 1;
      space();
      if (text.charAt(at) === close) return void (at += 1);
      for (;;) {
        if (close === '}') {
          space();
          string();
          space();
          take(':');
        }
        value();
        space();
        if (text.charAt(at) !== ',') return take(close);
        at += 1;
      }
    }
    if (char === '"') return string();
    LITERAL.lastIndex = at;
    if (char === '' || !LITERAL.test(text)) fail();
    at = LITERAL.lastIndex;
  };
  try {
    value();
    space();
    if (at < text.length) fail();
    return text.length;
  } catch (offset) {
    return offset as number;
  }
}
