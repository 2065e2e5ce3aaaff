// Python re.search semantics for the exploit chain's shell patterns (data/fixtures/python-compat/regex.json).
import { describe, expect, it } from 'vitest';
import { compilePythonPattern } from './python-regex.js';
import { readFixture } from './test-support/cpython-fixture.js';

const fixture = readFixture<{ patterns: string[]; cases: { command: string; lowered: string; matches: number[] }[] }>(
  'regex',
);

describe(`re.search as ${fixture.source} matches (${fixture.generator})`, () => {
  const compiled = fixture.patterns.map(compilePythonPattern);

  it(`${fixture.patterns.length} patterns × ${fixture.cases.length} lowered commands: the same matches (Unicode \\b and \\s, '.', '$')`, () => {
    const wrong = fixture.cases.filter(
      ({ lowered, matches }) =>
        JSON.stringify(compiled.flatMap((regex, index) => (regex.test(lowered) ? [index] : []))) !==
        JSON.stringify(matches),
    );
    expect(wrong).toEqual([]);
  });

  it('str.lower() and toLowerCase agree on every command (so the classifier may lower in JavaScript)', () => {
    expect(fixture.cases.filter(({ command, lowered }) => command.toLowerCase() !== lowered)).toEqual([]);
  });

  it("the reference's `\\'` (an escaped quote Python reads as a quote) compiles", () => {
    expect(compilePythonPattern(String.raw`\beval\s+["\']`).test("eval 'x'")).toBe(true);
    expect(compilePythonPattern(String.raw`\benv\b\s*$`).test('env\n')).toBe(true);
    expect(compilePythonPattern('a$').test('a\nb')).toBe(false);
  });
});
