// CPython's json.dumps(value, sort_keys=..., ensure_ascii=False) with the default separators.
import { compareCodePoints, pythonFloatRepr } from './python-repr.js';
import type { PythonValue } from './python-value.js';

/** Options of `pythonJsonDumps`; `ensure_ascii` is always False. */
export interface PythonJsonDumpsOptions {
  /** `sort_keys=True`: dict keys in code-point order (default false: insertion order). */
  sortKeys?: boolean;
}

const STRING_ESCAPES: Readonly<Record<string, string>> = {
  '"': '\\"',
  '\\': '\\\\',
  '\n': '\\n',
  '\r': '\\r',
  '\t': '\\t',
  '\b': '\\b',
  '\f': '\\f',
};

/**
 * `json.dumps(value, ensure_ascii=False)`: separators `', '` and `': '`; floats as `repr` (`1.0`, `1e+16`), `NaN`,
 * `Infinity`, `-Infinity`; strings escape `"`, `\`, and control characters (`\n`, `\u001f`), keeping everything else
 * as it is (lone surrogates too, where `JSON.stringify` escapes them).
 *
 * @example pythonJsonDumps(new Map([['kind', 'Memory'], ['n', 1.0]]), { sortKeys: true }) // '{"kind": "Memory", "n": 1.0}'
 */
export function pythonJsonDumps(value: PythonValue, options: PythonJsonDumpsOptions = {}): string {
  if (value === null) return 'null';
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  if (typeof value === 'bigint') return value.toString();
  if (typeof value === 'number') {
    if (Number.isNaN(value)) return 'NaN';
    if (!Number.isFinite(value)) return value > 0 ? 'Infinity' : '-Infinity';
    return pythonFloatRepr(value);
  }
  if (typeof value === 'string') return jsonString(value);
  if (Array.isArray(value)) return `[${value.map((item: PythonValue) => pythonJsonDumps(item, options)).join(', ')}]`;
  const entries = [...(value as ReadonlyMap<string, PythonValue>)];
  if (options.sortKeys) entries.sort(([a], [b]) => compareCodePoints(a, b));
  return `{${entries.map(([key, item]) => `${jsonString(key)}: ${pythonJsonDumps(item, options)}`).join(', ')}}`;
}

function jsonString(text: string): string {
  const body = text.replace(
    // biome-ignore lint/suspicious/noControlCharactersInRegex: json.dumps escapes exactly ", \ and U+0000-U+001F
    /["\\\x00-\x1f]/g,
    (char) => STRING_ESCAPES[char] ?? `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
  return `"${body}"`;
}
