// Acceptance (issue #27 items 1–2): a throwaway eval phase added as one folder (its EvalPhase and the experiment line
// that runs it) and their two registry lines (pipeline/suites/eval-phases.ts, pipeline/run/experiments.ts: 4 files in
// all) runs through `pnpm eval` (specFromArgs → runEvaluation) on a copy of the source tree, plans, resumes, and is
// refused a setting it refuses, with no other edit: the copy differs from this checkout in exactly those 4 files.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CommandResult, copySourceTree, type SourceCopy } from '../test-support/source-copy.js';
import { ECHO_EVAL_PHASE } from '../test-support/throwaway-parts/echo-eval-phase.js';

const ok = (result: CommandResult) => `exit ${result.code}\n${result.stderr}\n${result.stdout.slice(-2000)}`;

describe('an eval phase registered as one folder and two registry lines', () => {
  let copy: SourceCopy;
  let runDir: string;
  let args: string[];
  let first: CommandResult;

  beforeAll(async () => {
    copy = copySourceTree();
    copy.addPart(ECHO_EVAL_PHASE);
    runDir = join(copy.dir, 'runs', 'echo');
    args = [
      '--experiment',
      'echo',
      '--model',
      'sim',
      '--trials',
      '2',
      '--out',
      join(copy.dir, 'runs'),
      '--run-id',
      'echo',
      '--cache-dir',
      join(copy.dir, 'cache'),
      '-q',
    ];
    first = await copy.run('eval', args);
  }, 240_000);

  afterAll(() => copy?.remove());

  it('touches 4 files: its folder (the phase and its experiment line) and their two registry lines; nothing else', () => {
    const { added, removed, changed } = copy.differences();
    const touched = [...added, ...changed];
    expect(removed).toEqual([]);
    expect(touched.sort()).toEqual([
      'pipeline/run/experiments.ts',
      'pipeline/suites/echo/eval-phase.ts',
      'pipeline/suites/echo/experiment-line.ts',
      'pipeline/suites/eval-phases.ts',
    ]);
  });

  it('runs through pnpm eval: its units recorded in its own chained file, its summary, its manifest', () => {
    expect(first.code, ok(first)).toBe(0);
    expect(first.stdout).toContain('echo: 18 units');
    const lines = readFileSync(join(runDir, 'echo.jsonl'), 'utf8').trim().split('\n');
    // 9 policy scenarios × 2 trials, each with the sim's reply.
    expect(lines).toHaveLength(18);
    expect(lines.every((line) => JSON.parse(line).replyLength > 0)).toBe(true);
    expect(JSON.parse(readFileSync(join(runDir, 'summary.json'), 'utf8'))).toEqual({ experiment: 'echo', units: 18 });
    const manifest = JSON.parse(readFileSync(join(runDir, 'manifest.json'), 'utf8'));
    expect(manifest).toMatchObject({ status: 'success', spec: { experiment: 'echo', systems: [], modes: [] } });
    expect(manifest.components[0]).toMatchObject({ kind: 'experiment', id: 'echo' });
  });

  it('resumes: the same command again runs no unit and keeps the records and summary', async () => {
    const again = await copy.run('eval', args);
    expect(again.code, ok(again)).toBe(0);
    expect(again.stderr).toContain(`resuming ${runDir} (status was success)`);
    expect(again.stdout).toContain('echo: 18 units');
    expect(readFileSync(join(runDir, 'echo.jsonl'), 'utf8').trim().split('\n')).toHaveLength(18);
  }, 120_000);

  it('plans through --dry-run with its own plan, and names its run id by its prefix', async () => {
    const planned = await copy.run('eval', [...args, '--dry-run']);
    expect(planned.code, ok(planned)).toBe(0);
    expect(planned.stdout).toMatch(/echo\s+none\s+-\s+plain\s+18\s+18\s+0/);
    expect(planned.stdout).toContain('note: echo: one call per unit');
    const unnamed = await copy.run('eval', [
      '--experiment',
      'echo',
      '--model',
      'sim',
      '--trials',
      '1',
      '--out',
      join(copy.dir, 'runs'),
      '--cache-dir',
      join(copy.dir, 'cache'),
      '-q',
    ]);
    expect(unnamed.code, ok(unnamed)).toBe(0);
    expect(unnamed.stdout).toMatch(/run directory: .*echo_sim_[0-9a-f]{8}/);
  }, 120_000);

  it('is listed by --help with its own arms (ownArms)', async () => {
    const help = await copy.run('eval', ['--help']);
    expect(help.code, ok(help)).toBe(0);
    expect(help.stdout).toMatch(/echo\s+a throwaway experiment \(test only\)/);
    expect(help.stdout).toContain('arm plain: the only arm');
  }, 120_000);

  it('is refused what it refuses (--shard) and what its rules forbid (--systems), naming the flag, writing nothing', async () => {
    const bad = join(copy.dir, 'runs', 'bad');
    const shard = await copy.run('eval', ['--experiment', 'echo', '--model', 'sim', '--shard', '1/2', '-o', bad]);
    expect(shard.code).toBe(1);
    expect(shard.stderr).toContain('--shard: splits the grid only; --experiment echo runs as one process');
    const systems = await copy.run('eval', [
      '--experiment',
      'echo',
      '--model',
      'sim',
      '--systems',
      'graphiti',
      '-o',
      bad,
    ]);
    expect(systems.code).toBe(1);
    expect(systems.stderr).toContain('--systems: echo keeps its reasoning memory in process: no systems');
    expect(existsSync(bad)).toBe(false);
  }, 120_000);
});
