// Two eval processes on one run directory: the second is refused naming the first; a dead holder's lock is taken over;
// the lock goes on every exit path; the manifest's invocations say which process did what and how it ended.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { POLICY_SCENARIO_IDS } from '../scenarios/index.js';
import { main, specFromArgs } from './cli/cli.js';
import { runEvaluation } from './run/run.js';
import { lockPathOf, type LockHolder } from './run/run-lock.js';
import type { RunManifest, UnitRecord } from './run-log/run-log.js';
import { startOpenAICompatibleServer, type TestServer } from './test-support/openai-compatible-server.js';
import { spawnEval } from './test-support/spawn-eval.js';

let server: TestServer | undefined;
afterEach(async () => {
  vi.restoreAllMocks();
  await server?.close();
  server = undefined;
});

async function runCli(args: string[], env: NodeJS.ProcessEnv = {}) {
  const err: string[] = [];
  vi.spyOn(console, 'log').mockImplementation(() => {});
  vi.spyOn(console, 'error').mockImplementation((...parts) => void err.push(parts.join(' ')));
  const code = await main(['eval', ...args], env);
  vi.restoreAllMocks();
  return { code, stderr: err.join('\n') };
}

const manifestOf = (runDir: string) => JSON.parse(readFileSync(join(runDir, 'manifest.json'), 'utf8')) as RunManifest;
const unitIds = (runDir: string) =>
  readFileSync(join(runDir, 'records.jsonl'), 'utf8')
    .trim()
    .split('\n')
    .map((line) => (JSON.parse(line) as UnitRecord).unitId);
const SAFE = { content: '{"action": "REJECT", "reason": "policy"}' };

describe('two eval processes on one run directory', () => {
  it("refuses the second with exit 1 and one line naming the first one's pid; the first finishes with every unit once", async () => {
    // The endpoint holds every call until the second process has gone: the first stays inside its run until then.
    let secondGone = () => {};
    const gate = new Promise<void>((resolve) => (secondGone = resolve));
    server = await startOpenAICompatibleServer(async () => {
      await gate;
      return SAFE;
    });
    const out = mkdtempSync(join(tmpdir(), 'stalebench-lock-'));
    const args = [
      '--model',
      'm',
      '--yes',
      '--systems',
      'graphiti',
      '--modes',
      'direct',
      '--arms',
      'none,store-filter',
      '--trials',
      '6',
      '--concurrency',
      '1',
      '--out',
      out,
      '--run-id',
      'shared',
    ];
    const env = { OPENAI_BASE_URL: server.baseURL, OPENAI_API_KEY: 'sk-test-lock' };
    const first = spawnEval(args, env);
    const runDir = join(out, 'shared');
    // Its first call has arrived: the first process holds the lock and is inside its run.
    await Promise.race([server.arrived(1), first.exited]);
    expect(existsSync(join(runDir, 'manifest.json')), first.stderr()).toBe(true);
    const second = spawnEval(args, env);
    const secondCode = await second.exited;
    secondGone();
    expect(first.child.exitCode, 'the first process must still be running when the second is refused').toBeNull();
    expect(secondCode).toBe(1);
    // The preflight's ok line may come first; the refusal is one error line, and the last one.
    const errorLines = second
      .stderr()
      .trim()
      .split('\n')
      .filter((line) => line.startsWith('error:'));
    expect(errorLines).toHaveLength(1);
    expect(second.stderr().trim().split('\n').at(-1)).toBe(errorLines[0]);
    expect(errorLines[0]).toMatch(
      new RegExp(
        `^error: run directory .*shared is in use by pid ${first.child.pid} on host ${hostname()} \\(started \\d{4}-`,
      ),
    );
    expect(await first.exited).toBe(0);
    const ids = unitIds(runDir);
    expect(ids).toHaveLength(POLICY_SCENARIO_IDS.length * 2 * 6); // scenarios × arms × trials
    expect(new Set(ids).size).toBe(ids.length);
    expect(existsSync(lockPathOf(runDir))).toBe(false);
    const [invocation] = manifestOf(runDir).invocations!;
    expect(invocation).toMatchObject({ pid: first.child.pid, host: hostname(), ended: { status: 'success' } });
    expect(invocation!.nonce).toMatch(/^[0-9a-f]{8}$/);
  }, 120_000);

  it('takes over a lock whose holder is dead, and says so', async () => {
    const out = mkdtempSync(join(tmpdir(), 'stalebench-stale-'));
    const runDir = join(out, 'stale');
    mkdirSync(runDir, { recursive: true });
    const dead = spawnSync(process.execPath, ['-e', '']).pid!;
    const stale: LockHolder = {
      pid: dead,
      host: hostname(),
      nonce: 'deadbeef',
      startedAt: '2026-01-01T00:00:00.000Z',
      processStart: null,
    };
    writeFileSync(lockPathOf(runDir), JSON.stringify(stale));
    const result = await runCli([
      '--model',
      'sim',
      '--systems',
      'graphiti',
      '--modes',
      'direct',
      '--arms',
      'none',
      '--trials',
      '1',
      '--out',
      out,
      '--run-id',
      'stale',
    ]);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toContain(
      `took over the lock of ${runDir} from pid ${dead} on host ${hostname()} (started 2026-01-01T00:00:00.000Z, nonce deadbeef): that process is no longer running`,
    );
    expect(existsSync(lockPathOf(runDir))).toBe(false);
  });

  it('takes over a lock whose pid now belongs to another process (start time differs)', async () => {
    const out = mkdtempSync(join(tmpdir(), 'stalebench-reused-'));
    const runDir = join(out, 'reused');
    mkdirSync(runDir, { recursive: true });
    const reused: LockHolder = {
      pid: process.pid,
      host: hostname(),
      nonce: 'feedf00d',
      startedAt: '2026-01-01T00:00:00.000Z',
      processStart: '1',
    };
    writeFileSync(lockPathOf(runDir), JSON.stringify(reused));
    const result = await runCli([
      '--model',
      'sim',
      '--systems',
      'graphiti',
      '--modes',
      'direct',
      '--arms',
      'none',
      '--trials',
      '1',
      '--out',
      out,
      '--run-id',
      'reused',
    ]);
    if (!existsSync(`/proc/${process.pid}/stat`)) return; // no kernel start times here: a live pid is taken as its holder
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toContain('nonce feedf00d): that process is no longer running');
  });

  it('releases the lock and records how the invocation ended on success, cancel and an exception', async () => {
    const out = mkdtempSync(join(tmpdir(), 'stalebench-release-'));
    const args = [
      '--model',
      'sim',
      '--systems',
      'graphiti',
      '--modes',
      'direct',
      '--arms',
      'none',
      '--trials',
      '1',
      '--out',
      out,
      '--run-id',
      'r',
    ];
    const runDir = join(out, 'r');
    expect((await runCli(args)).code).toBe(0);
    expect(existsSync(lockPathOf(runDir))).toBe(false);
    // An exception inside the run, after this invocation wrote the manifest (summary.json cannot be replaced: it
    // is a non-empty directory now). The run log is checked before the manifest is written, so the exception
    // has to come later than that to be an invocation of its own.
    // The manifest binds summary.json once the run finished (pipeline/run/run-binding.ts), so the run is marked
    // unfinished first, as a crash between the two writes leaves it: the resume then gets past the run-log check.
    const summary = readFileSync(join(runDir, 'summary.json'));
    const finished = readFileSync(join(runDir, 'manifest.json'), 'utf8');
    writeFileSync(join(runDir, 'manifest.json'), JSON.stringify({ ...JSON.parse(finished), status: 'started' }));
    rmSync(join(runDir, 'summary.json'));
    mkdirSync(join(runDir, 'summary.json'));
    writeFileSync(join(runDir, 'summary.json', 'occupied'), 'x');
    const failed = await runCli(args);
    expect(failed.code).toBe(1);
    expect(failed.stderr).toMatch(/EISDIR|ENOTEMPTY|EEXIST/);
    expect(existsSync(lockPathOf(runDir))).toBe(false);
    rmSync(join(runDir, 'summary.json'), { recursive: true });
    writeFileSync(join(runDir, 'summary.json'), summary);
    const controller = new AbortController();
    controller.abort();
    const cancelled = await runEvaluation(specFromArgs(args, {}), { apiKey: undefined }, { signal: controller.signal });
    expect(existsSync(lockPathOf(runDir))).toBe(false);
    expect(cancelled.exitCode).toBe(130);
    const invocations = manifestOf(runDir).invocations!;
    expect(invocations.map((entry) => entry.ended?.status)).toEqual(['success', 'exception', 'cancelled']);
    expect(new Set(invocations.map((entry) => entry.nonce)).size).toBe(3);
    expect(readdirSync(runDir).filter((file) => file.startsWith('eval.lock'))).toEqual([]);
  });
});
