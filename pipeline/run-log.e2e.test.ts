// End-to-end: `pnpm eval` repairs a torn last line of every run-log file, and refuses a run log that does not verify.
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { main as verifyRun } from '../analysis/verify-run-command.js';
import { POLICY_SCENARIO_IDS } from '../scenarios/index.js';
import { main, specFromArgs } from './cli/cli.js';
import type { RunManifest } from './run-log/run-log.js';
import { runEvaluation } from './run/run.js';

async function runCli(args: string[]) {
  const err: string[] = [];
  vi.spyOn(console, 'log').mockImplementation(() => undefined);
  vi.spyOn(console, 'error').mockImplementation((...parts) => void err.push(parts.join(' ')));
  const code = await main(['eval', ...args], {});
  vi.restoreAllMocks();
  return { code, stderr: err.join('\n') };
}
const verify = (dir: string) =>
  verifyRun(
    [dir],
    () => undefined,
    () => undefined,
  );
const onlyRunDir = (out: string) => join(out, readdirSync(out)[0]!);
const read = (dir: string, file: string) => readFileSync(join(dir, file), 'utf8');
const lines = (dir: string, file: string) => read(dir, file).split('\n').slice(0, -1);
const tmp = () => mkdtempSync(join(tmpdir(), 'stalebench-run-log-'));
/** The registered policy scenarios: GRID has one probe per scenario and one unit per scenario and trial. */
const N = POLICY_SCENARIO_IDS.length;
const GRID = [
  '--model',
  'sim',
  '--systems',
  'graphiti',
  '--modes',
  'direct',
  '--arms',
  'none',
  '--trials',
  '2',
  '--concurrency',
  '8',
];

/** Cuts the last line of `file` mid-line (as a killed write would) and returns the bytes left of it. */
function tearLastLine(dir: string, file: string): string {
  const content = read(dir, file);
  const start = content.lastIndexOf('\n', content.length - 2) + 1;
  const kept = content.slice(start, start + Math.floor((content.length - start) / 2));
  writeFileSync(join(dir, file), content.slice(0, start) + kept);
  return kept;
}

describe('pnpm eval on a run whose last line was cut mid-write', () => {
  it.each([
    ['records.jsonl', GRID, N * 2],
    ['setup.jsonl', GRID, N],
    [
      'writeback.jsonl',
      ['--experiment', 'writeback', '--model', 'sim', '--systems', 'graphiti', '--trials', '1'],
      N * 2,
    ],
  ])(
    '%s: moves the torn line to a .torn file, re-runs its unit once, exits 0 and verifies',
    async (file, args, count) => {
      const out = tmp();
      expect((await runCli([...args, '--out', out])).code).toBe(0);
      const runDir = onlyRunDir(out);
      const summary = read(runDir, 'summary.json');
      const kept = tearLastLine(runDir, file);
      const result = await runCli([...args, '--out', out]);
      expect(result.code, result.stderr).toBe(0);
      expect(result.stderr).toContain(`${file}: moved its torn last line (line ${count}`);
      const rows = lines(runDir, file).map(
        (line) => JSON.parse(line) as { unitId?: string; system?: string; mode?: string; scenario?: string },
      );
      expect(rows).toHaveLength(count);
      expect(new Set(rows.map((r) => r.unitId ?? `${r.system}/${r.mode}/${r.scenario}`)).size).toBe(count);
      for (const other of readdirSync(runDir).filter((f) => f.endsWith('.jsonl')))
        for (const line of lines(runDir, other)) expect(() => JSON.parse(line)).not.toThrow();
      expect(read(runDir, `${file}.torn`)).toMatch(
        new RegExp(
          `^# \\S+Z ${file.replace('.', '\\.')} line ${count} \\(\\d+ bytes, no trailing newline\\): moved here`,
        ),
      );
      expect(read(runDir, `${file}.torn`)).toContain(`\n${kept}\n`);
      expect(verify(runDir)).toBe(0);
      expect(read(runDir, 'summary.json')).toBe(summary);
    },
  );
});

describe('pnpm eval refuses to extend a run log that does not verify (exit 1, nothing written)', () => {
  async function refused(edit: (runDir: string) => void, expected: RegExp) {
    const out = tmp();
    expect((await runCli([...GRID, '--out', out])).code).toBe(0);
    const runDir = onlyRunDir(out);
    edit(runDir);
    const before = readdirSync(runDir).map((f) => [f, read(runDir, f)]);
    const result = await runCli([...GRID, '--out', out]);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(expected);
    expect(readdirSync(runDir).map((f) => [f, read(runDir, f)])).toEqual(before);
  }

  it('a middle line that is not JSON is corruption, named by file and line, never skipped or moved', async () => {
    await refused((dir) => {
      const all = lines(dir, 'records.jsonl');
      all[4] = all[4]!.slice(0, 40);
      writeFileSync(join(dir, 'records.jsonl'), all.map((l) => `${l}\n`).join(''));
    }, /the run log does not verify:\n {2}records\.jsonl:5: not valid JSON/);
  });

  it('an edited record (parsedAction flipped) is named by line', async () => {
    await refused((dir) => {
      const all = lines(dir, 'records.jsonl');
      const record = JSON.parse(all[4]!);
      record.parsedAction = 'edited';
      all[4] = JSON.stringify(record);
      writeFileSync(join(dir, 'records.jsonl'), all.map((l) => `${l}\n`).join(''));
    }, /records\.jsonl:5: edited.*\n.*pnpm eval will not extend it/s);
  });

  it('a run written before the chain is unverifiable, and log files without a manifest are refused', async () => {
    await refused((dir) => {
      for (const file of ['setup.jsonl', 'records.jsonl'])
        writeFileSync(
          join(dir, file),
          lines(dir, file)
            .map((l) => `${JSON.stringify({ ...JSON.parse(l), prev: undefined })}\n`)
            .join(''),
        );
      const manifest = JSON.parse(read(dir, 'manifest.json')) as RunManifest;
      writeFileSync(join(dir, 'manifest.json'), JSON.stringify({ ...manifest, logHeads: undefined }));
    }, /written before the run log was hash-chained/);
    await refused(
      (dir) => rmSync(join(dir, 'manifest.json')),
      /records\.jsonl, setup\.jsonl exist\(s\) but manifest\.json does not/,
    );
  });
});

describe('the manifest heads', () => {
  it('are written when a run is cancelled (first Ctrl+C), so the cancelled run verifies and its resume completes it', async () => {
    const out = tmp();
    const controller = new AbortController();
    const spec = specFromArgs([...GRID, '--concurrency', '1', '--out', out], {});
    const first = await runEvaluation(
      spec,
      { apiKey: undefined },
      {
        signal: controller.signal,
        progress: {
          write: (text) =>
            void (/^\[[1-9]\d*\//.test(text) && controller.abort({ kind: 'interrupted', signal: 'SIGINT' })),
          isTTY: false,
          env: {},
        },
      },
    );
    const manifest = JSON.parse(read(first.runDir, 'manifest.json')) as RunManifest;
    expect(manifest.status).toBe('cancelled');
    expect(manifest.logHeads!['records.jsonl']!.lines).toBe(lines(first.runDir, 'records.jsonl').length);
    expect(manifest.logHeads!['records.jsonl']!.lines).toBeLessThan(N * 2);
    expect(verify(first.runDir)).toBe(0);
    const second = await runEvaluation(spec, { apiKey: undefined });
    expect(second.exitCode).toBe(0);
    expect(new Set(lines(second.runDir, 'records.jsonl').map((l) => JSON.parse(l).unitId)).size).toBe(N * 2);
    expect(verify(second.runDir)).toBe(0);
    expect(existsSync(join(second.runDir, 'records.jsonl.torn'))).toBe(false);
  });
});
