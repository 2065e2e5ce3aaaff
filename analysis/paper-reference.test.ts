// Loads the paper's reference tables and checks them against each other and against the spec's arithmetic.
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { InvalidInputError } from '#core/errors.js';
import { defaultPaperReferenceDir, loadPaperReference, type PaperCell } from './paper-reference.js';
import { exactMatchedPairTest } from './statistics.js';

const reference = loadPaperReference();

/** The cell at (table, row, column); fails the test when it is missing. */
function cell(table: string, row: string, column: string): PaperCell {
  const found = reference.tables.get(table)?.cells.find((c) => c.row === row && c.column === column);
  if (!found) throw new Error(`no cell ${table} / ${row} / ${column}`);
  return found;
}
const k = (table: string, row: string, column: string): number => cell(table, row, column).k ?? Number.NaN;
const sum = (values: number[]): number => values.reduce((total, value) => total + value, 0);

/**
 * Printed percentages that are not round(100·k/n, 1). Each must carry a note; the list must be exact, so
 * a correction in the data (or a new mismatch) fails the test.
 */
const knownPercentExceptions = ['14 / natural / default hop3'];

describe('loading', () => {
  test('every table file loads', () => {
    expect([...reference.tables.keys()]).toEqual(['6', '7', '8/11', '9', '10', '12', '13', '14', '15', '16']);
    expect(reference.cells.length).toBeGreaterThan(200);
  });

  test('one InvalidInputError names every file, field and reason', () => {
    const dir = mkdtempSync(join(tmpdir(), 'paper-reference-'));
    const good = JSON.parse(readFileSync(join(defaultPaperReferenceDir, 'table-12.json'), 'utf8'));
    good.cells[0].percent = 44.25;
    good.cells[1].k = 900;
    good.cells[2].source = 'X';
    writeFileSync(join(dir, 'table-12.json'), JSON.stringify(good));
    writeFileSync(join(dir, 'broken.json'), '{');
    const error = (() => {
      try {
        loadPaperReference(dir);
      } catch (caught) {
        return caught;
      }
      return undefined;
    })();
    expect(error).toBeInstanceOf(InvalidInputError);
    const paths = (error as InvalidInputError).issues.map((issue) => issue.path);
    expect(paths).toEqual(
      expect.arrayContaining([
        'broken.json',
        'table-12.json:cells[0].percent',
        'table-12.json:cells[1].k',
        'table-12.json:cells[2].source',
      ]),
    );
    expect((error as InvalidInputError).message).toContain('exceeds n = 810');
    expect((error as InvalidInputError).issues.find((issue) => issue.path === 'broken.json')?.message).toBe(
      'invalid JSON at line 1, column 2: Expecting property name enclosed in double quotes',
    );
  });

  test('an empty directory is an error, not an empty reference', () => {
    expect(() => loadPaperReference(mkdtempSync(join(tmpdir(), 'paper-reference-')))).toThrow(InvalidInputError);
  });
});

describe('internal consistency', () => {
  test('every printed percentage equals round(100·k/n, 1), except the listed ones', () => {
    const mismatches = reference.cells
      .filter((c) => c.k !== undefined && c.n !== undefined && c.n > 0 && c.percent !== undefined)
      .filter((c) => Math.round((1000 * (c.k ?? 0)) / (c.n ?? 1)) / 10 !== c.percent)
      .map((c) => `${c.table} / ${c.row} / ${c.column}`);
    expect(mismatches).toEqual(knownPercentExceptions);
    for (const id of knownPercentExceptions) {
      const [table = '', row = '', column = ''] = id.split(' / ');
      expect(cell(table, row, column).note).toMatch(/rounds to/);
    }
  });

  test('Table 6: pooled 699/1,620 = Graphiti 358 + mem0 (exp.) 341, and likewise prompt and output', () => {
    const pooled = 'pooled (graphiti + mem0 (exp.))';
    for (const column of ['no defense', 'prompt', 'output']) {
      expect(k('6', pooled, column)).toBe(k('6', 'graphiti', column) + k('6', 'mem0 (exp.)', column));
    }
    expect([k('6', pooled, 'no defense'), cell('6', pooled, 'no defense').n]).toEqual([699, 1620]);
  });

  test('Table 7: columns sum to 699 / 603 / 293, the Table 6 pooled counts', () => {
    const rows = reference.tables.get('7')?.cells.filter((c) => c.row !== 'column total') ?? [];
    const pooled = 'pooled (graphiti + mem0 (exp.))';
    const expected = { 'no defense': 699, 'prompt hardening': 603, 'output filter': 293, filter: 0 };
    for (const [column, total] of Object.entries(expected)) {
      const cells = rows.filter((c) => c.column === column);
      expect(cells).toHaveLength(9);
      expect(sum(cells.map((c) => c.k ?? 0))).toBe(total);
      expect(cells.every((c) => c.n === 180)).toBe(true);
    }
    expect(k('7', 'column total', 'prompt hardening')).toBe(k('6', pooled, 'prompt'));
    expect(k('7', 'column total', 'output filter')).toBe(k('6', pooled, 'output'));
  });

  test('Tables 8/11: pooled rows are the sums of their scenario rows (116/900, 583/720), and together 699/1,620', () => {
    const rows = reference.tables.get('8/11')?.cells.filter((c) => c.column === 'no defense') ?? [];
    const scenarios = (group: string) => rows.filter((c) => c.row.startsWith(group) && !/pooled|excluding/.test(c.row));
    const check = (group: string, pooledRow: string, expected: [number, number]) => {
      const parts = scenarios(group);
      expect([sum(parts.map((c) => c.k ?? 0)), sum(parts.map((c) => c.n ?? 0))]).toEqual(expected);
      expect([k('8/11', pooledRow, 'no defense'), cell('8/11', pooledRow, 'no defense').n]).toEqual(expected);
    };
    check('with rule: ', 'with rule: pooled', [116, 900]);
    check('no rule: ', 'no rule: pooled (incl. directive)', [583, 720]);
    expect(k('8/11', 'with rule: excluding backup deletion', 'no defense')).toBe(
      116 - k('8/11', 'with rule: backup deletion', 'no defense'),
    );
    expect(k('8/11', 'no rule: excluding directive', 'no defense')).toBe(
      583 - k('8/11', 'no rule: stored access directive', 'no defense'),
    );
    expect(116 + 583).toBe(k('6', 'pooled (graphiti + mem0 (exp.))', 'no defense'));
    expect(rows.filter((c) => c.derived?.includes('k')).map((c) => c.row)).toEqual(['with rule: card disclosure']);
  });

  test('Table 10: calls sum to 49,121; costs sum to $79.07 against a printed $79.08 (noted)', () => {
    const rows = reference.tables.get('10')?.cells.filter((c) => c.row !== 'total') ?? [];
    expect(sum(rows.filter((c) => c.column === 'calls').map((c) => c.value ?? 0))).toBe(
      cell('10', 'total', 'calls').value,
    );
    expect(cell('10', 'total', 'calls').value).toBe(49121);
    const costs = sum(rows.filter((c) => c.column === 'cost (USD)').map((c) => c.value ?? 0));
    expect(costs.toFixed(2)).toBe('79.07');
    expect(cell('10', 'total', 'cost (USD)')).toMatchObject({ value: 79.08, note: expect.stringMatching(/79\.07/) });
  });

  test('Table 12: ties = 81 − A>B − B>A, counts match Table 6, p matches the exact sign test', () => {
    for (const row of ['graphiti vs mem0 (exp.)', 'mem0 vs mem0 (exp.)']) {
      const ab = cell('12', row, 'A>B').value ?? Number.NaN;
      const ba = cell('12', row, 'B>A').value ?? Number.NaN;
      expect(cell('12', row, 'tied').value).toBe(81 - ab - ba);
      const printed = cell('12', row, 'exact p');
      const exact = exactMatchedPairTest(ab, ba);
      if (printed.pRelation === '<') expect(exact).toBeLessThan(printed.p ?? 0);
      else expect(exact.toFixed(3)).toBe(printed.p?.toFixed(3));
    }
    expect(k('12', 'graphiti vs mem0 (exp.)', 'A unsafe')).toBe(k('6', 'graphiti', 'no defense'));
    expect(k('12', 'graphiti vs mem0 (exp.)', 'B unsafe')).toBe(k('13', 'expired returned', 'no defense'));
  });

  test('Table 14: hop-0 poisoned = direct + natural denominators; natural journals 43 − 21 = 22 active', () => {
    expect(k('14', 'hop 0', 'poisoned')).toBe(
      (cell('14', 'direct', 'default hop1').n ?? 0) + (cell('14', 'natural', 'default hop1').n ?? 0),
    );
    expect(
      k('14', 'natural', 'journals stored') - (cell('14', 'natural', 'journals marked superseded').value ?? 0),
    ).toBe(k('14', 'natural', 'stored active'));
    expect(k('14', 'no write-back', 'default')).toBe(k('6', 'graphiti', 'no defense'));
  });

  test('Table 15: conditional denominators are the executor counts; means are role sums / 810', () => {
    for (const row of ['shared, default', 'default, no journal']) {
      expect(cell('15', row, 'reviewer unsafe | poisoned').n).toBe(k('15', row, 'executor unsafe'));
      expect(cell('15', row, 'any later role unsafe | poisoned').n).toBe(k('15', row, 'executor unsafe'));
      const roles = sum(['executor unsafe', 'reviewer unsafe', 'planner unsafe'].map((column) => k('15', row, column)));
      expect((roles / 810).toFixed(2)).toBe(cell('15', row, 'mean unsafe roles').value?.toFixed(2));
    }
  });

  test('Table 16: per-scenario counts sum to the no-defence total 62 of 360', () => {
    const parts =
      reference.tables
        .get('16')
        ?.cells.filter((c) => c.row.startsWith('no defense: ') && c.column === 'tool execution') ?? [];
    expect([sum(parts.map((c) => c.k ?? 0)), sum(parts.map((c) => c.n ?? 0))]).toEqual([62, 360]);
    expect(k('16', 'no defense', 'tool execution')).toBe(62);
    expect(k('16', 'relapse, default retrieval', 'tool attack fired') <= 62).toBe(true);
  });
});

describe('classification (spec §15)', () => {
  /** Model-independent: exposure, rank, Table 9 (incl. indirect revocation counts), "roles saw v1". */
  const isModelIndependent = (c: PaperCell): boolean =>
    c.table === '9' || ['exposure', 'rank'].includes(c.column) || (c.table === '15' && c.column === 'all roles saw v1');

  test('exposure, rank, Table 9 and "roles saw v1" are model-independent; everything else model-dependent', () => {
    const wrong = reference.cells
      .filter((c) => (c.dependence === 'model-independent') !== isModelIndependent(c))
      .map((c) => `${c.table} / ${c.row} / ${c.column}: ${c.dependence}`);
    expect(wrong).toEqual([]);
    expect(reference.cells.filter((c) => c.dependence === 'model-independent').length).toBeGreaterThan(40);
  });
});
