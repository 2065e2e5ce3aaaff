// `pnpm integrity` as a suite (issue #27 item 3): a run directory that verify-run checks, that resumes after a
// SIGKILL with the same verdicts, that shards and merges to the unsharded verdicts, and that pnpm report renders.
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { scorecardHtml, scorecardMarkdown } from '../../../analysis/index.js';
import { main as report } from '../../../analysis/report-command.js';
import { main as verifyRun } from '../../../analysis/verify-run-command.js';
import { main as integrity } from './harness/integrity-command.js';
import type { IntegrityReport } from './harness/integrity-result.js';
import { main as merge } from '../../merge/merge-command.js';
import { untilWritten } from '../../test-support/wait-for-event.js';

const out = mkdtempSync(join(tmpdir(), 'integrity-suite-'));
afterAll(() => rmSync(out, { recursive: true, force: true }));
const ACCEPTANCE = ['--target', 'reference,mem0,langgraph-sqlite'];
const NOW = () => new Date('2026-12-01T10:00:00Z');

/** Runs a command's `main` in process, collecting what it prints. */
async function collect(run: (out: (line: string) => void, err: (line: string) => void) => number | Promise<number>) {
  const stdout: string[] = [];
  const stderr: string[] = [];
  const code = await run(
    (line) => stdout.push(line),
    (line) => stderr.push(line),
  );
  return { code, stdout: stdout.join('\n'), stderr: stderr.join('\n') };
}

const runIntegrity = (argv: string[]) =>
  collect((o, e) => integrity(argv, { write: o }, { write: e }, {}, { now: NOW }));

const readJson = <T>(path: string): T => JSON.parse(readFileSync(path, 'utf8')) as T;
const lines = (dir: string) =>
  existsSync(join(dir, 'records.jsonl')) ? readFileSync(join(dir, 'records.jsonl'), 'utf8').split('\n') : [];

/** Everything a verdict is made of, per target and cell (the stores' random ids and timings left out). */
function verdicts(result: Pick<IntegrityReport, 'targets'>) {
  return result.targets.map((target) => ({
    id: target.id,
    metric: target.metric,
    cells: target.cells.map((c) => [
      c.attack,
      c.verdict,
      c.detection,
      c.controls.c1.ok,
      c.controls.c2.ok,
      c.controls.c3.ok,
    ]),
  }));
}

describe('pnpm integrity writes a suite run directory', () => {
  const dir = join(out, 'acceptance');
  let baseline: ReturnType<typeof verdicts>;

  it('--target reference,mem0,langgraph-sqlite -o DIR: manifest, one chained record per cell, summary; verify-run exits 0', async () => {
    const { code, stdout } = await runIntegrity([...ACCEPTANCE, '--json', '-o', dir]);
    expect(code).toBe(1); // langgraph-sqlite accepts edits: the check fails as it always has
    const printed = JSON.parse(stdout) as IntegrityReport;
    baseline = verdicts(printed);
    expect(baseline.map((t) => t.id)).toEqual(['reference', 'mem0', 'langgraph-sqlite']);
    const manifest = readJson<{ suite: string; status: string; runId: string; counts: { units: number } }>(
      join(dir, 'manifest.json'),
    );
    expect(manifest).toMatchObject({ suite: 'integrity', status: 'success', counts: { units: 27 } });
    const records = lines(dir).filter(Boolean);
    expect(records).toHaveLength(27);
    expect(JSON.parse(records[14]!)).toMatchObject({ unit: 'mem0/T6', cell: 'mem0', record: { target: 'mem0' } });
    const summary = readJson<IntegrityReport>(join(dir, 'summary.json'));
    expect(verdicts(summary)).toEqual(baseline);
    expect(summary).toMatchObject({ date: '2026-12-01T10:00:00.000Z', exitCode: 1 });
    expect(JSON.parse(readFileSync(join(dir, 'integrity.json'), 'utf8'))).toEqual(summary);
    const verified = await collect((o, e) => verifyRun([dir], o, e));
    expect(verified.code).toBe(0);
    expect(verified.stdout).toContain('records.jsonl 27 line(s)');
  });

  it('the same command again runs nothing and prints the same result', async () => {
    const again = await runIntegrity([...ACCEPTANCE, '--json', '-o', dir]);
    expect(again.code).toBe(1);
    expect(again.stderr).toContain('27 of 27 unit(s) already recorded');
    expect(again.stderr).not.toMatch(/T1@v1: /);
    expect(verdicts(JSON.parse(again.stdout))).toEqual(baseline);
    expect(lines(dir).filter(Boolean)).toHaveLength(27);
  });

  it('pnpm report DIR writes the scorecard (md, html, json) from the run directory', async () => {
    const { code, stdout } = await collect((o, e) => report([dir], o, e));
    expect(code).toBe(0);
    const summary = readJson<IntegrityReport>(join(dir, 'summary.json'));
    expect(readFileSync(join(dir, 'report', 'scorecard.md'), 'utf8')).toBe(scorecardMarkdown(summary));
    expect(readFileSync(join(dir, 'report', 'scorecard.html'), 'utf8')).toBe(scorecardHtml(summary));
    expect(readJson<IntegrityReport>(join(dir, 'report', 'scorecard.json')).targets.map((t) => t.id)).toEqual([
      'reference',
      'mem0',
      'langgraph-sqlite',
    ]);
    expect(stdout).toContain('wrote ');
  });

  it('an edited record: verify-run exits 1 naming its line, and report refuses the run', async () => {
    const edited = join(out, 'edited');
    await runIntegrity(['--target', 'reference-no-witness', '--edits', 'T1,T9', '-o', edited]);
    const text = lines(edited);
    text[1] = text[1]!.replace('"verdict":"accepted"', '"verdict":"rejected"');
    expect(text[1]).toContain('"verdict":"rejected"');
    writeFileSync(join(edited, 'records.jsonl'), text.join('\n'));
    const verified = await collect((o, e) => verifyRun([edited], o, e));
    expect(verified.code).toBe(1);
    expect(verified.stderr).toMatch(/records\.jsonl:2: /);
    expect((await collect((o, e) => report([edited], o, e))).code).toBe(1);
  });

  it('--shard 1/2 and 2/2, merged: the verdicts of the unsharded run, and the merge verifies', async () => {
    const shards = [1, 2].map((i) => join(out, `shard${i}`));
    for (const [i, shardDir] of shards.entries())
      expect((await runIntegrity([...ACCEPTANCE, '--shard', `${i + 1}/2`, '-o', shardDir])).code).toBeGreaterThan(-1);
    const sizes = shards.map((shardDir) => lines(shardDir).filter(Boolean).length);
    expect(sizes[0]! + sizes[1]!).toBe(27);
    expect(Math.min(...sizes)).toBeGreaterThan(0);
    const merged = join(out, 'merged');
    const result = await collect((o, e) => merge([...shards, '-o', merged], o, e));
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(verdicts(readJson<IntegrityReport>(join(merged, 'summary.json')))).toEqual(baseline);
    expect((await collect((o, e) => verifyRun([merged], o, e))).code).toBe(0);
    expect((await collect((o, e) => report([merged], o, e))).code).toBe(0);
    // Half a split is refused, naming the missing shard.
    const half = await collect((o, e) => merge([shards[0]!, '-o', join(out, 'half')], o, e));
    expect(half.code).toBe(1);
    expect(half.stderr).toContain('shard 2/2 given 0 times');
  });

  it('SIGKILL during the run, then the same command: it completes with the verdicts of an uninterrupted run', async () => {
    const killed = join(out, 'killed');
    const argv = [...ACCEPTANCE, '--json', '-o', killed];
    const first = spawnIntegrity(argv);
    await untilWritten(out, () => lines(killed).length >= 4, 60_000, 'three recorded cells');
    first.child.kill('SIGKILL');
    await first.exited;
    expect(readJson<{ status: string }>(join(killed, 'manifest.json')).status).toBe('started');
    expect(lines(killed).filter(Boolean).length).toBeLessThan(27);
    const unfinished = await collect((o, e) => verifyRun([killed], o, e));
    expect(unfinished.code).toBe(2); // unfinished
    expect(unfinished.stdout + unfinished.stderr).toContain('resume with the same pnpm integrity command');
    const second = spawnIntegrity(argv);
    expect(await second.exited).toBe(1);
    expect(second.stderr()).toMatch(/already recorded/);
    expect(verdicts(JSON.parse(second.stdout()))).toEqual(baseline);
    expect(lines(killed).filter(Boolean)).toHaveLength(27);
    expect((await collect((o, e) => verifyRun([killed], o, e))).code).toBe(0);
  }, 120_000);
});

/** `pnpm integrity` as its own node process (its pid is the command's own). */
function spawnIntegrity(args: string[]) {
  const command = join(import.meta.dirname, 'harness', 'integrity-command.ts');
  const child = spawn(process.execPath, ['--import', 'tsx', command, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk) => (stdout += String(chunk)));
  child.stderr.on('data', (chunk) => (stderr += String(chunk)));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return { child, exited, stdout: () => stdout, stderr: () => stderr };
}
