// repr()/str() and json.dumps against CPython's own outputs (data/fixtures/python-compat/repr.json).
import { describe, expect, it } from 'vitest';
import { pythonJsonDumps } from './python-json-dumps.js';
import { pythonJsonLoads } from './python-json.js';
import {
  compareCodePoints,
  pythonFloatRepr,
  pythonRepr,
  pythonSortedListRepr,
  pythonStr,
  pythonStringRepr,
} from './python-repr.js';
import { doubleFromBits, fromCodePoints, readFixture } from './test-support/cpython-fixture.js';

type Range = [number, number];
const fixture = readFixture<{
  floats: { bits: string; repr: string }[];
  ints: { text: string; repr: string }[];
  strings: { codePoints: number[]; repr: string; dumps: string }[];
  jsonValues: { text: string; repr: string; str: string; dumps: string; dumpsSorted: string }[];
  nonPrintable: Range[];
  unassigned: Range[];
}>('repr');
const inRanges = (ranges: readonly Range[], code: number) => ranges.some(([low, high]) => code >= low && code <= high);

describe(`repr and str as ${fixture.source} prints them (${fixture.generator})`, () => {
  it(`repr(float) for ${fixture.floats.length} doubles: shortest digits, .0, exponent form, nan, inf, -0.0`, () => {
    const wrong = fixture.floats.filter(({ bits, repr }) => pythonFloatRepr(doubleFromBits(bits)) !== repr);
    expect(wrong).toEqual([]);
    expect(fixture.floats.length).toBeGreaterThan(500);
  });

  it('repr(int) keeps every digit', () => {
    for (const { text, repr } of fixture.ints) expect(pythonRepr(BigInt(text))).toBe(repr);
  });

  it(`repr(str) for ${fixture.strings.length} texts: quote choice, escapes, non-printable characters, lone surrogates`, () => {
    const wrong = fixture.strings.filter(
      ({ codePoints, repr }) => pythonStringRepr(fromCodePoints(codePoints)) !== repr,
    );
    expect(wrong).toEqual([]);
  });

  it('escapes exactly the code points str.isprintable() rejects, except ones CPython’s older Unicode leaves unassigned', () => {
    const disagreements: number[] = [];
    for (let code = 0; code < 0x110000; code += 1) {
      const escaped = pythonStringRepr(String.fromCodePoint(code)).startsWith("'\\") && code !== 0x27 && code !== 0x5c;
      if (escaped !== inRanges(fixture.nonPrintable, code)) disagreements.push(code);
    }
    // Node's tables are newer: a character assigned since (printable here) is unassigned (escaped) in CPython 3.11.
    expect(
      disagreements.filter((code) => !inRanges(fixture.unassigned, code) || !inRanges(fixture.nonPrintable, code)),
    ).toEqual([]);
  });

  it('repr and str of what json.loads builds (int vs float, dict order, nested containers)', () => {
    for (const { text, repr, str } of fixture.jsonValues) {
      const value = pythonJsonLoads(text);
      expect([pythonRepr(value), pythonStr(value)], text).toEqual([repr, str]);
    }
  });

  it('sorted() orders by code point: U+FFFF before an emoji, where UTF-16 order puts it after', () => {
    expect(pythonSortedListRepr(['\u{1F600}', '\uffff', 'a'])).toBe(`['a', '\\uffff', '\u{1F600}']`);
    expect(['\u{1F600}', '\uffff'].sort()).toEqual(['\u{1F600}', '\uffff']);
    expect(compareCodePoints('ab', 'a')).toBeGreaterThan(0);
  });
});

describe(`json.dumps(value, ensure_ascii=False) as ${fixture.source} writes it`, () => {
  it('strings: control characters escaped, everything else (lone surrogates too) kept', () => {
    for (const { codePoints, dumps } of fixture.strings)
      expect(pythonJsonDumps(fromCodePoints(codePoints))).toBe(dumps);
  });

  it('values, in insertion order and with sort_keys=True', () => {
    for (const { text, dumps, dumpsSorted } of fixture.jsonValues) {
      const value = pythonJsonLoads(text);
      expect([pythonJsonDumps(value), pythonJsonDumps(value, { sortKeys: true })], text).toEqual([dumps, dumpsSorted]);
    }
  });
});
