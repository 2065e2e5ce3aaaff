// Issue #26 item 13: what a newcomer's first `pnpm eval` prints — probe lines behind --verbose, a table that fits 120
// columns with its notes under it, the report command at the end — and `pnpm report` with no run directory.
import { mkdtempSync, readFileSync, rmSync, utimesSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { POLICY_SCENARIO_IDS } from '../scenarios/index.js';
import { main as report } from '../analysis/report-command.js';
import type { SummaryCell } from '../analysis/grid/summarize.js';
import { runEvalCli } from './test-support/eval-cli.js';
import { parsePrintedTable } from './test-support/terminal-table.js';

const dirs: string[] = [];
const tmp = () => {
  const dir = mkdtempSync(join(tmpdir(), 'stalebench-first-run-'));
  dirs.push(dir);
  return dir;
};
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

// zep-ce cannot express direct mode (n/a): the grid has ok probes and an n/a pair.
const SMALL = [
  '--model',
  'sim',
  '--systems',
  'graphiti,zep-ce',
  '--modes',
  'direct',
  '--arms',
  'none',
  '--trials',
  '1',
];
const setupLines = (stderr: string) => stderr.split('\n').filter((line) => line.startsWith('setup '));

describe('the console of pnpm eval', () => {
  it('prints no setup line without --verbose, with -q neither; --verbose prints one per probe', async () => {
    const plain = await runEvalCli([...SMALL, '--out', tmp()], {});
    expect(plain.code, plain.stderr).toBe(0);
    expect(setupLines(plain.stderr)).toEqual([]);
    const quiet = await runEvalCli([...SMALL, '--out', tmp(), '-q'], {});
    expect(quiet.code, quiet.stderr).toBe(0);
    expect(setupLines(quiet.stderr)).toEqual([]);
    const verbose = await runEvalCli([...SMALL, '--out', tmp(), '--verbose'], {});
    expect(verbose.code, verbose.stderr).toBe(0);
    const lines = setupLines(verbose.stderr);
    expect(lines.filter((line) => line.startsWith('setup graphiti/direct/'))).toHaveLength(POLICY_SCENARIO_IDS.length);
    expect(lines.filter((line) => line.startsWith('setup zep-ce/direct: n/a ('))).toHaveLength(1);
    expect(lines).toHaveLength(POLICY_SCENARIO_IDS.length + 1);
  });

  it('prints a table that fits 120 columns, notes under it, on the default grid and on six arms × guard × PoEM', async () => {
    const defaultGrid = await runEvalCli(['--model', 'sim', '--trials', '1', '--out', tmp(), '-q'], {});
    const wide = ['--arms', 'none,store-filter,prompt-hardening,filter-hardening,output-filter,guard'];
    const axes = [
      ...wide,
      '--guard',
      'off,on',
      '--poem',
      'off,on',
      '--systems',
      'graphiti,zep-ce',
      '--modes',
      'direct',
    ];
    const everyAxis = await runEvalCli(['--model', 'sim', '--trials', '1', ...axes, '--out', tmp(), '-q'], {});
    for (const run of [defaultGrid, everyAxis]) {
      expect(run.code, run.stderr).toBe(0);
      const printed = run.stdout.split('\n').filter((line) => !/^(run directory|report): /.test(line));
      expect(printed.filter((line) => line.length > 120)).toEqual([]);
      const summary = JSON.parse(
        readFileSync(join(/^run directory: (.+)$/m.exec(run.stdout)![1]!, 'summary.json'), 'utf8'),
      );
      const { header, rows } = parsePrintedTable(run.stdout);
      expect(header).not.toContain('note');
      expect(rows.map((row) => [row.model, row.cells.system, row.cells.mode, row.cells.defence])).toEqual(
        summary.cells.map((cell: SummaryCell) => [cell.modelLabel, cell.system, cell.mode, cell.defence]),
      );
      // zep-ce cannot write a pre-revoked fact: its direct rows say n/a, and the reason is a note under the table.
      const notes = run.stdout.slice(run.stdout.indexOf('\nnotes:\n'));
      expect(notes).toMatch(/\n {2}Zep CE's API cannot write a pre-revoked fact .* — zep-ce direct\n/);
      expect(
        rows
          .filter((row) => row.cells.system === 'zep-ce' && row.cells.mode === 'direct')
          .map((row) => row.cells.exposure),
      ).toEqual(
        summary.cells
          .filter((cell: SummaryCell) => cell.system === 'zep-ce' && cell.mode === 'direct')
          .map(() => 'n/a'),
      );
      expect(rows.some((row) => Object.values(row.cells).some((text) => text.includes('Zep CE')))).toBe(false);
    }
  });

  it('ends by naming the report command of its run, which reports that run', async () => {
    const out = tmp();
    const run = await runEvalCli([...SMALL, '--out', out, '-q'], {});
    expect(run.code, run.stderr).toBe(0);
    const runDir = /^run directory: (.+)$/m.exec(run.stdout)![1]!;
    const last = run.stdout.trim().split('\n').at(-1)!;
    expect(last).toBe(`report: pnpm report ${runDir}`);
    const printed: string[] = [];
    expect(await report([runDir], (line) => printed.push(line), vi.fn())).toBe(0);
    expect(printed.at(-1)).toContain(join(runDir, 'report', 'tables.md'));
  });
});

describe('pnpm report with no run directory', () => {
  it('reports the run whose manifest was written last under the output root, saying which', async () => {
    const out = tmp();
    const older = await runEvalCli([...SMALL, '--out', out, '-q'], {});
    const newer = await runEvalCli([...SMALL, '--out', out, '-q', '--seed', '1'], {});
    const dirOf = (stdout: string) => /^run directory: (.+)$/m.exec(stdout)![1]!;
    const [olderDir, newerDir] = [dirOf(older.stdout), dirOf(newer.stdout)];
    expect(olderDir).not.toBe(newerDir);
    for (const [dir, time] of [
      [newerDir, new Date('2026-01-01T00:00:00Z')],
      [olderDir, new Date('2026-01-02T00:00:00Z')],
    ] as const)
      utimesSync(join(dir, 'manifest.json'), time, time);
    const printed: string[] = [];
    const said: string[] = [];
    const code = await report(
      ['--runs', out],
      (line) => printed.push(line),
      (line) => said.push(line),
    );
    expect(code, said.join('\n')).toBe(0);
    expect(said).toContain(`reporting the latest run: ${olderDir}`);
    expect(printed.at(-1)).toContain(join(olderDir, 'report', 'tables.md'));
  });

  it('says there is no run, in one line, when the output root is missing or holds none', async () => {
    const empty = tmp();
    for (const [root, reason] of [
      [join(empty, 'missing'), 'does not exist'],
      [empty, 'has a manifest.json'],
    ] as const) {
      const said: string[] = [];
      expect(await report(['--runs', root], vi.fn(), (line) => said.push(line))).toBe(1);
      expect(said).toHaveLength(1);
      expect(said[0]).toMatch(new RegExp(`^error: no run to report: .*${reason}`));
    }
  });
});
