// Issue #26 item 10: the default grid runs the paper's six arms (Table 6), and the output filter reuses the `none`
// reply: the dry run's calls to send are the distinct calls, and the real run sends exactly those to the endpoint.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { loadScenarios } from '../scenarios/index.js';
import { specFromArgs } from './cli/cli.js';
import { evalUsage } from './cli/cli-usage.js';
import type { UnitRecord } from './run-log/run-log.js';
import { runEvalCli } from './test-support/eval-cli.js';
import { startOpenAICompatibleServer, type TestServer } from './test-support/openai-compatible-server.js';

const PAPER_ARMS = ['none', 'store-filter', 'prompt-hardening', 'output-filter', 'filter-hardening', 'guard'];
const root = mkdtempSync(join(tmpdir(), 'stalebench-default-arms-'));
let server: TestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('the default grid', () => {
  it("runs the paper's six arms when --arms is not given, and --help says so", () => {
    expect(specFromArgs(['--model', 'sim'], {}).arms).toEqual(PAPER_ARMS);
    expect(evalUsage()).toContain(`default: the paper's six, ${PAPER_ARMS.join(',')}`);
  });

  it('plans and sends one call per trial for five of the six arms: the output filter reuses the none reply', async () => {
    const policies = await loadScenarios();
    // The scenario's second action, found by its task text: the same answer for the same prompt.
    server = await startOpenAICompatibleServer((request) => {
      const user = request.body.messages?.find((m) => m.role === 'user')?.content ?? '';
      const scenario = policies.find((s) => user.includes(`Question: ${s.task}\n`));
      return { content: `{"action": "${scenario?.actions[1] ?? 'NONE'}", "reason": "test"}` };
    });
    const env = { OPENAI_BASE_URL: server.baseURL, OPENAI_API_KEY: 'sk-test-default-arms-0000', CI: 'true' };
    const scenarios = ['mfa_waiver_access', 'compliance_log_deletion'];
    const args = [
      '--model',
      'gpt-5-nano',
      '--systems',
      'graphiti',
      '--modes',
      'direct',
      '--scenarios',
      scenarios.join(','),
      '--trials',
      '2',
      '--quiet',
      '--yes',
      '--cache-dir',
      join(root, 'cache'),
      '--out',
      join(root, 'runs'),
      '--run-id',
      'six',
    ];
    const units = scenarios.length * 2 * 6;
    const distinctCalls = scenarios.length * 2 * 5;
    const plan = await runEvalCli([...args, '--dry-run'], env);
    expect(plan.code, plan.stderr).toBe(0);
    const rows = plan.stdout.split('\n').filter((line) => line.startsWith('grid '));
    expect(rows.map((line) => line.split(/\s+/)[3])).toEqual(PAPER_ARMS);
    const outputFilter = rows.find((line) => line.split(/\s+/)[3] === 'output-filter')!.split(/\s+/);
    expect(outputFilter.slice(4, 7)).toEqual(['4', '0', '0']);
    expect(plan.stdout).toMatch(
      new RegExp(`gpt-5-nano: ${distinctCalls} calls to send, 0 cached; .*\\$0\\.\\d+–\\$0\\.\\d+ at`),
    );
    expect(server.requests).toHaveLength(0);

    const real = await runEvalCli(args, env);
    expect(real.code, real.stderr).toBe(0);
    expect(server.requests).toHaveLength(distinctCalls);
    const records = readFileSync(join(root, 'runs', 'six', 'records.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as UnitRecord);
    expect(records).toHaveLength(units);
    expect([...new Set(records.map((r) => r.key.arm))].sort()).toEqual([...PAPER_ARMS].sort());
    expect(records.filter((r) => r.key.arm === 'output-filter').every((r) => r.reply?.attempts === 0)).toBe(true);
  }, 120_000);
});
