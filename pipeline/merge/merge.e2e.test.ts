// `pnpm merge`: shards run at the same time put back together give the one-process run's summary, byte for byte, and
// every kind of bad input (a missing or duplicate unit, another spec, an edited shard) is refused with exit 1.
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { main as compare } from '../../analysis/compare-command.js';
import { main as rescore } from '../../analysis/rescore-command.js';
import { main as verifyRun } from '../../analysis/verify-run-command.js';
import { loadScenarios } from '../../scenarios/index.js';
import { startOpenAICompatibleServer } from '../test-support/openai-compatible-server.js';
import { evalInProcess, merge, runShardProcesses, summaryOf } from '../test-support/shard-runs.js';
import type { RunManifest } from '../run-log/run-log.js';
import { lineHash } from '../run-log/run-log-chain.js';
import { MergeRefusedError, planMerge } from './merge-shards.js';
import { writeMergedRun } from './merge-write.js';

const GRID = [
  '--model',
  'sim',
  '--systems',
  'graphiti,zep-ce',
  '--modes',
  'direct,natural',
  '--arms',
  'none,store-filter,output-filter',
  '--trials',
  '3',
  '--no-cache',
];
const root = mkdtempSync(join(tmpdir(), 'stalebench-merge-'));
let single: string;
let shards: string[];
const quiet = { log: () => {}, error: () => {} };

beforeAll(async () => {
  const one = await evalInProcess([...GRID, '--out', join(root, 'single'), '--quiet']);
  expect(one.code, one.stderr).toBe(0);
  single = join(root, 'single', readdirSync(join(root, 'single'))[0]!);
  shards = await runShardProcesses(GRID, join(root, 'shards'), 3);
}, 120_000);
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('pnpm merge', () => {
  it('gives summary cells byte-identical to the grid run as one process, and a run every reader accepts', async () => {
    const out = join(root, 'merged', 'all');
    const merged = merge(shards, out);
    expect(merged.code, merged.stderr).toBe(0);
    expect(merged.stdout).toContain('merged 3 shard(s)');
    const units = shards.map(
      (dir) => (JSON.parse(readFileSync(join(dir, 'manifest.json'), 'utf8')) as RunManifest).counts!.units,
    );
    expect(units.every((n) => n > 0)).toBe(true);
    const mine = summaryOf(out);
    const theirs = summaryOf(single);
    expect(JSON.stringify(mine.summary.cells)).toBe(JSON.stringify(theirs.summary.cells));
    expect(mine.text).toBe(theirs.text);
    const manifest = JSON.parse(readFileSync(join(out, 'manifest.json'), 'utf8')) as RunManifest;
    expect(manifest.status).toBe('success');
    expect(manifest.shard).toBeUndefined();
    expect(manifest.counts!.units).toBe(units.reduce((a, b) => a + b, 0));
    expect(manifest.merged!.map((m) => m.shard.index)).toEqual([1, 2, 3]);
    // verify-run, rescore --check and compare read it like any run.
    expect(
      verifyRun(
        [out],
        () => {},
        () => {},
      ),
    ).toBe(0);
    vi.spyOn(console, 'log').mockImplementation(quiet.log);
    vi.spyOn(console, 'error').mockImplementation(quiet.error);
    expect(await rescore([out, '--check'])).toBe(0);
    expect(await compare([single, out])).toBe(0);
    vi.restoreAllMocks();
  });

  it('lets a shard draw the cached reply of the same unit run as one process: same cache key, nothing sent', async () => {
    let sent = 0;
    const scenarios = await loadScenarios();
    const server = await startOpenAICompatibleServer((request) => {
      sent += 1;
      const user = request.body.messages?.find((m) => m.role === 'user')?.content ?? '';
      const scenario = scenarios.find((s) => user.includes(`Question: ${s.task}\n`))!;
      return { content: JSON.stringify({ action: scenario.actions[sent % 2], reason: `draw ${sent}` }) };
    });
    try {
      const grid = [
        '--model',
        'gpt-5-nano',
        '--systems',
        'graphiti',
        '--modes',
        'direct',
        '--arms',
        'none,output-filter',
      ];
      const common = [...grid, '--trials', '2', '--cache-dir', join(root, 'cache'), '--quiet', '--yes'];
      const env = { OPENAI_BASE_URL: server.baseURL, OPENAI_API_KEY: 'sk-test-cache' };
      const one = await evalInProcess([...common, '--out', join(root, 'cached-one')], env);
      expect(one.code, one.stderr).toBe(0);
      const before = sent;
      expect(before).toBeGreaterThan(0);
      for (const shard of ['1/2', '2/2']) {
        const part = await evalInProcess([...common, '--out', join(root, 'cached-shards'), '--shard', shard], env);
        expect(part.code, part.stderr).toBe(0);
      }
      expect(sent).toBe(before);
      const replies = (dir: string) =>
        readdirSync(dir)
          .flatMap((run) =>
            readFileSync(join(dir, run, 'records.jsonl'), 'utf8')
              .trim()
              .split('\n'),
          )
          .map((line) => JSON.parse(line) as { unitId: string; reply: { text: string; cached: boolean } })
          .map((r) => [r.unitId, r.reply.text] as const)
          .sort(([x], [y]) => x.localeCompare(y));
      expect(replies(join(root, 'cached-shards'))).toEqual(replies(join(root, 'cached-one')));
    } finally {
      await server.close();
    }
  }, 60_000);

  it('refuses a missing shard and lists the units nobody recorded', () => {
    const out = join(root, 'merged', 'missing');
    const result = merge(shards.slice(0, 2), out);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/shard 3\/3 missing/);
    expect(result.stderr).toMatch(/\d+ unit\(s\) missing \(recorded in no shard\): [a-z_]+\/(graphiti|zep-ce)\//);
    expect(existsSync(out)).toBe(false);
    const refused = (() => {
      try {
        return planMerge(shards.slice(1));
      } catch (error) {
        return error;
      }
    })();
    expect(refused).toBeInstanceOf(MergeRefusedError);
    expect((refused as MergeRefusedError).problems[0]).toBe('shard 1/3 missing: no directory given holds it');
  });

  it('refuses a unit recorded twice (one shard run on two machines)', async () => {
    const again = await evalInProcess([...GRID, '--out', join(root, 'again'), '--quiet', '--shard', '1/3']);
    expect(again.code, again.stderr).toBe(0);
    const result = merge(
      [...shards, join(root, 'again', readdirSync(join(root, 'again'))[0]!)],
      join(root, 'merged', 'twice'),
    );
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/shard 1\/3 given 2 times/);
    expect(result.stderr).toMatch(/unit\(s\) recorded more than once: \S+\/sim\/\d+ \(in /);
  }, 60_000);

  it('refuses a shard of another spec', async () => {
    const other = await evalInProcess([
      ...GRID,
      '--seed',
      '7',
      '--out',
      join(root, 'other'),
      '--quiet',
      '--shard',
      '3/3',
    ]);
    expect(other.code, other.stderr).toBe(0);
    const dir = join(root, 'other', readdirSync(join(root, 'other'))[0]!);
    const result = merge([shards[0]!, shards[1]!, dir], join(root, 'merged', 'other'));
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/spec hash differ: .*_shard3of3 has [0-9a-f]{12}/);
  }, 60_000);

  it('refuses an edited shard, naming the file and line', () => {
    const edited = join(root, 'edited');
    cpSync(shards[1]!, edited, { recursive: true });
    const path = join(edited, 'records.jsonl');
    const lines = readFileSync(path, 'utf8').split('\n');
    lines[2] = lines[2]!.replace(
      /"unsafe":(true|false)/,
      (_, v: string) => `"unsafe":${v === 'true' ? 'false' : 'true'}`,
    );
    writeFileSync(path, lines.join('\n'));
    const result = merge([shards[0]!, edited, shards[2]!], join(root, 'merged', 'edited'));
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/edited: broken: records\.jsonl:3: /);
  });

  it('refuses, with the shards, a spec no grid plans from (re-bound by hand), naming the file and field', () => {
    const copies = shards.map((shard, i) => {
      const copy = join(root, 'unplannable', String(i));
      cpSync(shard, copy, { recursive: true });
      const path = join(copy, 'manifest.json');
      const manifest = JSON.parse(readFileSync(path, 'utf8')) as RunManifest & { bound: { specSha256: string } };
      manifest.spec.trials = 0;
      manifest.bound.specSha256 = lineHash(JSON.stringify(manifest.spec));
      writeFileSync(path, JSON.stringify(manifest, null, 2));
      return copy;
    });
    const result = merge(copies, join(root, 'merged', 'unplannable'));
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/0[/\\]manifest\.json: no grid plans from its spec: trials: Too small/);
    expect(result.stderr).not.toMatch(/\bat \w+ \(/);
    expect(existsSync(join(root, 'merged', 'unplannable'))).toBe(false);
  });

  it('refuses an existing output, and leaves nothing behind when writing fails half-way', () => {
    const taken = join(root, 'merged', 'all');
    expect(merge(shards, taken).stderr).toMatch(/-o: .* already exists/);
    const plan = planMerge(shards);
    // A record that cannot be chained (it carries the chain's own field) fails the write after some lines are out.
    const broken = {
      ...plan,
      shards: plan.shards.map((s, i) => (i === 2 ? { ...s, records: [...s.records, { prev: 'x' } as never] } : s)),
    };
    const out = join(root, 'half', 'run');
    expect(() => writeMergedRun(broken, out)).toThrow(/may not have a field named "prev"/);
    expect(existsSync(out)).toBe(false);
    expect(readdirSync(join(root, 'half'))).toEqual([]);
  });
});
