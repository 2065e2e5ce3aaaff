// End-to-end (issue #18): the experiment phase's bounded pool keeps -j decisions in flight, runs the reusing arm after
// the replies it reuses, and a resume runs only what is not recorded (errors only with --retry-errors).
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { UnitRecord } from './run-log/run-log.js';
import { startOpenAICompatibleServer, type TestServer } from './test-support/openai-compatible-server.js';
import { runEvalCli as runCli } from './test-support/eval-cli.js';

let server: TestServer | undefined;
afterEach(async () => {
  vi.restoreAllMocks();
  await server?.close();
  server = undefined;
});

const endpoint = (baseURL: string) => ({ OPENAI_BASE_URL: baseURL, OPENAI_API_KEY: 'sk-test-experiment-phase' });
const recordsOf = (runDir: string): UnitRecord[] =>
  readFileSync(join(runDir, 'records.jsonl'), 'utf8')
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as UnitRecord);
const GRID = ['--model', 'gpt-5-nano', '--systems', 'graphiti', '--modes', 'direct', '--arms', 'none,output-filter'];
const SAFE = JSON.stringify({ action: 'DENY', reason: 'current policy' });

describe('experiment phase scheduling', () => {
  it('-j 3 against a slow endpoint: exactly 3 decisions in flight at most; the output filter after every none unit', async () => {
    let inFlight = 0;
    let peak = 0;
    server = await startOpenAICompatibleServer(async () => {
      inFlight += 1;
      peak = Math.max(peak, inFlight);
      // Kept: the endpoint's fixed latency is under test (a slow endpoint: calls stay in flight, so -j 3 is reached).
      await new Promise((resolve) => setTimeout(resolve, 15));
      inFlight -= 1;
      return { content: SAFE };
    });
    const out = mkdtempSync(join(tmpdir(), 'stalebench-phase-'));
    const args = [...GRID, '--trials', '2', '--no-cache', '-j', '3', '--run-id', 'r', '--out', out];
    const result = await runCli(args, endpoint(server.baseURL));
    expect(result.code, result.stderr).toBe(0);
    const records = recordsOf(join(out, 'r'));
    const none = records.filter((r) => r.key.arm === 'none');
    expect(none.length).toBeGreaterThan(3);
    expect(server.requests).toHaveLength(none.length);
    expect(peak).toBe(3);
    const lastNone = records.findLastIndex((r) => r.key.arm === 'none');
    const firstFiltered = records.findIndex((r) => r.key.arm === 'output-filter');
    expect(firstFiltered).toBe(lastNone + 1);
    for (const r of records.slice(firstFiltered))
      expect(r.reply!.sample).toBe(`grid/${r.unitId.replace('/output-filter/', '/none/')}`);
  });

  it('a resume runs nothing recorded; --retry-errors reruns the errors, the output filter reusing the new replies', async () => {
    let failing = true;
    server = await startOpenAICompatibleServer((_, index) =>
      failing && index % 2 === 1 ? { status: 400, error: { message: 'refused by test' } } : { content: SAFE },
    );
    const out = mkdtempSync(join(tmpdir(), 'stalebench-phase-resume-'));
    const args = [...GRID, '--trials', '2', '--no-cache', '-j', '1', '--max-error-rate', '1', '--run-id', 'r'];
    const first = await runCli([...args, '--out', out], endpoint(server.baseURL));
    const runDir = join(out, 'r');
    const stored = recordsOf(runDir);
    const erroredNone = stored.filter((r) => r.key.arm === 'none' && r.status === 'error');
    expect(erroredNone.length, first.stderr).toBeGreaterThan(0);
    expect(stored.some((r) => r.key.arm === 'none' && r.status === 'ok')).toBe(true);

    failing = false;
    const sent = server.requests.length;
    await runCli([...args, '--out', out], endpoint(server.baseURL));
    expect(server.requests.length).toBe(sent);
    expect(recordsOf(runDir)).toHaveLength(stored.length);

    const retried = await runCli([...args, '--retry-errors', '--out', out], endpoint(server.baseURL));
    expect(retried.code, retried.stderr).toBe(0);
    // Only the errored none units call the model; every output-filter unit reuses a none reply of this run.
    expect(server.requests.length).toBe(sent + erroredNone.length);
    const last = new Map(recordsOf(runDir).map((r) => [r.unitId, r]));
    expect([...last.values()].every((r) => r.status === 'ok')).toBe(true);
    // An output-filter unit whose none unit had failed made its own call then; those that failed ran again now,
    // after the none units, and took the none unit's new reply; the others kept what they recorded first.
    const rerun = stored.filter((r) => r.key.arm === 'output-filter' && r.status === 'error').map((r) => r.unitId);
    expect(rerun.length).toBeGreaterThan(0);
    for (const unitId of rerun) {
      const reused = last.get(unitId.replace('/output-filter/', '/none/'))!;
      expect(last.get(unitId)!.reply).toMatchObject({
        text: reused.reply!.text,
        sample: reused.reply!.sample,
        attempts: 0,
      });
    }
  });
});
