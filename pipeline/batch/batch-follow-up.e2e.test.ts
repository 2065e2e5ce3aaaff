// `--batch` with a follow-up experiment (issue #31 item 1) against the local Batch API server: the write-back's
// later calls depend on replies, so each round (every unit's k-th call) is one job per chunk; no chat completion,
// every unit recorded once with the replies a synchronous run records, spend at batch prices; killed between a
// round's submit and collect, the same command re-attaches; an error line is its unit's error only.
import { existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { loadScenarios } from '../../scenarios/index.js';
import { unsafeAction, type Scenario } from '../../scenarios/scenario.js';
import type { WritebackRecord } from '../suites/follow-ups/follow-up-log.js';
import type { RunManifest } from '../run-log/run-log.js';
import { checkRunLog } from '../run-log/run-log-verify.js';
import { startBatchApiServer, type BatchApiServer } from '../test-support/batch-api-server.js';
import { runEvalCli } from '../test-support/eval-cli.js';
import type { ReceivedRequest, ScriptedReply } from '../test-support/openai-compatible-server.js';
import { spawnEval } from '../test-support/spawn-eval.js';
import { within } from '../test-support/wait-for-event.js';

const scenarios = await loadScenarios();
// Three scenarios: the first and third always draw the unsafe action (hop 0 unsafe: 8 calls, hops 1–3), the second
// the safe one (2 calls: hop 0 on both reads), so units leave the rounds at different points.
const chosen = scenarios.slice(0, 3);
const KEY = 'sk-batch-follow-up-0123456789abcdef';
const USAGE = { prompt_tokens: 11, completion_tokens: 7 };
// Standard and batch prices far apart, so a spend at the wrong one cannot pass for the right one.
const PRICE = { input: 10, output: 1000, batch: { input: 3, output: 400 } };
const BATCHES_FILE = 'batches.jsonl';

let server: BatchApiServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const tmp = (prefix: string) => mkdtempSync(join(tmpdir(), prefix));
const only = (dir: string) => join(dir, readdirSync(dir)[0]!);
const endpoint = (baseURL: string) => ({ OPENAI_BASE_URL: baseURL, OPENAI_API_KEY: KEY, CI: 'true' });
const manifestOf = (runDir: string) => JSON.parse(readFileSync(join(runDir, 'manifest.json'), 'utf8')) as RunManifest;
const recordsOf = (runDir: string): WritebackRecord[] => {
  const path = join(runDir, 'writeback.jsonl');
  if (!existsSync(path)) return [];
  return readFileSync(path, 'utf8')
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as WritebackRecord);
};
const callsOf = (record: WritebackRecord) => (record as WritebackRecord & { calls: { batch?: string }[] }).calls;

function pricesFile(): string {
  const file = join(tmp('stalebench-fbatch-prices-'), 'prices.json');
  writeFileSync(file, JSON.stringify({ 'gpt-5-nano': PRICE }));
  return file;
}

/** The chosen scenario a request is about (its actions are listed in the prompt; each set is its own). */
function scenarioOf(request: ReceivedRequest): Scenario {
  const user = String(request.body.messages?.find((m) => m.role === 'user')?.content ?? '');
  const found = chosen.filter((s) => s.actions.every((action) => user.includes(`'${action}'`)));
  if (found.length !== 1) throw new Error(`no single chosen scenario in: ${user.slice(0, 200)}`);
  return found[0]!;
}

function answer(request: ReceivedRequest): ScriptedReply {
  const scenario = scenarioOf(request);
  const unsafe = unsafeAction(scenario);
  const action = chosen.indexOf(scenario) === 1 ? scenario.actions.find((a) => a !== unsafe)! : unsafe;
  return { content: JSON.stringify({ action, reason: 'test' }), usage: USAGE };
}

const writeback = (trials: number) => [
  ...['--model', 'gpt-5-nano', '--yes', '--experiment', 'writeback', '--systems', 'graphiti'],
  ...['--modes', 'direct', '--arms', 'direct', '--trials', String(trials)],
  ...['--scenarios', chosen.map((s) => s.id).join(',')],
];
/** Units of `writeback(2)`, and its calls per unit: 8 for an unsafe scenario, 2 for the safe one. */
const UNITS = chosen.length * 2;
const CALLS = 2 * (8 + 2 + 8);
const ROUNDS = 8;

/** Every decision a record holds (hop 0 on both reads, then each hop's two), in order: what a reply decided. */
function decisionsOf(record: WritebackRecord) {
  const traces = [record.hop0, record.hop0Filtered, ...record.hops.flatMap((hop) => [hop.default, hop.filtered])];
  return traces.map((trace) => ({
    sample: trace?.reply?.sample,
    text: trace?.reply?.text,
    parsedAction: trace?.parsedAction,
    unsafe: trace?.unsafe,
  }));
}

describe('--batch with a follow-up experiment (write-back)', () => {
  it('sends one job per round and no chat completion, records every unit once at batch prices, as a synchronous run would', async () => {
    server = await startBatchApiServer(answer);
    const out = tmp('stalebench-fbatch-');
    const args = [...writeback(2), '--no-cache', '--prices', pricesFile()];
    const result = await runEvalCli(
      [...args, '--out', out, '--batch', '--batch-poll', '0.01'],
      endpoint(server.baseURL),
    );
    expect(result.code, result.stderr).toBe(0);
    expect(server.chatCompletions()).toHaveLength(0);
    // Round k is one job holding the k-th call of every unit that got that far: all 6 units twice, then the 4
    // poisoned ones for hops 1–3 (two reads each).
    expect(server.submissions.map((job) => job.lines.length)).toEqual([6, 6, 4, 4, 4, 4, 4, 4]);
    const runDir = only(out);
    const records = recordsOf(runDir);
    expect(records).toHaveLength(UNITS);
    expect(new Set(records.map((r) => r.unitId)).size).toBe(UNITS);
    expect(records.every((r) => r.status === 'ok')).toBe(true);
    for (const record of records) {
      const calls = callsOf(record);
      expect(calls).toHaveLength(chosen.indexOf(chosen.find((s) => s.id === record.key.scenario)!) === 1 ? 2 : 8);
      // The unit's k-th call was answered by the k-th job.
      expect(calls.map((call) => call.batch)).toEqual(server.submissions.slice(0, calls.length).map((j) => j.batchId));
    }
    const customIds = server.submissions.flatMap((job) => job.lines.map((line) => line.custom_id));
    expect(new Set(customIds).size).toBe(CALLS);
    // Spend at batch prices: every call billed 11 in / 7 out at $3 / $400 per 1M tokens.
    const perCall = (price: { input: number; output: number }) =>
      (USAGE.prompt_tokens * price.input + USAGE.completion_tokens * price.output) / 1e6;
    expect(manifestOf(runDir).usage![0]!.costUsd).toBeCloseTo(CALLS * perCall(PRICE.batch), 12);
    expect(manifestOf(runDir).spec.control.batch).toMatchObject({ pollMs: 10 });
    expect(checkRunLog(runDir).state).toBe('intact');

    // The same command without --batch, on the same scripted server: the same decisions, unit by unit.
    const syncOut = tmp('stalebench-fbatch-sync-');
    const sync = await runEvalCli([...args, '--out', syncOut], endpoint(server.baseURL));
    expect(sync.code, sync.stderr).toBe(0);
    expect(server.chatCompletions()).toHaveLength(CALLS);
    const syncRecords = new Map(recordsOf(only(syncOut)).map((r) => [r.unitId, r]));
    expect(syncRecords.size).toBe(UNITS);
    for (const record of records) {
      const other = syncRecords.get(record.unitId)!;
      expect(other.status).toBe('ok');
      expect(decisionsOf(record)).toEqual(decisionsOf(other));
      expect(record.journals.map((j) => j.text)).toEqual(other.journals.map((j) => j.text));
    }
    expect(manifestOf(only(syncOut)).usage![0]!.costUsd).toBeCloseTo(CALLS * perCall(PRICE), 12);
  }, 120_000);

  it.each([
    // Executor, reviewer, planner: three calls per unit (3 arms × 3 scenarios).
    [
      'propagation',
      ['--scenarios', chosen.map((s) => s.id).join(',')],
      '{"action": "REJECT", "reason": "test"}',
      [9, 9, 9],
    ],
    // A tool call at every step: four agent steps per unit (4 arms × 4 exploit scenarios).
    ['tools', [], '{"tool": "read_file", "args": {"path": "notes.txt"}}', [16, 16, 16, 16]],
  ])(
    '%s: one job per round, however the units interleave their local work',
    async (experiment, more, content, jobs) => {
      server = await startBatchApiServer(() => ({ content, usage: USAGE }));
      const out = tmp(`stalebench-fbatch-${experiment}-`);
      const result = await runEvalCli(
        [
          ...[
            '--model',
            'gpt-5-nano',
            '--yes',
            '--experiment',
            experiment,
            '--systems',
            'graphiti',
            '--modes',
            'direct',
          ],
          ...['--trials', '1', ...more, '--no-cache', '--out', out, '--batch', '--batch-poll', '0.01'],
        ],
        endpoint(server.baseURL),
      );
      expect(result.code, result.stderr).toBe(0);
      expect(server.chatCompletions()).toHaveLength(0);
      expect(server.submissions.map((job) => job.lines.length)).toEqual(jobs);
      const records = readFileSync(join(only(out), `${experiment}.jsonl`), 'utf8')
        .trim()
        .split('\n');
      expect(records).toHaveLength(jobs[0]!);
    },
    120_000,
  );

  it('chunks a round by --batch-size: never one job per unit, never a unit twice in a job', async () => {
    server = await startBatchApiServer(answer);
    const out = tmp('stalebench-fbatch-chunks-');
    const size = 4;
    const result = await runEvalCli(
      [...writeback(2), '--no-cache', '--out', out, '--batch', '--batch-size', String(size), '--batch-poll', '0.01'],
      endpoint(server.baseURL),
    );
    expect(result.code, result.stderr).toBe(0);
    expect(server.chatCompletions()).toHaveLength(0);
    // Round 1 is all 6 units: one full chunk and the rest.
    expect(server.submissions.slice(0, 2).map((job) => job.lines.length)).toEqual([size, UNITS - size]);
    for (const job of server.submissions) expect(job.lines.length).toBeLessThanOrEqual(size);
    // A later round may be cut where the earlier round's jobs ended, never finer: at most two chunks per round.
    expect(server.submissions.length).toBeLessThanOrEqual(ROUNDS * Math.ceil(UNITS / size));
    const records = recordsOf(only(out));
    expect(records).toHaveLength(UNITS);
    for (const record of records) {
      const jobs = callsOf(record).map((call) => call.batch);
      expect(new Set(jobs).size, record.unitId).toBe(jobs.length);
    }
    expect(new Set(server.submissions.flatMap((job) => job.lines.map((l) => l.custom_id))).size).toBe(CALLS);
  }, 120_000);

  it('under a budget that covers part of a round, the round goes out in parts: units waiting on the budget count as waiting', async () => {
    server = await startBatchApiServer(answer);
    const out = tmp('stalebench-fbatch-budget-');
    // A call's reservation is its upper bound (2,000 output tokens × $400/1M ≈ $0.80): $3.5 holds four at once, so
    // two units of the first round wait on the budget until the first four replies settle at their real cost.
    const result = await runEvalCli(
      [
        ...[...writeback(2), '--no-cache', '--prices', pricesFile(), '--budget-usd', '3.5', '--out', out],
        ...['--batch', '--batch-poll', '0.01'],
      ],
      endpoint(server.baseURL),
    );
    expect(result.code, result.stderr).toBe(0);
    expect(server.chatCompletions()).toHaveLength(0);
    expect(server.submissions[0]!.lines).toHaveLength(4);
    for (const job of server.submissions) expect(job.lines.length).toBeLessThanOrEqual(4);
    const records = recordsOf(only(out));
    expect(records).toHaveLength(UNITS);
    expect(records.every((r) => r.status === 'ok')).toBe(true);
    expect(new Set(server.submissions.flatMap((job) => job.lines.map((l) => l.custom_id))).size).toBe(CALLS);
    const batchCost = (CALLS * (USAGE.prompt_tokens * 3 + USAGE.completion_tokens * 400)) / 1e6;
    expect(manifestOf(only(out)).budget!.spentUsd).toBeCloseTo(batchCost, 12);
  }, 60_000);

  it('--dry-run shows the synchronous and the batch cost', async () => {
    server = await startBatchApiServer(answer);
    const args = [...writeback(1), '--no-cache', '--prices', pricesFile(), '--out', tmp('sb-')];
    const result = await runEvalCli([...args, '--dry-run', '--batch'], endpoint(server.baseURL));
    expect(result.code, result.stderr).toBe(0);
    const line = result.stdout.split('\n').find((l) => l.startsWith('  gpt-5-nano:'))!;
    expect(line).toMatch(/synchronous \$[\d.]+–\$[\d.]+ at \$10\/\$1000 per 1M tokens/);
    expect(line).toMatch(/batch \(--batch, billed\) \$[\d.]+–\$[\d.]+ at \$3\/\$400 per 1M tokens/);
    expect(server.submissions).toHaveLength(0);
    expect(server.chatCompletions()).toHaveLength(0);
  }, 60_000);

  it.each([1, 3])(
    "killed between round %i's submit and collect, the same command re-attaches to its jobs and submits no call twice",
    async (round) => {
      // The server holds the round's job in progress, so the process dies with it submitted and uncollected.
      const held = `batch_${round}`;
      let holding = true;
      server = await startBatchApiServer(answer, { hold: (id) => holding && id === held });
      const out = tmp('stalebench-fbatch-kill-');
      const args = [...writeback(2), '--no-cache', '--out', out, '--batch', '--batch-poll', '0.01'];
      const child = spawnEval(args, endpoint(server.baseURL));
      // Each retrieve the server answers is an event; the round's job has been polled twice after enough of them.
      const heldPolls = async () => {
        for (let seen = 1; server!.retrieves.filter((id) => id === held).length < 2; seen += 1)
          await server!.retrieved(seen);
      };
      await within(heldPolls(), 60_000, `round ${round} to be submitted and polled`);
      child.child.kill('SIGKILL');
      await child.exited;
      expect(server.submissions).toHaveLength(round);
      // Every submitted job was recorded before anything waited on it: that is what the resume re-attaches to.
      const recorded = readFileSync(join(only(out), BATCHES_FILE), 'utf8')
        .trim()
        .split('\n');
      expect(recorded.map((line) => JSON.parse(line).batchId)).toEqual(server.submissions.map((job) => job.batchId));
      // By round 3 the safe scenario's two units have ended (hop 0 only) and are recorded; a resume keeps them.
      expect(recordsOf(only(out)).map((r) => r.key.scenario)).toEqual(
        round === 1 ? [] : [chosen[1]!.id, chosen[1]!.id],
      );

      holding = false;
      const resumed = await runEvalCli(args, endpoint(server.baseURL));
      expect(resumed.code, resumed.stderr).toBe(0);
      expect(server.chatCompletions()).toHaveLength(0);
      // Rounds 1..round came from the jobs the killed run submitted (re-attached by id); the rest are new jobs.
      expect(server.submissions.map((job) => job.lines.length)).toEqual([6, 6, 4, 4, 4, 4, 4, 4]);
      expect(new Set(server.submissions.flatMap((job) => job.lines.map((l) => l.custom_id))).size).toBe(CALLS);
      const records = recordsOf(only(out));
      expect(records).toHaveLength(UNITS);
      expect(new Set(records.map((r) => r.unitId)).size).toBe(UNITS);
      expect(records.every((r) => r.status === 'ok')).toBe(true);
      for (const record of records)
        expect(callsOf(record).map((call) => call.batch)).toEqual(
          server.submissions.slice(0, callsOf(record).length).map((job) => job.batchId),
        );
    },
    120_000,
  );

  it("an error line is its unit's error only: the unit keeps its finished steps, is counted, and is never scored", async () => {
    const refused = chosen[0]!;
    let refusedCalls = 0;
    let refusing = true;
    server = await startBatchApiServer((request) => {
      // The refused scenario's second call (hop 0 on the filtered read) comes back as an error-file line.
      if (scenarioOf(request) === refused && ++refusedCalls === 2 && refusing)
        return { status: 400, error: { message: 'refused by the test server' } };
      return answer(request);
    });
    const out = tmp('stalebench-fbatch-errors-');
    const args = [
      ...writeback(1),
      '--no-cache',
      '--out',
      out,
      '--batch',
      '--batch-poll',
      '0.01',
      '--max-error-rate',
      '1',
    ];
    const result = await runEvalCli(args, endpoint(server.baseURL));
    // Completed with a failed unit (exit 4), named in the last line.
    expect(result.code, result.stderr).toBe(4);
    expect(server.chatCompletions()).toHaveLength(0);
    const records = recordsOf(only(out));
    expect(records).toHaveLength(chosen.length);
    for (const record of records) {
      if (record.key.scenario !== refused.id) {
        expect(record.status, record.key.scenario).toBe('ok');
        continue;
      }
      expect(record.status).toBe('error');
      expect(record.error!.message).toMatch(/refused by the test server/);
      // Hop 0's default read was answered before the refusal; nothing after it ran.
      expect(record.hop0?.unsafe).toBe(true);
      expect(record.hops).toEqual([]);
    }
    // The others ran all their rounds: the third scenario poisoned (8 calls), the second safe (2).
    expect(server.submissions.map((job) => job.lines.length)).toEqual([3, 3, 1, 1, 1, 1, 1, 1]);
    // Counted in the errors column and left out of every rate (its hop 0 was unsafe: scored, it would be 2/3).
    const [row] = JSON.parse(readFileSync(join(only(out), 'summary.json'), 'utf8')).writeback;
    expect(row).toMatchObject({ runs: 2, errors: 1, hop0Unsafe: { unsafe: { k: 1, n: 2 }, errors: 1 } });

    // Resumed with --retry-errors (still --batch): the failed unit runs again; its first call re-attaches to the job
    // that answered it, the refused one is sent again in a new job, and its hops follow, one job per round.
    refusing = false;
    const firstRun = server.submissions.length;
    refusedCalls = 0;
    const resumed = await runEvalCli([...args, '--retry-errors'], endpoint(server.baseURL));
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(server.chatCompletions()).toHaveLength(0);
    expect(server.submissions.slice(firstRun).map((job) => job.lines.length)).toEqual([1, 1, 1, 1, 1, 1, 1]);
    const sent = server.submissions.flatMap((job) => job.lines.map((l) => l.custom_id));
    // Only the refused call was ever sent twice.
    expect(sent.length - new Set(sent).size).toBe(1);
    const retried = recordsOf(only(out)).at(-1)!;
    expect(retried).toMatchObject({ key: { scenario: refused.id }, status: 'ok' });
    expect(callsOf(retried)[0]!.batch).toBe(server.submissions[0]!.batchId);
  }, 120_000);
});
