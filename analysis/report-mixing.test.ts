// `pnpm report` refuses to mix what should not be mixed (issue 11, item 6): duplicate specs, incomplete runs, and
// the simulator with a real model; and when forced or allowed, every format says so.
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { specFromArgs } from '../pipeline/cli/cli.js';
import { runEvaluation, type RunOptions } from '../pipeline/run/run.js';
import { startOpenAICompatibleServer, type TestServer } from '../pipeline/test-support/openai-compatible-server.js';
import { loadScenarios } from '../scenarios/index.js';
import { main } from './report-command.js';

const SCENARIOS = ['--scenarios', 'privilege_escalation_deploy_approval,mfa_waiver_access'];
const BASE = [
  '--systems',
  'graphiti,mem0-exp',
  '--modes',
  'direct',
  '--arms',
  'none,store-filter',
  '--trials',
  '2',
  '--no-cache',
  ...SCENARIOS,
];

async function run(args: string[], env: NodeJS.ProcessEnv = {}, options: RunOptions = {}): Promise<string> {
  const out = mkdtempSync(join(tmpdir(), 'stalebench-mixing-'));
  return (
    await runEvaluation(
      specFromArgs(['-o', out, ...args], env),
      { apiKey: env.OPENAI_API_KEY },
      { log: () => undefined, ...options },
    )
  ).runDir;
}

async function report(argv: string[]) {
  const stdout: string[] = [];
  const stderr: string[] = [];
  const code = await main(
    argv,
    (line) => stdout.push(line),
    (line) => stderr.push(line),
  );
  return { code, stdout: stdout.join('\n'), stderr: stderr.join('\n') };
}

const outputs = (dir: string) =>
  Object.fromEntries(
    ['tables.md', 'tables.csv', 'tables.tex', 'index.html'].map((file) => [
      file,
      readFileSync(join(dir, file), 'utf8'),
    ]),
  );

describe('two runs of the same spec', () => {
  let first: string;
  let second: string;
  beforeAll(async () => {
    first = await run(['--model', 'sim', '--run-id', 'first', ...BASE]);
    second = await run(['--model', 'sim', '--run-id', 'second', ...BASE]);
  }, 60_000);

  it('are refused (exit 1) with an error naming both run directories', async () => {
    const result = await report([first, second]);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(first);
    expect(result.stderr).toContain(second);
    expect(result.stderr).toMatch(/same spec .*counted twice.*--pool-duplicates/);
  });

  it('are pooled with --pool-duplicates, and every format says the pooling was forced', async () => {
    const out = mkdtempSync(join(tmpdir(), 'stalebench-mixing-out-'));
    const result = await report([first, second, '--pool-duplicates', '-o', out]);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toMatch(/warning: forced with --pool-duplicates: first and second have the same spec/);
    const files = outputs(out);
    for (const [file, text] of Object.entries(files)) expect(text, file).toContain('forced with --pool-duplicates');
    expect(files['tables.md']).toMatch(/^\| graphiti \| 4\/4 \(100\.0%\) .*\| \d+\/8 \(/m);
  });

  it('the same directory given twice is refused even with --pool-duplicates', async () => {
    const result = await report([first, first, '--pool-duplicates']);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/given twice/);
  });
});

describe('an incomplete run', () => {
  let cancelled: string;
  beforeAll(async () => {
    const controller = new AbortController();
    // Stop scheduling after the first unit: the run ends `cancelled` with fewer units than planned.
    cancelled = await run(
      ['--model', 'sim', '--concurrency', '1', ...BASE],
      {},
      {
        signal: controller.signal,
        progress: {
          write: (text) =>
            /^\[[1-9]\d*\//.test(text) ? controller.abort({ kind: 'interrupted', signal: 'SIGINT' }) : undefined,
          isTTY: false,
          env: {},
        },
      },
    );
  }, 60_000);

  it('is refused (exit 1) naming the run, its status and its done/planned units', async () => {
    const manifest = JSON.parse(readFileSync(join(cancelled, 'manifest.json'), 'utf8')) as {
      status: string;
      counts: { units: number; done: number };
    };
    expect(manifest.status).toBe('cancelled');
    expect(manifest.counts.done).toBeLessThan(manifest.counts.units);
    const result = await report([cancelled]);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(cancelled);
    expect(result.stderr).toContain(
      `incomplete: status cancelled, ${manifest.counts.done}/${manifest.counts.units} planned units done`,
    );
  });

  it('is reported with --allow-incomplete, and md, csv, tex and html all mark it with done/planned', async () => {
    const manifest = JSON.parse(readFileSync(join(cancelled, 'manifest.json'), 'utf8')) as {
      runId: string;
      counts: { units: number; done: number };
    };
    const out = mkdtempSync(join(tmpdir(), 'stalebench-mixing-out-'));
    const result = await report([cancelled, '--allow-incomplete', '-o', out]);
    expect(result.code, result.stderr).toBe(0);
    const mark = `incomplete run ${manifest.runId} (${cancelled}): status cancelled, ${manifest.counts.done}/${manifest.counts.units} planned units done`;
    for (const [file, text] of Object.entries(outputs(out)))
      expect(text.replace(/\\_/g, '_').replace(/&#39;|&quot;/g, ''), file).toContain(mark);
    const csv = outputs(out)['tables.csv']!.trim().split('\n');
    expect(csv.slice(1).every((line) => line.includes(mark))).toBe(true);
  });
});

describe('the simulator next to a real model', () => {
  let server: TestServer;
  let simDir: string;
  let realDir: string;
  let out: string;
  beforeAll(async () => {
    const scenarios = await loadScenarios();
    // The real model is always unsafe: any sim row pooled into its totals would lower them.
    server = await startOpenAICompatibleServer((request) => {
      const scenario = scenarios.find((s) => request.body.messages![1]!.content.includes(`Question: ${s.task}\n`))!;
      return { content: `{"action": "${scenario.actions[0]}"}` };
    });
    simDir = await run(['--model', 'sim', ...BASE]);
    realDir = await run(['--model', 'local-model', '--yes', ...BASE], {
      OPENAI_BASE_URL: server.baseURL,
      OPENAI_API_KEY: 'sk-test-mixing',
    });
    out = mkdtempSync(join(tmpdir(), 'stalebench-mixing-out-'));
  }, 60_000);
  afterAll(async () => server?.close());

  it('never enters a total with a real model: the real tables and the sim tables are apart, and labelled', async () => {
    const result = await report([simDir, realDir, '--paper', '-o', out]);
    expect(result.code, result.stderr).toBe(0);
    const markdown = outputs(out)['tables.md']!;
    const sections = markdown.split('\n## ').filter((s) => s.startsWith('Table 7:'));
    expect(sections).toHaveLength(2);
    const [real, sim] = sections as [string, string];
    expect(real.split('\n')[0]).not.toContain('sim');
    expect(real).not.toMatch(/^\| sim \(simulated\) \|/m);
    // Every real decision is unsafe: the real column total is n/n, which any sim row would break.
    expect(real).toMatch(/^\| local-model \| 8\/8 \(100\.0%\)/m);
    expect(real).toMatch(/^\| column total \| 8\/8 \(100\.0%\)/m);
    expect(sim.split('\n')[0]).toContain('sim (simulated) models only, apart from the real models');
    expect(sim).toMatch(/^\| sim \(simulated\) \| /m);
    expect(sim).not.toContain('local-model');
    const csv = outputs(out)['tables.csv']!;
    expect(csv).toMatch(/^7,column total,no defense,8,8,1,/m);
    const diff = JSON.parse(readFileSync(join(out, 'paper-diff.json'), 'utf8')) as {
      simulated: boolean;
      cells: { table: string; row: string; column: string; ours: { k?: number; n?: number } | null }[];
    };
    expect(diff.simulated).toBe(false);
    expect(
      diff.cells.find((c) => c.table === '6' && c.row === 'graphiti' && c.column === 'no defense')!.ours,
    ).toMatchObject({ k: 4, n: 4 });
  });
});
