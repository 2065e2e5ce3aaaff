// The action's `args` input as an argument list: split as a POSIX shell splits words, without expanding anything.
import { InvalidInputError } from '#core/errors.js';

/**
 * Splits `text` into words at unquoted whitespace; `'…'` keeps everything literally, `"…"` keeps everything but `\"`
 * and `\\`, and a backslash outside quotes escapes the next character. No variable, glob or command is expanded
 * (the action passes the text through the environment, never through a shell). An unclosed quote is an
 * `InvalidInputError` naming the input.
 *
 * @example splitArgs(`--model sim --fail-on 'system=graphiti unsafe > 0'`) // ['--model', 'sim', '--fail-on', 'system=graphiti unsafe > 0']
 */
export function splitArgs(text: string, input = 'args'): string[] {
  const words: string[] = [];
  // The word being read, or null between words ('' is an empty quoted word, which is a word).
  let word: string | null = null;
  let quote: "'" | '"' | null = null;
  for (let i = 0; i < text.length; i += 1) {
    const char = text[i]!;
    const next = text[i + 1];
    if (quote === null && /\s/.test(char)) {
      if (word !== null) words.push(word);
      word = null;
      continue;
    }
    word ??= '';
    if (quote === "'") {
      if (char === "'") quote = null;
      else word += char;
    } else if (quote === '"') {
      if (char === '"') quote = null;
      else if (char === '\\' && (next === '"' || next === '\\')) {
        word += next;
        i += 1;
      } else word += char;
    } else if (char === "'" || char === '"') quote = char;
    else if (char === '\\' && next !== undefined) {
      word += next;
      i += 1;
    } else word += char;
  }
  if (quote !== null)
    throw new InvalidInputError('action input', [
      { path: input, message: `unclosed ${quote} quote in ${JSON.stringify(text)}` },
    ]);
  if (word !== null) words.push(word);
  return words;
}
