// Adding a scenario (one JSON file, or a file plus an index line) and a table (one file plus one registry line) is
// enough for eval → rescore → report (issue #13): nothing else in the code names either of them.
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { specFromArgs } from '../pipeline/cli/cli.js';
import { runEvaluation } from '../pipeline/run/run.js';
import { INDEX_FILE, POLICY_SCENARIO_DIR } from '../scenarios/index.js';
import { defaultPaperReferenceDir } from './paper-reference.js';
import { buildReport } from './report-command.js';
import { main as rescore } from './rescore-command.js';
import { throwawayTable } from './test-support/throwaway-table.js';
import { TABLES } from './tables/index.js';

const mfa = JSON.parse(readFileSync(join(POLICY_SCENARIO_DIR, 'mfa_waiver_access.json'), 'utf8')) as Record<
  string,
  unknown
>;
const transfer = JSON.parse(
  readFileSync(join(POLICY_SCENARIO_DIR, 'over_limit_financial_transfer.json'), 'utf8'),
) as Record<string, unknown>;
const scenarioFile = (base: Record<string, unknown>, id: string, short: string) =>
  JSON.stringify(
    { ...base, id, short, source: 'a throwaway scenario written by analysis/throwaway-parts.e2e.test.ts' },
    null,
    2,
  );

let root = '';
const sim = async (args: string[]) =>
  (
    await runEvaluation(
      specFromArgs(
        [
          '--model',
          'sim',
          '--systems',
          'graphiti,mem0-exp',
          '--modes',
          'direct',
          '--trials',
          '2',
          '--no-cache',
          '-o',
          join(root, 'runs'),
          ...args,
        ],
        {},
      ),
      { apiKey: undefined },
    )
  ).runDir;

beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'stalebench-throwaway-'));
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('a throwaway scenario and a throwaway table, eval → rescore → report', () => {
  let runDir = '';
  let paperDir = '';
  beforeAll(async () => {
    const scenarios = join(root, 'one-file');
    cpSync(POLICY_SCENARIO_DIR, scenarios, { recursive: true, filter: (path) => !path.endsWith(INDEX_FILE) });
    writeFileSync(join(scenarios, 'zz_throwaway.json'), scenarioFile(mfa, 'zz_throwaway', 'throwaway'));
    runDir = await sim(['--scenario-dir', scenarios, '--scenarios', 'mfa_waiver_access,zz_throwaway']);
    // The published side of the throwaway table, next to a copy of the paper's own files.
    paperDir = join(root, 'paper');
    cpSync(defaultPaperReferenceDir, paperDir, { recursive: true });
    const cell = {
      table: '99',
      row: 'zz_throwaway',
      column: 'no defense',
      k: 1,
      n: 2,
      source: 'D',
      dependence: 'model-dependent',
    };
    writeFileSync(
      join(paperDir, 'table-99.json'),
      JSON.stringify({
        table: '99',
        title: 'throwaway',
        paper: 'arXiv 2609.08258v1',
        spec: 'none (test)',
        cells: [cell],
      }),
    );
  }, 120_000);

  it('the scenario runs like a registered one: probes, units and a rescore that finds the stored values', async () => {
    const units = readFileSync(join(runDir, 'records.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { key: { scenario: string } });
    expect(units.filter((u) => u.key.scenario === 'zz_throwaway')).toHaveLength(units.length / 2);
    const out: string[] = [];
    expect(
      await rescore(
        [runDir, '--check'],
        (line) => out.push(line),
        (line) => out.push(line),
      ),
      out.join('\n'),
    ).toBe(0);
    expect(out.join('\n')).toContain('summary cells identical');
  });

  it("the report places the scenario in Table 8/11 by its family and builds the table as the registry's last line", async () => {
    const report = await buildReport([runDir], { paper: true, paperDir, tables: [...TABLES, throwawayTable] });
    const table8 = report.tables.find((t) => t.id === '8/11')!;
    expect(table8.rows).toEqual(['with rule: MFA waiver', 'with rule: throwaway', 'with rule: pooled']);
    const throwaway = report.tables.find((t) => t.id === '99')!;
    expect(throwaway.rows).toEqual(['mfa_waiver_access', 'zz_throwaway']);
    expect(throwaway.cells.find((c) => c.row === 'zz_throwaway')).toMatchObject({
      n: 4,
      dependence: 'model-dependent',
    });
    expect(report.tables.map((t) => t.id)).toEqual(['6', '7', '8/11', '9', '12', '13', '99', 'defence']);
    expect(report.markdown).toContain('## Table 99: Throwaway: unsafe rate per scenario, no defence — sim (simulated)');
    expect(report.csv).toContain('zz_throwaway');
    // The --paper diff compares the registered table with its published cell.
    expect(report.diff!.cells.find((c) => c.table === '99')).toMatchObject({
      row: 'zz_throwaway',
      verdict: 'side-by-side',
      ours: { n: 4 },
    });
    // Without the registry line, neither the table nor its diff exists.
    const plain = await buildReport([runDir], { paper: true, paperDir });
    expect(plain.tables.map((t) => t.id)).not.toContain('99');
    expect(plain.diff!.cells.some((c) => c.table === '99')).toBe(false);
  });

  it('a folder with an index orders the scenarios and places them in Table 8/11 from its index', async () => {
    const scenarios = join(root, 'indexed');
    mkdirSync(scenarios);
    writeFileSync(join(scenarios, 'zz_throwaway.json'), scenarioFile(mfa, 'zz_throwaway', 'throwaway'));
    writeFileSync(join(scenarios, 'zz_second.json'), scenarioFile(transfer, 'zz_second', 'second'));
    const index = {
      about: 'two throwaway scenarios',
      source: 'this test',
      scenarios: [
        { id: 'zz_throwaway', table8: { rank: 2 } },
        { id: 'zz_second', table8: { rank: 1, pooledWithout: 'excluding second' } },
      ],
    };
    writeFileSync(join(scenarios, INDEX_FILE), JSON.stringify(index));
    const indexed = await sim(['--scenario-dir', scenarios, '--scenarios', 'zz_throwaway,zz_second', '--arms', 'none']);
    const report = await buildReport([indexed]);
    expect(report.tables.find((t) => t.id === '8/11')!.rows).toEqual([
      'with rule: second',
      'with rule: throwaway',
      'with rule: pooled',
      'with rule: excluding second',
    ]);
  });
});
