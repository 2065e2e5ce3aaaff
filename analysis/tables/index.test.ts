// The table registry: every table file registered once, the diff's ids derived from it, and the assembly's order.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, expectTypeOf, it } from 'vitest';
import type { LoadedRun } from '../load-run.js';
import type { PaperTable } from '../paper-table.js';
import { defaultPaperReferenceDir, loadPaperReference } from '../paper-reference.js';
import { buildTables } from '../grid/paper-tables.js';
import { defineTable, paperTableIds, TABLES, type PaperTableId, type TableDefinition } from './index.js';

describe('the table registry', () => {
  it('registers every table file exactly once, with one import and one line', () => {
    const index = readFileSync(join(import.meta.dirname, 'index.ts'), 'utf8');
    const files = readdirSync(import.meta.dirname).filter((file) => /^table-\d[\d-]*\.ts$/.test(file));
    expect(files.length).toBeGreaterThan(0);
    for (const file of files) {
      const source = readFileSync(join(import.meta.dirname, file), 'utf8');
      const [, name] = /export const (\w+) = defineTable\(/.exec(source) ?? [];
      expect(name, `${file} exports no defineTable(...)`).toBeDefined();
      expect(index, `${file} is not imported by the registry`).toContain(
        `import { ${name} } from './${file.replace(/\.ts$/, '.js')}';`,
      );
      expect(index.match(new RegExp(`^  ${name},$`, 'gm')), `${name} is not registered exactly once`).toHaveLength(1);
    }
  });

  it('--paper compares exactly the paper tables the registry builds: every published table but Table 10 (calls and cost, spec §15)', () => {
    const published = [...loadPaperReference().tables.keys()];
    const poem = [...loadPaperReference(join(defaultPaperReferenceDir, 'poem')).tables.keys()];
    expect(paperTableIds()).toEqual([
      ...published.filter((id) => id !== '10'),
      ...['poem-I', 'poem-II', 'poem-III', 'poem-benign'],
    ]);
    expect(poem.sort()).toEqual(['poem-I', 'poem-II', 'poem-III', 'poem-benign']);
    expect(TABLES.filter((definition) => !definition.paper).map((definition) => definition.id)).toEqual([
      'defence',
      'defence',
      'poem-IV',
      'poem-V',
    ]);
  });

  it('PaperTableId is the union of the registered ids (type-checked: a typo in a table id does not compile)', () => {
    // Derived from the registry and never widened to string; the ids themselves are pinned at run time just below (a
    // type that listed them made every added table fail tsc: issue #27, a table is one file plus one registry line).
    expectTypeOf<PaperTableId>().toEqualTypeOf<(typeof TABLES)[number]['id']>();
    expectTypeOf<string>().not.toExtend<PaperTableId>();
    // @ts-expect-error a typo in a table id does not compile
    const typo: PaperTableId = 'table-6';
    expect(typo).toBe('table-6');
    expectTypeOf<
      | '6'
      | '7'
      | '8/11'
      | '9'
      | '12'
      | '13'
      | '14'
      | '15'
      | '16'
      | 'defence'
      | 'poem-I'
      | 'poem-II'
      | 'poem-III'
      | 'poem-benign'
      | 'poem-IV'
      | 'poem-V'
    >().toExtend<PaperTableId>();
    expect(TABLES.map((definition) => definition.id)).toEqual([
      '6',
      '7',
      '8/11',
      '9',
      '12',
      '13',
      '14',
      '15',
      '16',
      'defence',
      'defence',
      'poem-I',
      'poem-II',
      'poem-III',
      'poem-benign',
      'poem-IV',
      'poem-V',
    ]);
  });

  it('a registered table (one definition, one line) joins the built tables and the --paper ids', () => {
    const extra = defineTable({
      id: '99',
      paper: true,
      scope: 'grid',
      perModelGroup: true,
      build: () => fakeTable('99'),
    });
    expect(paperTableIds([...TABLES, extra])).toContain('99');
    expect(paperTableIds()).not.toContain('99');
  });
});

const fakeTable = (id: string, note = ''): PaperTable => ({
  id,
  title: id,
  rows: ['r'],
  columns: ['c'],
  cells: [{ row: 'r', column: 'c', value: 1, dependence: 'model-independent', status: 'ok' }],
  simulated: false,
  runs: [],
  notes: note ? [note] : [],
});
const fakeRun = (simulated: boolean[]): LoadedRun =>
  ({
    runDir: '/r',
    manifest: { models: simulated.map((s, i) => ({ id: `m${i}`, label: `m${i}`, simulated: s })) },
    probes: new Map(),
    records: new Map(),
  }) as unknown as LoadedRun;

describe('buildTables: the order and the model groups come from the registry', () => {
  const calls: string[] = [];
  const grid = (id: string, perModelGroup = true): TableDefinition =>
    defineTable({
      id,
      paper: true,
      scope: 'grid',
      perModelGroup,
      build: (_inputs, group) => {
        calls.push(`${id}:${group ?? 'all'}`);
        return fakeTable(id, group ?? '');
      },
    });
  const registry: TableDefinition[] = [
    defineTable({ id: 'own', paper: false, scope: 'own', build: () => [fakeTable('own')] }),
    grid('a'),
    defineTable({
      id: 'f',
      paper: true,
      scope: 'follow-up',
      experiment: 'tools',
      build: (inputs, group) => fakeTable(`f:${inputs.length}:${group ?? 'all'}`),
    }),
    grid('once', false),
    grid('b'),
    defineTable({
      id: 'empty',
      paper: true,
      scope: 'grid',
      perModelGroup: true,
      build: () => ({ ...fakeTable('empty'), cells: [] }),
    }),
  ];

  it('grid tables model group by model group (a model-independent one once), then follow-ups, then own tables; empty ones left out', () => {
    calls.length = 0;
    const followUp = {
      runId: 'x',
      simulated: false,
      summary: { experiment: 'tools' as const, simulated: false, tools: [] },
    };
    const tables = buildTables({ grid: [fakeRun([false, true])], scenarios: [], followUps: [followUp] }, registry);
    expect(tables.map((t) => t.id)).toEqual(['a', 'once', 'b', 'a', 'b', 'f:1:all', 'own']);
    expect(calls).toEqual(['a:real', 'once:all', 'b:real', 'a:sim', 'b:sim']);
    expect(tables[0]!.notes[0]).toMatch(/^Real decision models only/);
    expect(tables[1]!.notes).toEqual([]);
  });

  it('one group builds each grid table once over all models, unmarked; no grid run builds no grid table', () => {
    expect(
      buildTables({ grid: [fakeRun([false])], scenarios: [], followUps: [] }, registry).map((t) => [
        t.id,
        t.notes.join(),
      ]),
    ).toEqual([
      ['a', ''],
      ['once', ''],
      ['b', ''],
      ['own', ''],
    ]);
    expect(buildTables({ grid: [], scenarios: [], followUps: [] }, registry).map((t) => t.id)).toEqual(['own']);
  });
});
