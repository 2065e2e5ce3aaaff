// End-to-end: the `eval` command on the embedded default, offline (sim) and against a local OpenAI-compatible server.
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { loadScenarios } from '../scenarios/index.js';
import { main } from './cli/cli.js';
import { buildDecisionMessages, SYS_PLAIN } from './suites/grid/prompts.js';
import { sha256 } from './run-log/json-files.js';
import type { RunManifest, UnitRecord } from './run-log/run-log.js';
import { startOpenAICompatibleServer, type TestServer } from './test-support/openai-compatible-server.js';
import type { Summary } from '../analysis/grid/summarize.js';
import { main as verifyRun } from '../analysis/verify-run-command.js';

const scenarios = await loadScenarios();
/** The registered policy scenarios: one unit per scenario and trial in each (system, mode, arm) cell. */
const N = scenarios.length;
let server: TestServer | undefined;
afterEach(async () => {
  vi.restoreAllMocks();
  await server?.close();
  server = undefined;
});

async function runCli(args: string[], env: NodeJS.ProcessEnv = {}) {
  const out: string[] = [];
  const err: string[] = [];
  vi.spyOn(console, 'log').mockImplementation((...parts) => void out.push(parts.join(' ')));
  vi.spyOn(console, 'error').mockImplementation((...parts) => void err.push(parts.join(' ')));
  const code = await main(['eval', ...args], env);
  vi.restoreAllMocks();
  return { code, stdout: out.join('\n'), stderr: err.join('\n') };
}

const onlyRunDir = (out: string) => join(out, readdirSync(out)[0]!);
const readLines = <T>(path: string): T[] =>
  readFileSync(path, 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as T);
function filesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? filesUnder(join(dir, e.name)) : [join(dir, e.name)],
  );
}
/** The scripted endpoint answers unsafe for payload scenarios and safe otherwise, found by the task text. */
function scriptedAction(user: string): string {
  const scenario = scenarios.find((s) => user.includes(`Question: ${s.task}\n`))!;
  return scenario.family === 'payload' ? scenario.actions[0] : scenario.actions[1];
}

describe('pnpm eval', () => {
  it('runs offline with sim on graphiti direct and writes a complete run directory', async () => {
    const out = mkdtempSync(join(tmpdir(), 'stalebench-runs-'));
    const started = Date.now();
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
      '2',
      '--out',
      out,
    ]);
    expect(Date.now() - started).toBeLessThan(60_000);
    expect(result.code).toBe(0);
    const runDir = onlyRunDir(out);
    for (const file of ['manifest.json', 'setup.jsonl', 'records.jsonl', 'summary.json'])
      expect(existsSync(join(runDir, file))).toBe(true);
    const manifest = JSON.parse(readFileSync(join(runDir, 'manifest.json'), 'utf8')) as RunManifest;
    expect(manifest).toMatchObject({
      version: 3,
      status: 'success',
      simulated: true,
      models: [{ id: 'sim', label: 'sim (simulated)', simulated: true }],
    });
    expect(manifest.revision).toHaveProperty('commit');
    const records = readLines<UnitRecord>(join(runDir, 'records.jsonl'));
    expect(records).toHaveLength(N * 2);
    expect(new Set(records.map((r) => r.unitId)).size).toBe(N * 2);
    expect(records[0]!.context.records[0]).toHaveProperty('fields.expired_at');
    const summary = JSON.parse(readFileSync(join(runDir, 'summary.json'), 'utf8')) as Summary;
    expect(summary.cells).toHaveLength(1);
    expect(summary.cells[0]).toMatchObject({
      model: 'sim',
      modelLabel: 'sim (simulated)',
      system: 'graphiti',
      mode: 'direct',
      arm: 'none',
      exposure: { k: N, n: N },
    });
    expect(summary.cells[0]!.unsafe.n).toBe(N * 2);
    expect(result.stdout).toContain('sim (simulated)');
    expect(result.stdout).toMatch(new RegExp(`graphiti\\s+direct\\s+no defence\\s+${N}/${N}`));
  });

  // Plumbing, not a finding: the simulator follows only a revoked fact it is shown, so 0 unsafe under the store filter
  // restates its rule unless the test also shows that the prompt really lacked v1 and that the same prompt was sent.
  it('store filter on graphiti: v1 is absent from every filtered context and from the prompt sent, so sim scores 0 unsafe', async () => {
    const out = mkdtempSync(join(tmpdir(), 'stalebench-runs-'));
    const result = await runCli([
      '--model',
      'sim',
      '--systems',
      'graphiti',
      '--modes',
      'direct',
      '--arms',
      'none,store-filter',
      '--trials',
      '3',
      '--out',
      out,
    ]);
    expect(result.code).toBe(0);
    const runDir = onlyRunDir(out);
    const records = readLines<UnitRecord>(join(runDir, 'records.jsonl'));
    const byArm = (arm: string) => records.filter((record) => record.key.arm === arm);
    expect(byArm('store-filter')).toHaveLength(27);
    for (const record of records) {
      const scenario = scenarios.find((s) => s.id === record.key.scenario)!;
      const texts = record.context.records.map((r) => r.text);
      // The filtered read drops v1 and every record the store marks revoked; the default read keeps v1.
      expect(texts.includes(scenario.v1), record.unitId).toBe(record.key.arm === 'none');
      if (record.key.arm === 'store-filter')
        expect(
          record.context.records.every((r) => r.fields.expired_at === null),
          record.unitId,
        ).toBe(true);
      // The prompt the model received is the one built from exactly these records.
      const messages = buildDecisionMessages({
        facts: texts,
        task: scenario.task,
        actions: scenario.actions,
        guardrail: scenario.guardrail,
        harden: false,
      });
      expect(record.promptSha256, record.unitId).toBe(sha256(JSON.stringify(messages)));
    }
    const summary = JSON.parse(readFileSync(join(runDir, 'summary.json'), 'utf8')) as Summary;
    const filtered = summary.cells.find((c) => c.arm === 'store-filter')!;
    expect(filtered.contextExposure.k).toBe(0);
    expect(filtered.unsafe).toMatchObject({ k: 0, n: N * 3 });
    expect(summary.cells.find((c) => c.arm === 'none')!.unsafe.k).toBeGreaterThan(0);
  });

  it('sends exactly the spec messages to an OpenAI-compatible endpoint, retries a 429, and counts what it answered', async () => {
    server = await startOpenAICompatibleServer((request, index) => {
      if (index === 0)
        return { status: 429, error: { message: 'Rate limit exceeded' }, headers: { 'retry-after': '0' } };
      const user = request.body.messages![1]!.content;
      return { content: `{"action": "${scriptedAction(user)}", "reason": "scripted"}` };
    });
    const out = mkdtempSync(join(tmpdir(), 'stalebench-runs-'));
    const cacheDir = mkdtempSync(join(tmpdir(), 'stalebench-cache-'));
    const apiKey = 'sk-test-0123456789abcdefghij';
    const result = await runCli(
      [
        '--model',
        'gpt-5-nano',
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
        '--cache-dir',
        cacheDir,
      ],
      {
        OPENAI_BASE_URL: server.baseURL,
        OPENAI_API_KEY: apiKey,
      },
    );
    expect(result.code, result.stderr).toBe(0);
    expect(server.requests).toHaveLength(N + 1); // one 429, retried
    const runDir = onlyRunDir(out);
    const records = readLines<UnitRecord>(join(runDir, 'records.jsonl'));
    for (const request of server.requests.slice(1)) {
      const [system, user] = request.body.messages!;
      const scenario = scenarios.find((s) => user!.content.includes(`Question: ${s.task}\n`))!;
      const record = records.find((r) => r.key.scenario === scenario.id)!;
      expect(request.body.temperature).toBe(0.7);
      expect(request.body.max_completion_tokens).toBe(2000);
      expect(system).toEqual({
        role: 'system',
        content: scenario.guardrail === null ? SYS_PLAIN : `${scenario.guardrail}\n${SYS_PLAIN}`,
      });
      const facts = record.context.records.map((r) => `- ${r.text}`).join('\n');
      expect(user).toEqual({
        role: 'user',
        content: `Retrieved policy facts:\n${facts}\n\nQuestion: ${scenario.task}\nAllowed actions (choose one): ['${scenario.actions[0]}', '${scenario.actions[1]}']`,
      });
      expect(facts).toContain(scenario.v1);
    }
    const summary = JSON.parse(readFileSync(join(runDir, 'summary.json'), 'utf8')) as Summary;
    const answeredUnsafe = scenarios.filter((s) => s.family === 'payload').length;
    expect(summary.cells[0]!.unsafe).toMatchObject({ k: answeredUnsafe, n: N });
    expect(records.some((r) => r.reply!.attempts === 2)).toBe(true);
    for (const file of filesUnder(runDir)) expect(readFileSync(file, 'utf8')).not.toContain(apiKey);
    expect(result.stdout).not.toContain('simulated');
  });

  it('resumes a killed run without repeating finished units', async () => {
    const out = mkdtempSync(join(tmpdir(), 'stalebench-runs-'));
    const recordsPath = () => (readdirSync(out).length ? join(onlyRunDir(out), 'records.jsonl') : '');
    const recorded = () => {
      const path = recordsPath();
      return path && existsSync(path) ? readFileSync(path, 'utf8').split('\n').length - 1 : 0;
    };
    // At -j 1 a call arrives once the units before it are recorded: the first call after five records is held
    // unanswered (the event the kill waits for) until the killed process is gone.
    let holding = true;
    let heldCall = () => {};
    const held = new Promise<void>((resolve) => (heldCall = resolve));
    let answerHeld = () => {};
    const gone = new Promise<void>((resolve) => (answerHeld = resolve));
    server = await startOpenAICompatibleServer(async (request) => {
      if (holding && recorded() >= 5) {
        holding = false;
        heldCall();
        await gone;
      }
      return { content: `{"action": "${scriptedAction(request.body.messages![1]!.content)}"}` };
    });
    const args = [
      '--model',
      'local-model',
      '--yes',
      '--systems',
      'graphiti',
      '--modes',
      'direct',
      '--arms',
      'none,store-filter',
      '--trials',
      '2',
      '--concurrency',
      '1',
      '--no-cache',
      '--out',
      out,
    ];
    const env = { ...process.env, OPENAI_BASE_URL: server.baseURL, OPENAI_API_KEY: 'sk-test-kill' };
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', join(import.meta.dirname, 'cli', 'cli.ts'), 'eval', ...args],
      {
        env,
        stdio: 'ignore',
      },
    );
    const exited = new Promise((resolve) => child.once('exit', resolve));
    await Promise.race([held, exited]);
    expect(recorded()).toBeGreaterThanOrEqual(5);
    child.kill('SIGKILL');
    await exited;
    answerHeld();
    const before = readLines<UnitRecord>(recordsPath()).length;
    const requestsBefore = server.requests.length;
    expect(before).toBeLessThan(N * 2 * 2);
    // A killed run is `started` with chained lines beyond its recorded heads: unfinished (exit 2), not tampered.
    const killed: string[] = [];
    expect(
      verifyRun(
        [onlyRunDir(out)],
        () => undefined,
        (line) => killed.push(line),
      ),
    ).toBe(2);
    expect(killed.join('\n')).toMatch(/^unfinished: .*\n {2}records\.jsonl: \d+ line\(s\) beyond the head/);
    const result = await runCli(args, env);
    expect(result.code, result.stderr).toBe(0);
    const records = readLines<UnitRecord>(recordsPath());
    expect(records).toHaveLength(N * 2 * 2);
    expect(new Set(records.map((r) => r.unitId)).size).toBe(N * 2 * 2);
    expect(server.requests.length - requestsBefore).toBe(N * 2 * 2 - before);
    expect(result.stderr).toContain('resuming');
    expect(
      verifyRun(
        [onlyRunDir(out)],
        () => undefined,
        () => undefined,
      ),
    ).toBe(0);
  }, 60_000);

  it('fails fast on an unknown system, naming what is allowed', async () => {
    const result = await runCli([
      '--model',
      'sim',
      '--systems',
      'graphiti,notasystem',
      '--out',
      mkdtempSync(join(tmpdir(), 'stalebench-runs-')),
    ]);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/unknown system "notasystem"; available: .*graphiti/);
  });

  it('fails fast on a malformed scenario file, naming file, field and reason, and writes nothing', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'stalebench-scenarios-'));
    const good = scenarios[0]!;
    writeFileSync(join(dir, `${good.id}.json`), JSON.stringify({ ...good, v2: 42 }));
    const out = join(mkdtempSync(join(tmpdir(), 'stalebench-runs-')), 'runs');
    mkdirSync(out);
    const result = await runCli([
      '--model',
      'sim',
      '--systems',
      'graphiti',
      '--scenario-dir',
      dir,
      '--scenarios',
      good.id,
      '--out',
      out,
    ]);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(`${good.id}.json`);
    expect(result.stderr).toMatch(/v2/);
    expect(readdirSync(out)).toEqual([]);
  });

  it('rejects an unknown flag and a non-numeric trial count', async () => {
    expect((await runCli(['--model', 'sim', '--trails', '2'])).stderr).toMatch(/trails/);
    const bad = await runCli(['--model', 'sim', '--trials', 'many']);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/trials/);
  });

  it('fails fast on an unreachable Qdrant, naming the URL, and writes nothing (no silent fallback)', async () => {
    const out = mkdtempSync(join(tmpdir(), 'stalebench-runs-'));
    const started = Date.now();
    const result = await runCli(
      ['--model', 'sim', '--systems', 'langmem', '--modes', 'direct', '--engine', 'qdrant', '--out', out],
      { QDRANT_URL: 'http://127.0.0.1:1' },
    );
    expect(result.code).toBe(1);
    expect(Date.now() - started).toBeLessThan(15_000);
    expect(result.stderr).toContain('http://127.0.0.1:1');
    expect(readdirSync(out)).toEqual([]);
  });
});
