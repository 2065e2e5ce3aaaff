// json.loads against CPython's own values and JSONDecodeErrors (data/fixtures/python-compat/json-loads.json).
import { describe, expect, it } from 'vitest';
import { PythonJsonDecodeError, pythonJsonLoads } from './python-json.js';
import { pythonRepr } from './python-repr.js';
import { parseStrictJson } from './strict-json.js';
import { readFixture } from './test-support/cpython-fixture.js';

type Case = {
  text: string;
  repr?: string;
  error?: { msg: string; pos: number; lineno: number; colno: number; str: string };
};
const fixture = readFixture<{ cases: Case[] }>('json-loads');

const outcome = (text: string, constants = true): Omit<Case, 'text'> => {
  try {
    return { repr: pythonRepr(pythonJsonLoads(text, { constants })) };
  } catch (error) {
    if (!(error instanceof PythonJsonDecodeError)) throw error;
    const { msg, pos, lineno, colno, message } = error;
    return { error: { msg, pos, lineno, colno, str: message } };
  }
};

describe(`json.loads as ${fixture.source} reads ${fixture.cases.length} texts (${fixture.generator})`, () => {
  it('the same value, or the same error message, position, line and column', () => {
    const wrong = fixture.cases.filter(
      ({ text, ...expected }) => JSON.stringify(outcome(text)) !== JSON.stringify(expected),
    );
    expect(wrong).toEqual([]);
    expect(fixture.cases.filter((c) => c.error).length).toBeGreaterThan(300);
    expect(fixture.cases.filter((c) => c.repr).length).toBeGreaterThan(100);
  });

  it('positions count code points, as Python indexes text: an emoji before the error is one character', () => {
    expect(outcome('"\u{1F600}" x').error).toMatchObject({ msg: 'Extra data', pos: 4, colno: 5 });
    expect(outcome('[1,\n  2,\n  }').error?.str).toBe('Expecting value: line 3 column 3 (char 11)');
  });
});

describe('parseStrictJson: JSON.parse’s verdict, CPython’s position', () => {
  it('rejects exactly what JSON.parse rejects, NaN and Infinity included, on every fixture text', () => {
    for (const { text } of fixture.cases) {
      let accepted = true;
      try {
        JSON.parse(text);
      } catch {
        accepted = false;
      }
      expect(parseStrictJson(text).ok, JSON.stringify(text)).toBe(accepted);
      expect(outcome(text, false).repr !== undefined, JSON.stringify(text)).toBe(accepted);
    }
  });

  it('a rejected text carries CPython’s error; NaN is an error at its own position', () => {
    const result = parseStrictJson('{"a": [1, NaN]}');
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.error.message).toBe('Expecting value: line 1 column 11 (char 10)');
    expect(parseStrictJson('{"a": [1, 2]}')).toEqual({ ok: true, value: { a: [1, 2] } });
  });
});
