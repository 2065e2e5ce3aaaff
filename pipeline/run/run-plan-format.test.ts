// The `--dry-run` plan table: every row's columns line up under the header, whatever the cells' widths (issue #26).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { main } from '../cli/cli.js';
import { formatPlan, type PlanRow } from './run-plan.js';

const HEADER = ['experiment', 'system', 'mode', 'arm', 'units', 'done', 'calls', 'cached'];
/** Counts are right-aligned under their title; every other column starts where its title starts. */
const RIGHT = new Set(['units', 'done']);

/** The cells of one table line with their offsets: runs of text split by two or more spaces. */
const cellsOf = (line: string) =>
  [...line.matchAll(/\S+(?: \S+)*/g)].map((m) => ({ text: m[0], start: m.index, end: m.index + m[0].length }));

/** The plan table's lines (header first), from the header to the blank line after the rows. */
function tableLines(plan: string): string[] {
  const lines = plan.split('\n');
  const start = lines.findIndex((line) => line.startsWith('experiment '));
  expect(start, plan).toBeGreaterThanOrEqual(0);
  const end = lines.indexOf('', start);
  return lines.slice(start, end);
}

/** Every row has one cell per column, each at its title's start (left) or end (right-aligned counts). */
function expectAligned(plan: string, rows: number): void {
  const [header, ...body] = tableLines(plan);
  const columns = cellsOf(header!);
  expect(columns.map((c) => c.text)).toEqual(HEADER);
  expect(body).toHaveLength(rows);
  for (const line of body) {
    const cells = cellsOf(line);
    expect(cells, line).toHaveLength(columns.length);
    cells.forEach((cell, i) => {
      const column = columns[i]!;
      if (RIGHT.has(column.text)) expect(cell.end, `${column.text} in "${line}"`).toBe(column.end);
      else expect(cell.start, `${column.text} in "${line}"`).toBe(column.start);
    });
  }
}

const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

/** `pnpm eval ... --dry-run` in a temporary output and cache directory; its standard output. */
async function dryRun(args: string[]): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), 'stalebench-plan-format-'));
  dirs.push(dir);
  const out: string[] = [];
  vi.spyOn(console, 'log').mockImplementation((...parts) => void out.push(parts.join(' ')));
  vi.spyOn(console, 'error').mockImplementation(() => undefined);
  try {
    const code = await main(
      ['eval', ...args, '--out', join(dir, 'runs'), '--cache-dir', join(dir, 'cache'), '--dry-run'],
      {},
    );
    expect(code).toBe(0);
  } finally {
    vi.restoreAllMocks();
  }
  return out.join('\n');
}

describe('the dry-run plan table', () => {
  it('aligns every column of the forged-reasoning plan (experiment and arm cells wider than the old fixed widths)', async () => {
    const plan = await dryRun(['--model', 'sim', '--experiment', 'forged-reasoning']);
    expect(plan).toContain('attacker: mutation-engine');
    expectAligned(plan, 5);
  });

  it('aligns every column of the grid plan', async () => {
    const plan = await dryRun(['--model', 'sim', '--systems', 'graphiti,mem0-exp', '--modes', 'direct']);
    expectAligned(plan, tableLines(plan).length - 1);
    expect(tableLines(plan).length).toBeGreaterThan(2);
  });

  it('sizes each column from its widest cell, so any row lines up', () => {
    const row = (over: Partial<PlanRow>): PlanRow => ({
      experiment: 'grid',
      system: 'mem0',
      mode: 'direct',
      arm: 'none',
      units: 9,
      done: 0,
      calls: { min: 9, max: 9 },
      cached: 0,
      ...over,
    });
    const plan = formatPlan({
      rows: [
        row({}),
        row({
          experiment: 'a-very-long-experiment-id',
          system: 'a-very-long-system-id',
          mode: 'natural',
          arm: 'an arm label longer than eighteen characters',
          units: 1_234_567,
          done: 123_456,
          calls: { min: 1_000_000, max: 12_000_000 },
          cached: null,
        }),
      ],
      models: [],
      notes: [],
    });
    expectAligned(plan, 2);
  });
});
