// Python's text forms of JSON-like values, as langmem's Python stack produced them: the text LangGraph embeds
// (`json.dumps(value, sort_keys=True, ensure_ascii=False)`) and the fact text the paper's probe read (`str(x)`).

/**
 * `json.dumps(value, sort_keys=True, ensure_ascii=False)`: separators `', '` and `': '`, keys sorted, non-ASCII
 * kept. String escaping equals `JSON.stringify` (both escape `"`, `\` and control characters, lowercase hex).
 * This is LangGraph's index text for the default index field `$` (`get_text_at_path(value, "$")`).
 *
 * @example pythonJsonDumps({ kind: 'Memory', content: { content: 'A.' } }); // '{"content": {"content": "A."}, "kind": "Memory"}'
 */
export function pythonJsonDumps(value: unknown): string {
  if (value === null || value === undefined) return 'null';
  if (typeof value === 'string' || typeof value === 'boolean') return JSON.stringify(value);
  if (typeof value === 'number') return Number.isFinite(value) ? JSON.stringify(value) : value > 0 ? 'Infinity' : value < 0 ? '-Infinity' : 'NaN';
  if (Array.isArray(value)) return `[${value.map(pythonJsonDumps).join(', ')}]`;
  if (typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([key, item]) => `${JSON.stringify(key)}: ${pythonJsonDumps(item)}`).join(', ')}}`;
  }
  return JSON.stringify(String(value));
}

/**
 * Python `str(x)` of a JSON-like value: strings as they are, containers as their `repr` (dicts in insertion
 * order, `None`, `True`, `False`). The paper's probe took `str(item.value.get('content', item.value))`, so a
 * memory the manager wrote (`{"kind", "content": {"content": text}}`) reached the agent as `{'content': '...'}`.
 *
 * @example pythonStr({ content: 'A.' }); // "{'content': 'A.'}"
 */
export function pythonStr(value: unknown): string {
  return typeof value === 'string' ? value : pythonRepr(value);
}

function pythonRepr(value: unknown): string {
  if (value === null || value === undefined) return 'None';
  if (value === true) return 'True';
  if (value === false) return 'False';
  if (typeof value === 'string') return stringRepr(value);
  if (typeof value === 'number') return String(value);
  if (Array.isArray(value)) return `[${value.map(pythonRepr).join(', ')}]`;
  if (typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>);
    return `{${entries.map(([key, item]) => `${stringRepr(key)}: ${pythonRepr(item)}`).join(', ')}}`;
  }
  return stringRepr(String(value));
}

/** `repr(str)`: single quotes unless the text has `'` and no `"`; escapes `\`, the quote, `\n \r \t`, other C0 and DEL. */
function stringRepr(text: string): string {
  const quote = text.includes("'") && !text.includes('"') ? '"' : "'";
  let out = '';
  for (const char of text) {
    const code = char.codePointAt(0) ?? 0;
    if (char === '\\' || char === quote) out += `\\${char}`;
    else if (char === '\n') out += '\\n';
    else if (char === '\r') out += '\\r';
    else if (char === '\t') out += '\\t';
    else if (code < 0x20 || code === 0x7f) out += `\\x${code.toString(16).padStart(2, '0')}`;
    else out += char; // Non-printable non-ASCII characters (Python escapes them) do not occur in the scenarios.
  }
  return `${quote}${out}${quote}`;
}
