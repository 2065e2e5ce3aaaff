// End-to-end (issue #26 items 6 and 7) against a local OpenAI-compatible server: an endpoint whose every chat call
// fails stops the run on failed attempts across units, not after five whole units; a flaky one completes, its
// transient failures retried once at the end, the persistent ones counted, named and exited on with code 4.
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { Summary } from '../analysis/grid/summarize.js';
import type { RunManifest, UnitRecord } from './run-log/run-log.js';
import { parsePrintedTable } from './test-support/terminal-table.js';
import { runEvalCli } from './test-support/eval-cli.js';
import { startOpenAICompatibleServer, type TestServer } from './test-support/openai-compatible-server.js';

let server: TestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const endpoint = (baseURL: string) => ({ OPENAI_BASE_URL: baseURL, OPENAI_API_KEY: 'sk-test-endpoint-failures' });
const GRID = ['--model', 'local-model', '--yes', '--systems', 'graphiti', '--modes', 'direct', '--no-cache'];
const SAFE = JSON.stringify({ action: 'DENY', reason: 'current policy' });
// `retry-after-ms: 0` keeps the ladder's waits at zero: the test counts attempts, never time.
const FAIL_500 = { status: 500, error: { message: 'scripted internal error' }, headers: { 'retry-after-ms': '0' } };
const lastRecords = (runDir: string): Map<string, UnitRecord> =>
  new Map(
    readFileSync(join(runDir, 'records.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as UnitRecord)
      .map((record) => [record.unitId, record]),
  );

describe('an endpoint whose every chat call fails', () => {
  it('stops on consecutive failed attempts across units (before five units have used their ladders), saying why', async () => {
    server = await startOpenAICompatibleServer(() => FAIL_500);
    const out = mkdtempSync(join(tmpdir(), 'stalebench-dead-endpoint-'));
    const args = [...GRID, '--arms', 'none,store-filter', '--trials', '2', '--run-id', 'r', '--out', out];
    const result = await runEvalCli(args, endpoint(server.baseURL));
    expect(result.code, result.stderr).toBe(2);
    const last = result.stderr.trim().split('\n').at(-1)!;
    expect(last).toMatch(
      /^error: stopped by the circuit breaker: 20 consecutive failed attempts across units, none succeeded in between \(limit 20\); last error: 500 scripted internal error/,
    );
    // Default -j 4: 5 × max(4, 4) = 20 failed attempts; the calls in flight then are aborted. Five whole units (the
    // old rule) take 5 × 6 = 30 attempts at least.
    expect(server.requests.length).toBeGreaterThanOrEqual(20);
    expect(server.requests.length).toBeLessThan(30);
    const manifest = JSON.parse(readFileSync(join(out, 'r', 'manifest.json'), 'utf8')) as RunManifest;
    expect(manifest.status).toBe('aborted');
  });
});

describe('a flaky endpoint under the default --max-error-rate', () => {
  it('completes: a transient failure is retried at the end, a persistent one is counted, named, exit 4', async () => {
    const seen = new Map<string, number>();
    let persistent: string | null = null;
    let transient: string | null = null;
    server = await startOpenAICompatibleServer((request, index) => {
      const prompt = JSON.stringify(request.body.messages);
      seen.set(prompt, (seen.get(prompt) ?? 0) + 1);
      if (index === 0) persistent = prompt;
      if (index === 6 && prompt !== persistent) transient = prompt;
      if (prompt === persistent) return FAIL_500;
      // The transient prompt fails a whole ladder (6 attempts), then answers: only the end-of-run retry recovers it.
      if (prompt === transient && seen.get(prompt)! <= 6) return FAIL_500;
      return { content: SAFE };
    });
    const out = mkdtempSync(join(tmpdir(), 'stalebench-flaky-endpoint-'));
    const args = [...GRID, '--arms', 'none', '--trials', '1', '-j', '1', '--run-id', 'r', '--out', out];
    const result = await runEvalCli(args, endpoint(server.baseURL));
    const runDir = join(out, 'r');
    const records = lastRecords(runDir);
    const failed = [...records.values()].filter((r) => r.status === 'error');
    expect(transient).not.toBeNull();
    // One unit per scenario (9): the persistent prompt's unit still failed; the transient one recovered at the end.
    expect(records.size).toBe(9);
    expect(failed).toHaveLength(1);
    expect(seen.get(persistent!)).toBe(12);
    expect(seen.get(transient!)).toBe(7);
    expect(result.code, result.stderr).toBe(4);
    const last = result.stderr.trim().split('\n').at(-1)!;
    expect(last).toMatch(/^error: completed with 1\/9 units failed \(within --max-error-rate 0\.25/);
    expect(last).toContain(failed[0]!.unitId);
    // The errors column counts it: summary.json and the terminal table.
    const summary = JSON.parse(readFileSync(join(runDir, 'summary.json'), 'utf8')) as Summary;
    expect(summary.cells.reduce((sum, cell) => sum + cell.errors, 0)).toBe(1);
    const table = parsePrintedTable(result.stdout);
    expect(table.rows.map((row) => [row.model, row.cells.errors])).toEqual([['local-model', '1']]);
    const manifest = JSON.parse(readFileSync(join(runDir, 'manifest.json'), 'utf8')) as RunManifest;
    expect(manifest).toMatchObject({ status: 'success', counts: { units: 9, errors: 1 } });
  });
});
