// `pnpm frontdoor` as a suite (issue #27 item 3): a run directory that verify-run checks, whose verdicts are the
// in-process grid's, that resumes after a SIGKILL with the same verdicts, that shards and merges to the unsharded
// verdicts, and that pnpm report renders.
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { renderFrontdoorHtml, renderFrontdoorMarkdown } from '../../../analysis/frontdoor/frontdoor-report.js';
import { main as report } from '../../../analysis/report-command.js';
import { main as verifyRun } from '../../../analysis/verify-run-command.js';
import { frontdoorMain } from './harness/frontdoor-command.js';
import type { FrontdoorResults } from './harness/frontdoor-results.js';
import { runFrontdoor } from './harness/run-frontdoor.js';
import { testPlan } from './harness/test-plan.js';
import { main as merge } from '../../merge/merge-command.js';
import { untilWritten } from '../../test-support/wait-for-event.js';

const out = mkdtempSync(join(tmpdir(), 'frontdoor-suite-'));
afterAll(() => rmSync(out, { recursive: true, force: true }));
const TARGETS = ['mem0', 'reference', 'reference-defended'];
const ACCEPTANCE = ['--target', TARGETS.join(',')];
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

const runFrontdoorCommand = (argv: string[]) =>
  collect((o, e) => frontdoorMain(argv, {}, { out: o, err: e }, { now: NOW }));

const readJson = <T>(path: string): T => JSON.parse(readFileSync(path, 'utf8')) as T;
const lines = (dir: string) =>
  existsSync(join(dir, 'records.jsonl')) ? readFileSync(join(dir, 'records.jsonl'), 'utf8').split('\n') : [];

/** The grid as `pnpm frontdoor` measured it before it was a suite: every target opened once, in process. */
async function inProcess(): Promise<FrontdoorResults['targets']> {
  return (await runFrontdoor(await testPlan(TARGETS))).targets;
}

describe('pnpm frontdoor writes a suite run directory', () => {
  const dir = join(out, 'acceptance');
  let baseline: FrontdoorResults['targets'];

  it('--target mem0,reference,reference-defended -o DIR: manifest, one chained record per cell, summary; verify-run exits 0', async () => {
    const { code, stdout } = await runFrontdoorCommand([...ACCEPTANCE, '--json', '-o', dir]);
    expect(code).toBe(0);
    const printed = JSON.parse(stdout) as FrontdoorResults;
    baseline = printed.targets;
    // The same rows, cells, verdicts and details as the grid before it was a suite.
    expect(baseline).toEqual(await inProcess());
    expect(baseline.map((row) => row.id)).toEqual(TARGETS);
    const manifest = readJson<{ suite: string; status: string; exitCode: number; counts: { units: number } }>(
      join(dir, 'manifest.json'),
    );
    expect(manifest).toMatchObject({ suite: 'frontdoor', status: 'success', exitCode: 0, counts: { units: 18 } });
    const records = lines(dir).filter(Boolean);
    expect(records).toHaveLength(18);
    expect(JSON.parse(records[8]!)).toMatchObject({
      unit: 'reference/retrieval_hijack',
      cell: 'reference',
      record: { target: 'reference', cell: { attack: 'retrieval_hijack@v1', verdict: 'surfaced' } },
    });
    const summary = readJson<FrontdoorResults>(join(dir, 'summary.json'));
    expect(summary).toEqual(printed);
    expect(summary.createdAt).toBe('2026-12-01T10:00:00.000Z');
    expect(readJson(join(dir, 'results.json'))).toEqual(summary);
    expect(readFileSync(join(dir, 'scorecard.md'), 'utf8')).toBe(renderFrontdoorMarkdown(summary));
    const verified = await collect((o, e) => verifyRun([dir], o, e));
    expect(verified.code).toBe(0);
    expect(verified.stdout).toContain('records.jsonl 18 line(s)');
  }, 120_000);

  it('the same command again runs nothing and prints the same result', async () => {
    const again = await runFrontdoorCommand([...ACCEPTANCE, '--json', '-o', dir]);
    expect(again.code).toBe(0);
    expect(again.stderr).toContain('18 of 18 unit(s) already recorded');
    expect(again.stderr).not.toMatch(/memory_injection@v1: /);
    expect((JSON.parse(again.stdout) as FrontdoorResults).targets).toEqual(baseline);
    expect(lines(dir).filter(Boolean)).toHaveLength(18);
    // Other flags in the same directory are refused, nothing written.
    const other = await runFrontdoorCommand([...ACCEPTANCE, '--fail-on', 'surfaced', '-o', dir]);
    expect(other.code).toBe(1);
    expect(other.stderr).toMatch(/^error: .*different frontdoor run/);
    expect(lines(dir).filter(Boolean)).toHaveLength(18);
  });

  it('pnpm report DIR writes the scorecard (md, html, json) from the run directory', async () => {
    const { code, stdout } = await collect((o, e) => report([dir], o, e));
    expect(code).toBe(0);
    const summary = readJson<FrontdoorResults>(join(dir, 'summary.json'));
    expect(readFileSync(join(dir, 'report', 'scorecard.md'), 'utf8')).toBe(renderFrontdoorMarkdown(summary));
    expect(readFileSync(join(dir, 'report', 'scorecard.html'), 'utf8')).toBe(renderFrontdoorHtml(summary));
    expect(readJson(join(dir, 'report', 'scorecard.json'))).toEqual(summary);
    expect(stdout).toContain('| reference-defended |');
    expect(stdout).toContain('wrote ');
  });

  it('an edited record: verify-run exits 1 naming its line, and report refuses the run', async () => {
    const edited = join(out, 'edited');
    await runFrontdoorCommand([
      '--target',
      'reference',
      '--attacks',
      'memory_injection,cross_session_bleed',
      '-o',
      edited,
    ]);
    const text = lines(edited);
    text[0] = text[0]!.replace('"verdict":"surfaced"', '"verdict":"kept out"');
    expect(text[0]).toContain('"verdict":"kept out"');
    writeFileSync(join(edited, 'records.jsonl'), text.join('\n'));
    const verified = await collect((o, e) => verifyRun([edited], o, e));
    expect(verified.code).toBe(1);
    expect(verified.stderr).toMatch(/records\.jsonl:1: /);
    const refused = await collect((o, e) => report([edited], o, e));
    expect(refused.code).toBe(1);
    expect(existsSync(join(edited, 'report'))).toBe(false);
  });

  it('--shard 1/2 and 2/2, merged: the verdicts of the unsharded run, and the merge verifies', async () => {
    const shards = [1, 2].map((i) => join(out, `shard${i}`));
    for (const [i, shardDir] of shards.entries())
      expect((await runFrontdoorCommand([...ACCEPTANCE, '--shard', `${i + 1}/2`, '-o', shardDir])).code).not.toBe(1);
    const sizes = shards.map((shardDir) => lines(shardDir).filter(Boolean).length);
    expect(sizes[0]! + sizes[1]!).toBe(18);
    expect(Math.min(...sizes)).toBeGreaterThan(0);
    const merged = join(out, 'merged');
    const result = await collect((o, e) => merge([...shards, '-o', merged], o, e));
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(readJson<FrontdoorResults>(join(merged, 'summary.json')).targets).toEqual(baseline);
    expect(readJson<{ exitCode: number }>(join(merged, 'manifest.json')).exitCode).toBe(0);
    expect((await collect((o, e) => verifyRun([merged], o, e))).code).toBe(0);
    expect((await collect((o, e) => report([merged], o, e))).code).toBe(0);
  }, 120_000);

  it('--dry-run prints the run directory and the cells, runs nothing', async () => {
    const dry = await runFrontdoorCommand([...ACCEPTANCE, '--limit', '4', '--dry-run', '-o', join(out, 'dry')]);
    expect(dry.code).toBe(0);
    expect(dry.stdout).toContain('4 cell(s):');
    expect(dry.stdout).toContain('  reference-defended/memory_injection');
    expect(existsSync(join(out, 'dry'))).toBe(false);
  });

  it('refuses --shard, --limit and --dry-run with --hunt, and bad values, as one line and exit 1', async () => {
    for (const argv of [
      ['--hunt', '--target', 'reference', '--shard', '1/2'],
      ['--hunt', '--target', 'reference', '--limit', '3'],
      ['--hunt', '--target', 'reference', '--dry-run'],
      ['--target', 'reference', '--shard', '3/2'],
      ['--target', 'reference', '--limit', '0'],
    ]) {
      const { code, stdout, stderr } = await runFrontdoorCommand(argv);
      expect(code, argv.join(' ')).toBe(1);
      expect(stderr.split('\n'), argv.join(' ')).toHaveLength(1);
      expect(stderr, argv.join(' ')).toMatch(/^error: --(shard|limit|dry-run)/);
      expect(stdout).toBe('');
    }
  });

  it('SIGKILL during the run, then the same command: it completes with the verdicts of an uninterrupted run', async () => {
    const killed = join(out, 'killed');
    const argv = [...ACCEPTANCE, '--json', '-o', killed];
    const first = spawnFrontdoor(argv);
    await untilWritten(out, () => lines(killed).length >= 2, 60_000, 'a recorded cell');
    first.child.kill('SIGKILL');
    await first.exited;
    expect(readJson<{ status: string }>(join(killed, 'manifest.json')).status).toBe('started');
    expect(lines(killed).filter(Boolean).length).toBeLessThan(18);
    const unfinished = await collect((o, e) => verifyRun([killed], o, e));
    expect(unfinished.code).toBe(2); // unfinished
    expect(unfinished.stdout + unfinished.stderr).toContain('resume with the same pnpm frontdoor command');
    const second = spawnFrontdoor(argv);
    expect(await second.exited).toBe(0);
    expect(second.stderr()).toMatch(/already recorded/);
    expect((JSON.parse(second.stdout()) as FrontdoorResults).targets).toEqual(baseline);
    expect(lines(killed).filter(Boolean)).toHaveLength(18);
    expect((await collect((o, e) => verifyRun([killed], o, e))).code).toBe(0);
  }, 180_000);
});

/** `pnpm frontdoor` as its own node process (its pid is the command's own). */
function spawnFrontdoor(args: string[]) {
  const command = join(import.meta.dirname, 'harness', 'frontdoor-command.ts');
  const child = spawn(process.execPath, ['--import', 'tsx', command, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk) => (stdout += String(chunk)));
  child.stderr.on('data', (chunk) => (stderr += String(chunk)));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return { child, exited, stdout: () => stdout, stderr: () => stderr };
}
