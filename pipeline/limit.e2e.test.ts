// Issue #26 item 9, end to end on the simulator: `--limit N` runs at most N units, every cell gets units, the same
// command resumes the same set, `--shard` splits it, another limit is refused, and every surface says `limited`.
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { evalPhaseOf } from './suites/eval-phases.js';
import { buildReport } from '../analysis/report-command.js';
import type { Summary } from '../analysis/grid/summarize.js';
import { specFromArgs } from './cli/cli.js';
import type { RunManifest, UnitRecord } from './run-log/run-log.js';
import { defaultRunId } from './run/run-spec.js';
import { runEvalCli } from './test-support/eval-cli.js';
import { merge, runShardProcesses } from './test-support/shard-runs.js';

const root = mkdtempSync(join(tmpdir(), 'stalebench-limit-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

const GRID = [
  '--model',
  'sim',
  '--systems',
  'graphiti,mem0-exp',
  '--modes',
  'direct',
  '--arms',
  'none,store-filter,output-filter',
  '--trials',
  '2',
  '--no-cache',
  '--quiet',
];
/** Units of GRID without a limit: 2 systems × 3 arms × 9 scenarios × 2 trials. */
const ALL = 2 * 3 * 9 * 2;
const json = <T>(path: string) => JSON.parse(readFileSync(path, 'utf8')) as T;
const recordsOf = (runDir: string, file = 'records.jsonl') =>
  readFileSync(join(runDir, file), 'utf8')
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as UnitRecord);

describe('--limit N', () => {
  const out = join(root, 'runs');
  const runDir = join(out, 'lim');
  const args = [...GRID, '--limit', '8', '--out', out, '--run-id', 'lim'];

  it('the dry run plans the limited set and says so', async () => {
    const plan = await runEvalCli([...args, '--dry-run'], {});
    expect(plan.code, plan.stderr).toBe(0);
    expect(plan.stdout).toContain(`limited: 8 of ${ALL} units (--limit 8`);
    const rows = plan.stdout.split('\n').filter((line) => line.startsWith('grid '));
    expect(rows.reduce((sum, line) => sum + Number(line.split(/\s+/)[4]), 0)).toBe(8);
    expect(existsSync(out)).toBe(false);
  }, 60_000);

  it('runs 8 units, every one of the 6 cells gets units, and manifest, summary, table and log say limited', async () => {
    const result = await runEvalCli(args, {});
    expect(result.code, result.stderr).toBe(0);
    const records = recordsOf(runDir);
    expect(records).toHaveLength(8);
    expect(new Set(records.map((r) => `${r.key.system}/${r.key.arm}`)).size).toBe(6);
    // The output filter reuses the none reply: its kept units sent nothing of their own.
    for (const record of records.filter((r) => r.key.arm === 'output-filter')) expect(record.reply?.attempts).toBe(0);
    const mark = { limit: 8, units: 8, of: ALL };
    const manifest = json<RunManifest>(join(runDir, 'manifest.json'));
    expect(manifest.limited).toEqual(mark);
    expect(manifest.spec.limit).toBe(8);
    expect(manifest.counts?.units).toBe(8);
    expect(json<Summary>(join(runDir, 'summary.json')).limited).toEqual(mark);
    expect(result.stdout).toContain(`limited: 8 of ${ALL} units (--limit 8`);
    expect(result.stderr).toContain(`limited: 8 of ${ALL} units (--limit 8`);
  }, 60_000);

  it('the same command resumes the same limited set: nothing new runs', async () => {
    const before = readFileSync(join(runDir, 'records.jsonl'), 'utf8');
    const again = await runEvalCli(args, {});
    expect(again.code, again.stderr).toBe(0);
    expect(readFileSync(join(runDir, 'records.jsonl'), 'utf8')).toBe(before);
  }, 60_000);

  it('the same run directory without --limit, or with another, is refused as a different run, naming the limits', async () => {
    const unlimited = await runEvalCli([...GRID, '--out', out, '--run-id', 'lim'], {});
    expect(unlimited.code).toBe(1);
    expect(unlimited.stderr).toMatch(/holds a different run .*its --limit 8, yours none/);
    const other = await runEvalCli([...GRID, '--limit', '9', '--out', out, '--run-id', 'lim'], {});
    expect(other.code).toBe(1);
    expect(other.stderr).toMatch(/its --limit 8, yours 9/);
    expect(recordsOf(runDir)).toHaveLength(8);
  }, 60_000);

  it('is part of the run id; a run without --limit keeps the id it had', () => {
    const spec = (extra: string[]) => specFromArgs([...GRID, ...extra], {});
    const runId = (extra: string[]) => defaultRunId(spec(extra), evalPhaseOf('grid'));
    expect(runId(['--limit', '8'])).not.toBe(runId([]));
    expect(runId(['--limit', '8'])).not.toBe(runId(['--limit', '9']));
    expect(JSON.stringify(spec([]))).not.toContain('"limit"');
  });

  it('every table of a report from a limited run carries the limited caveat', async () => {
    const report = await buildReport([runDir]);
    expect(report.caveats.join('\n')).toContain(`run lim is limited: 8 of ${ALL} units`);
    expect(report.markdown).toContain('limited: 8 of');
  }, 60_000);

  it('--shard splits the same limited set; the merged shards equal the unsharded run', async () => {
    const shardOut = join(root, 'shards');
    const dirs = await runShardProcesses([...GRID, '--limit', '8', '--run-id', 'lim'], shardOut, 2);
    const ids = (dir: string) => recordsOf(dir).map((r) => r.unitId);
    expect([...ids(dirs[0]!), ...ids(dirs[1]!)].sort()).toEqual(ids(runDir).sort());
    const merged = merge(dirs, join(root, 'merged'));
    expect(merged.code, merged.stderr).toBe(0);
    expect(
      recordsOf(join(root, 'merged'))
        .map((r) => r.unitId)
        .sort(),
    ).toEqual(ids(runDir).sort());
    expect(json<RunManifest>(join(root, 'merged', 'manifest.json')).limited).toEqual({ limit: 8, units: 8, of: ALL });
  }, 120_000);

  it('a follow-up experiment honours it (propagation: 3 of 4 units)', async () => {
    const followOut = join(root, 'follow');
    const result = await runEvalCli(
      [
        '--model',
        'sim',
        '--experiment',
        'propagation',
        '--systems',
        'graphiti',
        '--trials',
        '1',
        '--arms',
        'shared-default,no-journal',
        '--scenarios',
        'mfa_waiver_access,compliance_log_deletion',
        '--limit',
        '3',
        '--no-cache',
        '--quiet',
        '--out',
        followOut,
        '--run-id',
        'p',
      ],
      {},
    );
    expect(result.code, result.stderr).toBe(0);
    const records = recordsOf(join(followOut, 'p'), 'propagation.jsonl');
    expect(records).toHaveLength(3);
    expect(new Set(records.map((r) => r.key.arm)).size).toBe(2);
    expect(result.stdout).toContain('limited: 3 of 4 units (--limit 3');
  }, 60_000);

  it('forged-reasoning, which cannot honour it, refuses it in one line before anything is written', async () => {
    const refusedOut = join(root, 'refused');
    const result = await runEvalCli(
      ['--model', 'sim', '--experiment', 'forged-reasoning', '--limit', '5', '--out', refusedOut],
      {},
    );
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/--limit: applies to the grid and the follow-up experiments; forged-reasoning/);
    expect(existsSync(refusedOut)).toBe(false);
  });
});
