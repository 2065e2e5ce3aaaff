// Strict JSON (what JSON.parse accepts) with CPython's error message and position when it is rejected.
import { PythonJsonDecodeError, pythonJsonLoads } from './python-json.js';

/** A parse outcome: the value as `JSON.parse` builds it, or CPython's error (message, line, column, position). */
export type StrictJsonOutcome = { ok: true; value: unknown } | { ok: false; error: PythonJsonDecodeError };

/**
 * Parses `text` with `JSON.parse`; when it is rejected, says where and why as CPython's `json.loads` would
 * (`Expecting ',' delimiter: line 3 column 9 (char 31)`), reading `NaN` and `Infinity` as errors like
 * `JSON.parse` does. V8's own messages give no line or column for most errors. Positions count code points.
 *
 * @example parseStrictJson('{"a": 1,}') // { ok: false, error: { msg: 'Expecting property name enclosed in double quotes', lineno: 1, colno: 9, pos: 8 } }
 */
export function parseStrictJson(text: string): StrictJsonOutcome {
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch (parseError) {
    try {
      pythonJsonLoads(text, { constants: false });
    } catch (error) {
      if (error instanceof PythonJsonDecodeError) return { ok: false, error };
      throw error;
    }
    // Accepted by the scanner but not by JSON.parse: no case is known; report V8's reason at the start.
    return { ok: false, error: new PythonJsonDecodeError((parseError as Error).message, 0, 1, 1) };
  }
}
