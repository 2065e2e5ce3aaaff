// Acceptance (issue #27): a suite added as one folder (its SuiteV1 file) plus one registry line runs through
// `pnpm eval --suite`, resumes, passes `pnpm verify-run` and is rendered by `pnpm report`, on a copy of the source
// tree with no other edit. Its arguments come from its zod schema as flags; bad ones are refused before anything runs.
import { cpSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main as report } from '../../analysis/report-command.js';
import { REPOSITORY } from '../test-support/branch-scan.js';
import { type CommandResult, copySourceTree, runNode, type SourceCopy } from '../test-support/source-copy.js';
import { SQUARES_SUITE } from '../test-support/throwaway-parts/squares-suite.js';

const ok = (result: CommandResult) => `exit ${result.code}\n${result.stderr}\n${result.stdout.slice(-2000)}`;

describe('a suite registered with one folder and one registry line', () => {
  let copy: SourceCopy;
  let runDir: string;
  let first: CommandResult;

  beforeAll(async () => {
    copy = copySourceTree();
    copy.addPart(SQUARES_SUITE);
    runDir = join(copy.dir, 'runs', 'squares-run');
    first = await copy.run('eval', ['--suite', 'squares', '--n', '5', '--label', 'five', '-o', runDir]);
  }, 240_000);

  afterAll(() => copy?.remove());

  it('runs through eval --suite: a run directory with manifest, chained records and summary', () => {
    expect(first.code, ok(first)).toBe(0);
    expect(first.stdout).toContain('five total 30');
    const manifest = JSON.parse(readFileSync(join(runDir, 'manifest.json'), 'utf8'));
    expect(manifest).toMatchObject({ suite: 'squares', status: 'success', spec: { args: { n: 5, label: 'five' } } });
    const records = readFileSync(join(runDir, 'records.jsonl'), 'utf8').trim().split('\n');
    expect(records.map((line) => JSON.parse(line).unit)).toEqual(['sq/0', 'sq/1', 'sq/2', 'sq/3', 'sq/4']);
    expect(JSON.parse(readFileSync(join(runDir, 'summary.json'), 'utf8'))).toEqual({
      label: 'five',
      total: 30,
      squares: [0, 1, 4, 9, 16],
    });
  });

  it('resumes: the same command again runs no unit and gives the same summary', async () => {
    const again = await copy.run('eval', ['--suite', 'squares', '--n', '5', '--label', 'five', '-o', runDir]);
    expect(again.code, ok(again)).toBe(0);
    expect(again.stderr).toContain('5 of 5 unit(s) already recorded');
    expect(readFileSync(join(runDir, 'records.jsonl'), 'utf8').trim().split('\n')).toHaveLength(5);
  }, 120_000);

  it('passes verify-run, and pnpm report renders it with the suite’s own renderer', async () => {
    const verified = await copy.run('verify-run', [runDir]);
    expect(verified.code, ok(verified)).toBe(0);
    expect(verified.stdout).toContain('intact');
    const reported = await copy.run('report', [runDir, '-o', join(copy.dir, 'report')]);
    expect(reported.code, ok(reported)).toBe(0);
    expect(reported.stdout).toContain('five total 30');
    expect(readFileSync(join(copy.dir, 'report', 'squares.md'), 'utf8')).toBe('# five\n\ntotal 30\n');
  }, 120_000);

  it('is refused by this checkout, where the suite is not registered, naming it', async () => {
    const printed: string[] = [];
    const silent = () => undefined;
    expect(await report([runDir, '-o', join(copy.dir, 'unregistered')], silent, (line) => printed.push(line))).toBe(1);
    expect(printed.join('\n')).toContain('no report is registered for suite squares');
    expect(existsSync(join(copy.dir, 'unregistered'))).toBe(false);
  });

  it('refuses to report a run of the suite whose records were edited after the fact', async () => {
    const tampered = join(copy.dir, 'runs', 'tampered');
    cpSync(runDir, tampered, { recursive: true });
    const records = join(tampered, 'records.jsonl');
    writeFileSync(records, readFileSync(records, 'utf8').replace('"square":9', '"square":10'));
    const result = await copy.run('report', [tampered, '-o', join(copy.dir, 'tampered-report')]);
    expect(result.code, ok(result)).toBe(1);
    expect(result.stderr).toContain('does not verify');
    expect(existsSync(join(copy.dir, 'tampered-report'))).toBe(false);
  }, 120_000);

  it('is offered to CI by its ci member: the stalebench action runs it, shards it, merges the shards and writes SARIF', async () => {
    const action = join(copy.dir, 'action');
    const sarifResults = (path: string) =>
      (
        JSON.parse(readFileSync(path, 'utf8')) as { runs: { results: { message: { text: string } }[] }[] }
      ).runs[0]!.results.map((result) => result.message.text);
    // A whole run through `pnpm eval --suite squares` (the suite names no command of its own).
    const whole = await copy.run('action', [
      'run',
      '--suite',
      'squares',
      '--args=--n 5 --label five',
      '--out',
      join(action, 'whole'),
      '--sarif',
      join(action, 'whole.sarif'),
    ]);
    expect(whole.code, ok(whole)).toBe(0);
    expect(whole.stderr).toContain('stalebench action: pnpm squares --n 5 --label five -o');
    expect(sarifResults(join(action, 'whole.sarif'))).toEqual(['1 squared is 1', '3 squared is 9']);
    // Two shards, then the merge job over them: the same findings, and the merged run verifies.
    for (const index of [1, 2]) {
      const shard = await copy.run('action', [
        'run',
        '--suite',
        'squares',
        '--args=--n 5 --label five',
        '--shard',
        `${index}/2`,
        '--out',
        join(action, 'shards', `s${index}`),
      ]);
      expect(shard.code, ok(shard)).toBe(0);
    }
    const merged = await copy.run('action', [
      'merge',
      '--suite',
      'squares',
      '--shards',
      join(action, 'shards'),
      '--out',
      join(action, 'merged'),
      '--sarif',
      join(action, 'merged.sarif'),
    ]);
    expect(merged.code, ok(merged)).toBe(0);
    expect(sarifResults(join(action, 'merged.sarif'))).toEqual(['1 squared is 1', '3 squared is 9']);
    expect((await copy.run('verify-run', [join(action, 'merged')])).code).toBe(0);
    // This checkout, without the suite, refuses it by name.
    const refused = await runNode(REPOSITORY, [
      '--import',
      'tsx',
      join(REPOSITORY, 'pipeline', 'ci', 'action-steps.ts'),
      'run',
      '--suite',
      'squares',
      '--out',
      join(action, 'refused'),
    ]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/--suite must be one of eval, integrity, frontdoor\b/);
  }, 240_000);

  it('touched 2 files of the source: the suite’s file (new) and the registry’s line', () => {
    const { added, removed, changed } = copy.differences();
    expect(added).toEqual(['pipeline/suites/squares/suite.ts']);
    expect(removed).toEqual([]);
    expect(changed).toEqual(['pipeline/suites/index.ts']);
  });

  it('takes the exit rule of the suite, and refuses bad arguments naming the flag, writing nothing', async () => {
    const over = await copy.run('eval', [
      '--suite',
      'squares',
      '--n',
      '5',
      '--max',
      '10',
      '-o',
      join(runDir, '..', 'max'),
    ]);
    expect(over.code, ok(over)).toBe(1);
    const bad = join(copy.dir, 'runs', 'bad');
    const refused = await copy.run('eval', ['--suite', 'squares', '--n', 'five', '-o', bad]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/--n: .*number/);
    expect(existsSync(bad)).toBe(false);
    const unknown = await copy.run('eval', ['--suite', 'squares', '--n', '2', '--width', '3', '-o', bad]);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain("Unknown option '--width'");
    expect(unknown.stderr).toContain('--n, --max, --label');
    expect(existsSync(bad)).toBe(false);
  }, 120_000);
});
