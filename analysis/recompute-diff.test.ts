import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { describeDifference, firstDifference, numberedJsonLines, rowLabel } from './recompute-diff.js';

describe('firstDifference', () => {
  it('finds the first differing path, depth first in stored key order; absent fields equal undefined ones', () => {
    expect(firstDifference({ a: 1, b: { c: [1, 2] } }, { a: 1, b: { c: [1, 3] } }, '')).toEqual({
      field: 'b.c[1]',
      stored: 2,
      recomputed: 3,
    });
    expect(firstDifference({ a: [1] }, { a: [1, 2] }, 'x')).toEqual({
      field: 'x.a[1]',
      stored: undefined,
      recomputed: 2,
    });
    expect(firstDifference({ a: 1, z: undefined }, { a: 1 }, '')).toBeNull();
    expect(firstDifference({ a: 1 }, { a: 1, poem: { verdict: 'allowed' } }, '')).toEqual({
      field: 'poem',
      stored: undefined,
      recomputed: { verdict: 'allowed' },
    });
    expect(firstDifference(null, false, 'scores.unsafe')).toEqual({
      field: 'scores.unsafe',
      stored: null,
      recomputed: false,
    });
  });

  it('describes a difference on one line, with long values cut', () => {
    expect(
      describeDifference({
        file: 'records.jsonl',
        line: 4,
        record: 'u',
        field: 'parsedAction',
        stored: 'A',
        recomputed: 'B',
      }),
    ).toBe('records.jsonl:4 (u) parsedAction: stored "A", recomputed "B"');
    expect(
      describeDifference({
        file: 'summary.json',
        line: null,
        record: 'c',
        field: 'x',
        stored: undefined,
        recomputed: 'y'.repeat(300),
      }),
    ).toMatch(/^summary\.json \(c\) x: stored \(absent\), recomputed "y+\.\.\.$/);
  });
});

describe('numberedJsonLines', () => {
  it('numbers rows by their line, skipping blank lines and a torn last line', () => {
    const path = join(mkdtempSync(join(tmpdir(), 'stalebench-lines-')), 'records.jsonl');
    writeFileSync(path, '{"a":1}\n\n{"a":2}\n{"a":');
    expect(numberedJsonLines(path)).toEqual([
      { line: 1, row: { a: 1 } },
      { line: 3, row: { a: 2 } },
    ]);
  });
});

describe('rowLabel', () => {
  it('names a cell by model, system, mode, arm, axes and scenario', () => {
    expect(
      rowLabel({
        model: 'sim',
        modelLabel: 'sim (simulated)',
        system: 'graphiti',
        mode: 'direct',
        arm: 'none',
        guard: 'on',
        poem: 'off',
        scenario: '*',
      }),
    ).toBe('sim/graphiti/direct/none/+guard/*');
  });
});
