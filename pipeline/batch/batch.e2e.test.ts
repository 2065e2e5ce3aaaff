// `--batch` end to end (issue #31 item 1) against a local server implementing the Batch API: one job per chunk and
// no chat-completion call, every unit recorded once at batch prices, the same replies and cache entries as a
// synchronous run, a run killed between submit and collect that collects without resubmitting, error lines per unit.
// A follow-up experiment's rounds: batch-follow-up.e2e.test.ts.
import { existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { loadScenarios } from '../../scenarios/index.js';
import type { RunManifest, UnitRecord } from '../run-log/run-log.js';
import { startBatchApiServer, type BatchApiServer } from '../test-support/batch-api-server.js';
import type { ReceivedRequest } from '../test-support/openai-compatible-server.js';
import { runEvalCli } from '../test-support/eval-cli.js';
import { main as rescoreMain } from '../../analysis/rescore-command.js';
import { checkRunLog } from '../run-log/run-log-verify.js';
import { evalUsage } from '../cli/cli-usage.js';
import { createViewSite } from '../../analysis/view/view-site.js';
import { spawnEval } from '../test-support/spawn-eval.js';
import { within } from '../test-support/wait-for-event.js';
/** The run's record of its submitted jobs (pipeline/batch/batch-transport.ts). */
const BATCHES_FILE = 'batches.jsonl';

const scenarios = await loadScenarios();
const KEY = 'sk-batch-e2e-0123456789abcdef';
let server: BatchApiServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const tmp = (prefix: string) => mkdtempSync(join(tmpdir(), prefix));
const only = (dir: string) => join(dir, readdirSync(dir)[0]!);
const manifestOf = (runDir: string) => JSON.parse(readFileSync(join(runDir, 'manifest.json'), 'utf8')) as RunManifest;
const recordsOf = (runDir: string) =>
  readFileSync(join(runDir, 'records.jsonl'), 'utf8')
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as UnitRecord);
const endpoint = (baseURL: string) => ({ OPENAI_BASE_URL: baseURL, OPENAI_API_KEY: KEY, CI: 'true' });

/** Units (and calls: no arm reuses another's reply) of `grid`. */
const UNITS = scenarios.length * 2;
const grid = ['--systems', 'graphiti', '--modes', 'direct', '--arms', 'none,store-filter', '--trials', '1'];
// Standard and batch prices far apart, so a spend at the wrong one cannot pass for the right one.
const PRICE = { input: 10, output: 1000, batch: { input: 3, output: 400 } };
const USAGE = { prompt_tokens: 11, completion_tokens: 7 };

function pricesFile(): string {
  const file = join(tmp('stalebench-batch-prices-'), 'prices.json');
  writeFileSync(file, JSON.stringify({ 'gpt-5-nano': PRICE }));
  return file;
}

const scenarioOf = (request: ReceivedRequest) => {
  const user = request.body.messages?.find((m) => m.role === 'user')?.content ?? '';
  return scenarios.find((s) => user.includes(`Question: ${s.task}\n`));
};
const answer = (request: ReceivedRequest) => ({
  content: `{"action": "${scenarioOf(request)?.actions[1] ?? 'NONE'}", "reason": "test"}`,
  usage: USAGE,
});

describe('--batch', () => {
  it('sends one job per chunk and no chat completion, records every unit once at batch prices, as a synchronous run would', async () => {
    server = await startBatchApiServer(answer);
    const out = tmp('stalebench-batch-');
    const cacheDir = tmp('stalebench-batch-cache-');
    const prices = pricesFile();
    const size = 7;
    const args = ['--model', 'gpt-5-nano', '--yes', ...grid, '--cache-dir', cacheDir, '--prices', prices];
    // The budget reserves at batch prices: a chunk's 7 upper bounds (2,000 output tokens × $400/1M ≈ $0.80 each) fit
    // in $8 at once; at the standard price ($2 each) only 4 would, and the chunks would be cut short.
    const result = await runEvalCli(
      [...args, '--out', out, '--batch', '--batch-size', String(size), '--batch-poll', '0.01', '--budget-usd', '8'],
      endpoint(server.baseURL),
    );
    expect(result.code, result.stderr).toBe(0);
    expect(server.chatCompletions()).toHaveLength(0);
    // One job per chunk of at most `size` requests; every unit's request in exactly one job.
    expect(server.submissions).toHaveLength(Math.ceil(UNITS / size));
    for (const job of server.submissions) expect(job.lines.length).toBeLessThanOrEqual(size);
    const customIds = server.submissions.flatMap((job) => job.lines.map((line) => line.custom_id));
    expect(new Set(customIds).size).toBe(UNITS);
    const runDir = only(out);
    const records = recordsOf(runDir);
    expect(records).toHaveLength(UNITS);
    expect(new Set(records.map((r) => r.unitId)).size).toBe(UNITS);
    expect(records.every((r) => r.status === 'ok' && r.reply?.cached === false && r.reply.attempts === 1)).toBe(true);
    // The jobs are recorded in the run directory, each with the requests it holds.
    const recorded = readFileSync(join(runDir, BATCHES_FILE), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(recorded.map((row) => row.batchId)).toEqual(server.submissions.map((job) => job.batchId));
    // Spend at batch prices: every reply billed 11 in / 7 out at $3 / $400 per 1M tokens.
    const batchCost = (UNITS * (USAGE.prompt_tokens * 3 + USAGE.completion_tokens * 400)) / 1e6;
    const manifest = manifestOf(runDir);
    expect(manifest.usage![0]!.costUsd).toBeCloseTo(batchCost, 12);
    expect(manifest.budget).toMatchObject({ limitUsd: 8, callsWithUnknownCost: 0 });
    expect(manifest.budget!.spentUsd).toBeCloseTo(batchCost, 12);
    expect(manifest.spec.control.batch).toEqual({ size, pollMs: 10 });
    // The run log is intact and rescores to the same summary (batches.jsonl is a chained run-log file).
    expect(checkRunLog(runDir).state).toBe('intact');
    const printed: string[] = [];
    const write = (text: string) => void printed.push(text);
    expect(await rescoreMain([runDir, '--check'], write, write), printed.join('\n')).toBe(0);
    // pnpm run view prices a unit's reply at the batch price and names its job.
    const site = createViewSite([runDir]);
    const unit = await site.get(`/runs/${site.entries[0]!.slug}/units/0.html`);
    expect(unit.status).toBe(200);
    expect(unit.body).toMatch(/\$0\.000002 \(data\/prices\.json \(batch\), Batch API job batch_\d+\)/);

    // Each reply names the job that answered it (its spend is priced at the batch price wherever it is read).
    expect(new Set(records.map((r) => r.reply!.batch))).toEqual(new Set(server.submissions.map((j) => j.batchId)));

    // A synchronous run of the same grid on the same cache sends nothing: the batch replies are its cache entries,
    // and it records the same replies (only the provenance of the draw differs: cached, attempts, headers, job).
    const syncOut = tmp('stalebench-batch-sync-');
    const sync = await runEvalCli([...args, '--out', syncOut], endpoint(server.baseURL));
    expect(sync.code, sync.stderr).toBe(0);
    expect(server.chatCompletions()).toHaveLength(0);
    const strip = (record: UnitRecord) => {
      const { cached: _c, attempts: _a, headers: _h, batch: _b, ...reply } = record.reply!;
      return { unitId: record.unitId, promptSha256: record.promptSha256, reply, scores: record.scores };
    };
    const syncRecords = recordsOf(only(syncOut));
    expect(syncRecords.every((r) => r.reply?.cached === true)).toBe(true);
    const byUnit = new Map(syncRecords.map((r) => [r.unitId, strip(r)]));
    for (const record of records) expect(strip(record)).toEqual(byUnit.get(record.unitId));
  }, 120_000);

  it('--dry-run shows the synchronous and the batch cost', async () => {
    server = await startBatchApiServer(answer);
    const args = ['--model', 'gpt-5-nano', ...grid, '--no-cache', '--prices', pricesFile(), '--out', tmp('sb-')];
    const result = await runEvalCli([...args, '--dry-run', '--batch'], endpoint(server.baseURL));
    expect(result.code, result.stderr).toBe(0);
    const line = result.stdout.split('\n').find((l) => l.startsWith('  gpt-5-nano:'))!;
    expect(line).toMatch(/synchronous \$[\d.]+–\$[\d.]+ at \$10\/\$1000 per 1M tokens/);
    expect(line).toMatch(/batch \(--batch, billed\) \$[\d.]+–\$[\d.]+ at \$3\/\$400 per 1M tokens \(.*\(batch\)\)/);
    expect(result.stdout).toMatch(/^total synchronous: /m);
    expect(result.stdout).toMatch(/^total with --batch \(billed\): /m);
    expect(server.submissions).toHaveLength(0);
  }, 60_000);

  it('killed between submit and collect, the same command collects its job without submitting again', async () => {
    let holding = true;
    server = await startBatchApiServer(answer, { hold: () => holding });
    const out = tmp('stalebench-batch-kill-');
    const cacheDir = tmp('stalebench-batch-kill-cache-');
    const args = [
      ...['--model', 'gpt-5-nano', '--yes', ...grid, '--cache-dir', cacheDir, '--prices', pricesFile()],
      ...['--out', out, '--batch', '--batch-poll', '0.01'],
    ];
    const child = spawnEval(args, endpoint(server.baseURL));
    // Submitted, recorded, and polled while the server holds it in progress: then the process dies.
    await within(server.retrieved(2), 60_000, 'the job to be submitted and polled');
    // The job was recorded before anything waited on it (so before the first poll).
    expect(existsSync(join(only(out), BATCHES_FILE))).toBe(true);
    child.child.kill('SIGKILL');
    await child.exited;
    expect(server.submissions).toHaveLength(1);
    expect(server.submissions[0]!.lines).toHaveLength(UNITS);
    expect(existsSync(join(only(out), 'records.jsonl')) ? recordsOf(only(out)) : []).toHaveLength(0);

    holding = false;
    const resumed = await runEvalCli(args, endpoint(server.baseURL));
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(server.submissions).toHaveLength(1);
    expect(server.chatCompletions()).toHaveLength(0);
    const records = recordsOf(only(out));
    expect(records).toHaveLength(UNITS);
    expect(new Set(records.map((r) => r.unitId)).size).toBe(UNITS);
    expect(records.every((r) => r.status === 'ok')).toBe(true);
  }, 120_000);

  it("an error-file line is that unit's error; a retryable one is sent again in a new job at the end of the run", async () => {
    const [refused, flaky] = [scenarios[0]!, scenarios[1]!];
    let flakyFailures = 0;
    let refusing = true;
    server = await startBatchApiServer((request) => {
      const scenario = scenarioOf(request);
      if (scenario === refused && refusing) return { status: 400, error: { message: 'refused by the test server' } };
      if (scenario === flaky && flakyFailures < 2) {
        flakyFailures += 1;
        return { status: 500, error: { message: 'transient failure' } };
      }
      return answer(request);
    });
    const out = tmp('stalebench-batch-errors-');
    const args = ['--model', 'gpt-5-nano', '--yes', ...grid, '--no-cache', '--prices', pricesFile(), '--out', out];
    const result = await runEvalCli([...args, '--batch', '--batch-poll', '0.01'], endpoint(server.baseURL));
    // Two units are still failed (the refused scenario's two arms): the run completes with exit 4.
    expect(result.code, result.stderr).toBe(4);
    expect(server.chatCompletions()).toHaveLength(0);
    // The first job holds every unit; the end-of-run retry sends the two transient failures, and only them.
    expect(server.submissions.map((job) => job.lines.length)).toEqual([UNITS, 2]);
    const last = new Map(recordsOf(only(out)).map((r) => [r.unitId, r]));
    expect(last.size).toBe(UNITS);
    for (const record of last.values()) {
      if (record.key.scenario === refused.id) {
        expect(record.status).toBe('error');
        expect(record.error).toMatchObject({ message: 'refused by the test server', status: 400, attempts: 1 });
      } else expect(record.status, record.key.scenario).toBe('ok');
    }

    // Resumed synchronously with --retry-errors: the two refused units are sent as chat completions, and the run's
    // spend prices each reply at the price of how it was sent (batch replies at batch prices, these at standard).
    refusing = false;
    const resumed = await runEvalCli([...args, '--retry-errors'], endpoint(server.baseURL));
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(server.chatCompletions()).toHaveLength(2);
    const perCall = (price: { input: number; output: number }) =>
      (USAGE.prompt_tokens * price.input + USAGE.completion_tokens * price.output) / 1e6;
    expect(manifestOf(only(out)).usage![0]!.costUsd).toBeCloseTo(
      (UNITS - 2) * perCall(PRICE.batch) + 2 * perCall(PRICE),
      12,
    );
  }, 120_000);

  it('a job that expires is an error for each of its units, sent again by the end-of-run retry', async () => {
    server = await startBatchApiServer(answer, { endAs: (id) => (id === 'batch_1' ? 'expired' : undefined) });
    const out = tmp('stalebench-batch-expired-');
    const result = await runEvalCli(
      [
        ...['--model', 'gpt-5-nano', '--yes', ...grid, '--no-cache', '--prices', pricesFile()],
        ...['--out', out, '--batch', '--batch-poll', '0.01', '--max-consecutive-errors', '0', '--max-error-rate', '1'],
      ],
      endpoint(server.baseURL),
    );
    expect(result.code, result.stderr).toBe(0);
    expect(server.submissions.map((job) => job.lines.length)).toEqual([UNITS, UNITS]);
    const lines = recordsOf(only(out));
    // Every unit recorded twice: its error (the job expired), then its reply from the retry's job.
    expect(lines).toHaveLength(2 * UNITS);
    expect(lines.slice(0, UNITS).every((r) => r.status === 'error' && /batch_1 expired/.test(r.error!.message))).toBe(
      true,
    );
    expect(lines.slice(UNITS).every((r) => r.status === 'ok')).toBe(true);
  }, 120_000);

  it('is refused with a standalone experiment, in one clear error naming why (follow-ups: batch-follow-up.e2e.test.ts)', async () => {
    const result = await runEvalCli(
      ['--model', 'gpt-5-nano', '--experiment', 'forged-reasoning', '--batch', '--out', tmp('sb-')],
      endpoint('http://127.0.0.1:9/v1'),
    );
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/--batch: not with a standalone experiment: its attacker loop sends each query/);
  });

  it('bad batch flags are named at once; --help and the manual document them', async () => {
    const result = await runEvalCli(
      ['--model', 'gpt-5-nano', '--batch-poll', '5', '--out', tmp('sb-')],
      endpoint('http://127.0.0.1:9/v1'),
    );
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/--batch-poll: applies with --batch only/);
    const big = await runEvalCli(
      ['--model', 'gpt-5-nano', '--batch', '--batch-size', '50001', '--batch-poll', '0', '--out', tmp('sb-')],
      endpoint('http://127.0.0.1:9/v1'),
    );
    expect(big.code).toBe(1);
    expect(big.stderr).toMatch(/--batch-size: must be between 1 and 50000/);
    expect(big.stderr).toMatch(/--batch-poll: must be a number of seconds above 0/);
    // Under a budget, a model whose --prices entry has no batch price is refused before anything is sent.
    const prices = join(tmp('stalebench-batch-prices-'), 'prices.json');
    writeFileSync(prices, JSON.stringify({ 'gpt-5-nano': { input: 1, output: 2 } }));
    const unpriced = await runEvalCli(
      ['--model', 'gpt-5-nano', '--batch', '--budget-usd', '1', '--prices', prices, '--yes', '--out', tmp('sb-')],
      endpoint('http://127.0.0.1:9/v1'),
    );
    expect(unpriced.code).not.toBe(0);
    expect(unpriced.stderr).toMatch(/model "gpt-5-nano" has no known batch price \(--batch bills at it\)/);
    const help = evalUsage();
    const manual = readFileSync(join(import.meta.dirname, '..', 'README.md'), 'utf8');
    for (const flag of ['--batch ', '--batch-size', '--batch-poll']) expect(help).toContain(flag);
    for (const text of ['batches.jsonl', '/v1/batches', '--batch-size', '--batch-poll', 'batchSource'])
      expect(manual).toContain(text);
  });
});
