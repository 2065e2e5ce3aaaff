// End-to-end (issue 11 item 1): every decision call of every unit is its own draw. Units whose prompts are
// byte-identical (graphiti and mem0-exp) must not share one cached reply; re-running a unit must hit the cache.
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { loadScenarios } from '../scenarios/index.js';
import type { AgentTrace, ToolsRecord, WritebackRecord } from './suites/follow-ups/follow-up-log.js';
import type { AgentStep } from './suites/follow-ups/tools/tool-agent.js';
import { main as rescore } from '../analysis/rescore-command.js';
import type { UnitRecord } from './run-log/run-log.js';
import { startOpenAICompatibleServer, type TestServer } from './test-support/openai-compatible-server.js';
import { runEvalCli as runCli } from './test-support/eval-cli.js';

const scenarios = await loadScenarios();
let server: TestServer | undefined;
afterEach(async () => {
  vi.restoreAllMocks();
  await server?.close();
  server = undefined;
});

const tmp = (prefix: string) => mkdtempSync(join(tmpdir(), prefix));
const onlyRunDir = (out: string) => join(out, readdirSync(out)[0]!);
const readLines = <T>(path: string): T[] =>
  readFileSync(path, 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as T);
const endpoint = (baseURL: string) => ({ OPENAI_BASE_URL: baseURL, OPENAI_API_KEY: 'sk-test-independent-draws' });

/** Answers the scenario's safe action, numbering every reply so a reused reply is visible in the records. */
async function numberedServer(): Promise<TestServer> {
  return startOpenAICompatibleServer((request, index) => {
    const user = request.body.messages!.at(-1)!.content;
    const scenario = scenarios.find(
      (s) => user.includes(s.task) || user.includes(`['${s.actions[0]}', '${s.actions[1]}']`),
    )!;
    return { content: JSON.stringify({ action: scenario.actions[1], reason: `draw ${index}` }) };
  });
}

describe('independent draws through the response cache', () => {
  it('graphiti and mem0-exp, direct, none, 2 trials: one request per unit; the same command again sends none', async () => {
    server = await numberedServer();
    const cacheDir = tmp('stalebench-cache-');
    const args = [
      '--model',
      'gpt-5-nano',
      '--systems',
      'graphiti,mem0-exp',
      '--modes',
      'direct',
      '--arms',
      'none',
      '--trials',
      '2',
      '--cache-dir',
      cacheDir,
    ];
    const firstOut = tmp('stalebench-runs-');
    const first = await runCli([...args, '--out', firstOut], endpoint(server.baseURL));
    expect(first.code, first.stderr).toBe(0);
    const records = readLines<UnitRecord>(join(onlyRunDir(firstOut), 'records.jsonl'));
    expect(records).toHaveLength(2 * scenarios.length * 2);
    expect(records.every((r) => r.status === 'ok' && r.reply!.cached === false)).toBe(true);
    // The premise: some units of the two systems send byte-identical bodies (otherwise this test proves nothing).
    const bodies = server.requests.map((r) => r.raw);
    const byPrompt = new Map<string, string[]>();
    for (const r of records) byPrompt.set(r.promptSha256, [...(byPrompt.get(r.promptSha256) ?? []), r.unitId]);
    expect(
      [...byPrompt.values()].some(
        (units) => units.some((u) => u.includes('/graphiti/')) && units.some((u) => u.includes('/mem0-exp/')),
      ),
    ).toBe(true);
    expect(server.requests).toHaveLength(records.length);
    expect(new Set(bodies).size).toBeLessThan(bodies.length);
    // Every unit got its own reply, and its record names the sample identity that drew it.
    expect(new Set(records.map((r) => r.reply!.text)).size).toBe(records.length);
    for (const r of records) expect(r.reply!.sample).toBe(`grid/${r.unitId}`);

    const secondOut = tmp('stalebench-runs-');
    const second = await runCli([...args, '--out', secondOut], endpoint(server.baseURL));
    expect(second.code, second.stderr).toBe(0);
    expect(server.requests).toHaveLength(records.length);
    const again = new Map(
      readLines<UnitRecord>(join(onlyRunDir(secondOut), 'records.jsonl')).map((r) => [r.unitId, r]),
    );
    expect(again.size).toBe(records.length);
    for (const r of records)
      expect(again.get(r.unitId)!.reply).toMatchObject({ cached: true, text: r.reply!.text, sample: r.reply!.sample });
  });

  it("the output filter still reuses the none arm's reply of the same trial: no request, and the record names that draw", async () => {
    server = await numberedServer();
    const out = tmp('stalebench-runs-');
    const args = [
      '--model',
      'gpt-5-nano',
      '--systems',
      'graphiti',
      '--modes',
      'direct',
      '--arms',
      'none,output-filter',
      '--trials',
      '1',
      '--cache-dir',
      tmp('stalebench-cache-'),
      '--out',
      out,
    ];
    const result = await runCli(args, endpoint(server.baseURL));
    expect(result.code, result.stderr).toBe(0);
    const records = readLines<UnitRecord>(join(onlyRunDir(out), 'records.jsonl'));
    const filtered = records.filter((r) => r.key.arm === 'output-filter');
    expect(filtered).toHaveLength(scenarios.length);
    expect(server.requests).toHaveLength(scenarios.length);
    for (const r of filtered) expect(r.reply!.sample).toBe(`grid/${r.unitId.replace('/output-filter/', '/none/')}`);
  });

  it('writeback: two decisions of one unit with identical bodies (the guard leaves both reads equal) each get their own request', async () => {
    const scenario = scenarios.find((s) => s.id === 'destructive_op_delete_backups')!;
    server = await startOpenAICompatibleServer((_, index) => ({
      content: JSON.stringify({ action: scenario.actions[0], reason: `draw ${index}` }),
    }));
    const out = tmp('stalebench-runs-');
    const args = [
      '--experiment',
      'writeback',
      '--model',
      'gpt-5-nano',
      '--systems',
      'graphiti',
      '--scenarios',
      scenario.id,
      '--arms',
      'direct',
      '--guard',
      'on',
      '--trials',
      '1',
      '--hops',
      '2',
    ];
    const result = await runCli(
      [...args, '--cache-dir', tmp('stalebench-cache-'), '--out', out],
      endpoint(server.baseURL),
    );
    expect(result.code, result.stderr).toBe(0);
    const [record] = readLines<WritebackRecord>(join(onlyRunDir(out), 'writeback.jsonl'));
    const traces = [
      record!.hop0!,
      record!.hop0Filtered!,
      ...record!.hops.flatMap((hop) => [hop.default, hop.filtered]),
    ];
    expect(traces).toHaveLength(6);
    // The premise: hop 0 default and filtered sent the same messages.
    expect(JSON.stringify(record!.hop0!.messages)).toBe(JSON.stringify(record!.hop0Filtered!.messages));
    expect(server.requests).toHaveLength(6);
    expect(traces.map((t) => t.reply!.sample)).toEqual(
      ['hop0:default', 'hop0:filtered', 'hop1:default', 'hop1:filtered', 'hop2:default', 'hop2:filtered'].map(
        (step) => `${record!.unitId}#${step}`,
      ),
    );
    expect(new Set(traces.map((t) => t.reply!.text)).size).toBe(6);
  });

  it("tools: every agent step of every episode (relapse priming included) draws on its own, though priming repeats the first episode's prompt", async () => {
    server = await startOpenAICompatibleServer((request, index) => {
      const step = request.body.messages!.filter((m) => m.role === 'assistant').length;
      return {
        content:
          step === 0
            ? JSON.stringify({ tool: 'read_file', args: { path: '.env' }, note: `draw ${index}` })
            : '{"tool": "finish", "args": {"summary": "done"}}',
      };
    });
    const out = tmp('stalebench-runs-');
    const args = [
      '--experiment',
      'tools',
      '--model',
      'gpt-5-nano',
      '--systems',
      'graphiti',
      '--scenarios',
      'secret_exfiltration_env',
      '--arms',
      'none',
      '--trials',
      '1',
    ];
    const result = await runCli(
      [...args, '--cache-dir', tmp('stalebench-cache-'), '--out', out],
      endpoint(server.baseURL),
    );
    expect(result.code, result.stderr).toBe(0);
    const [record] = readLines<ToolsRecord>(join(onlyRunDir(out), 'tools.jsonl'));
    const episodes = {
      agent: record!.agent!,
      'relapse-priming': record!.relapse!.priming,
      'relapse-default': record!.relapse!.default,
      'relapse-filtered': record!.relapse!.filtered,
    };
    // The premise: the priming episode sends the first episode's opening messages.
    expect(JSON.stringify(episodes['relapse-priming'].steps[0]!.messages)).toBe(
      JSON.stringify(episodes.agent.steps[0]!.messages),
    );
    const samples = Object.entries(episodes).flatMap(([name, trace]) =>
      trace.steps.map((step) => [step.sample, `${record!.unitId}#${name}#step${trace.steps.indexOf(step)}`]),
    );
    for (const [sample, expected] of samples) expect(sample).toBe(expected);
    expect(server.requests).toHaveLength(samples.length);
    expect(samples).toHaveLength(8);
  });

  it('a tools run written before agent steps recorded their sample identity still rescores identically', async () => {
    const out = tmp('stalebench-runs-');
    expect(
      (
        await runCli(
          [
            '--experiment',
            'tools',
            '--model',
            'sim',
            '--systems',
            'graphiti',
            '--arms',
            'none',
            '--trials',
            '2',
            '--out',
            out,
          ],
          {},
        )
      ).code,
    ).toBe(0);
    const path = join(onlyRunDir(out), 'tools.jsonl');
    const records = readLines<ToolsRecord>(path);
    const strip = (trace: AgentTrace | null | undefined) =>
      trace?.steps.forEach((step) => {
        delete (step as Partial<AgentStep>).sample;
      });
    for (const record of records) {
      [record.agent, record.relapse?.priming, record.relapse?.default, record.relapse?.filtered].forEach(strip);
      // Runs of that time had no per-call list either (issue #12 added it).
      delete (record as { calls?: unknown }).calls;
    }
    writeFileSync(path, records.map((record) => `${JSON.stringify(record)}\n`).join(''));
    expect(readFileSync(path, 'utf8')).not.toContain('"sample"');
    const lines: string[] = [];
    // The rewritten lines break the hash chain, as a run older than the chain has none: both are read with --no-verify.
    const code = await rescore(
      [onlyRunDir(out), '--check', '--no-verify'],
      (line) => void lines.push(line),
      (line) => void lines.push(line),
    );
    expect(code, lines.join('\n')).toBe(0);
  });
});
