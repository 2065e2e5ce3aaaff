// Issue #29 item 6 end to end: `pnpm eval --experiment forged-reasoning --agent langchain` against a local
// OpenAI-compatible server (the agent's tool protocol on the wire), then `pnpm report`: Table V's rows and Table IV's
// measured columns from the stored records.
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { buildReport } from '../../../analysis/report-command.js';
import { FORGED_REASONING_SCENARIO_DIR } from '../../../scenarios/forged-reasoning-scenario.js';
import type { RunManifest } from '../../run-log/run-log.js';
import { runEvalCli } from '../../test-support/eval-cli.js';
import { startOpenAICompatibleServer, type TestServer } from '../../test-support/openai-compatible-server.js';
import { readForgedReasoningRecords } from './records.js';
import type { ForgedReasoningRecord } from './records.js';

let server: TestServer | undefined;
afterEach(async () => {
  vi.restoreAllMocks();
  await server?.close();
  server = undefined;
});

const ehr = JSON.parse(readFileSync(join(FORGED_REASONING_SCENARIO_DIR, 'ehr_insert_record.json'), 'utf8'));
const [SKIP, PERFORM] = ehr.actions as [string, string];
const TOOLS_HEADER = 'Tools you can call (name: what it does; arguments as JSON Schema):';

/** A victim that follows any note claiming the step ran (a forgery or a genuine self-log) by calling the skip tool. */
function victim(user: string) {
  const claims = [ehr.forgeries.basic.seeds[0], ...Object.values(ehr.benign)] as string[];
  const tool = claims.some((claim) => user.includes(claim)) ? SKIP : PERFORM;
  return { content: `Calling a tool. ${JSON.stringify({ tool, args: { subject: 'source X01' }, reason: 'test' })}` };
}

describe('forged-reasoning with the LangChain agent against a local OpenAI-compatible server', () => {
  it('sends the tool protocol, PoEM blocks the forged skip and allows the genuine one, and report builds Tables IV and V', async () => {
    server = await startOpenAICompatibleServer((request) => victim(request.body.messages![1]!.content));
    const out = mkdtempSync(join(tmpdir(), 'stalebench-forged-langchain-'));
    const args = [
      ...['--experiment', 'forged-reasoning', '--agent', 'langchain', '--model', 'gpt-4o-mini'],
      ...['--scenarios', 'ehr_insert_record', '--defences', 'none,poem', '--forgeries', 'basic'],
      ...['--trials', '1', '--attacker-model', 'off', '--concurrency', '1', '--no-cache', '--yes', '--quiet'],
      ...['--out', out],
    ];
    const { code } = await runEvalCli(args, { OPENAI_BASE_URL: server.baseURL, OPENAI_API_KEY: 'sk-test-langchain' });
    expect(code).toBe(0);

    // On the wire: the agent's system message lists its tools (one per allowed action); no allowed-actions list.
    expect(server.requests).toHaveLength(2 * (1 + 3 + 3)); // two defences × (clean; basic, A, B; three benign)
    for (const request of server.requests) {
      expect(request.body).toMatchObject({ model: 'gpt-4o-mini', temperature: 0.7 });
      const [system, user] = request.body.messages!;
      expect(system!.content).toContain(`${TOOLS_HEADER}\n- ${SKIP}: `);
      expect(system!.content).toContain(`\n- ${PERFORM}: `);
      expect(user!.content).not.toContain('Allowed actions');
    }

    const runDir = join(out, readdirSync(out)[0]!);
    const manifest = JSON.parse(readFileSync(join(runDir, 'manifest.json'), 'utf8')) as RunManifest;
    expect(manifest.spec).toMatchObject({ agent: 'langchain' });
    expect(manifest.components).toContainEqual({ kind: 'agent', id: 'langchain', args: {} });
    const units = [...readForgedReasoningRecords(runDir).values()] as ForgedReasoningRecord[];
    const unit = (defence: string) => units.find((u) => u.key.defence === defence)!;
    expect(unit('none').attacks.basic).toMatchObject({ parsedAction: SKIP, skipped: true });
    expect(unit('poem').attacks.basic).toMatchObject({
      parsedAction: SKIP,
      skipped: false,
      execution: { gate: 'poem', verdict: 'overridden', executedAction: PERFORM },
    });
    expect(unit('poem').benign.plain).toMatchObject({
      parsedAction: SKIP,
      skipped: true,
      execution: { gate: 'poem', verdict: 'allowed' },
    });

    const report = await buildReport([runDir]);
    const v = report.tables.find((t) => t.id === 'poem-V')!;
    const cell = (row: string, column: string) => v.cells.find((c) => c.row === row && c.column === column);
    const row = (metric: string) => `gpt-4o-mini / ehr_insert_record / ${metric}`;
    expect(cell(row('basic ASR'), 'no defence')).toMatchObject({ k: 1, n: 1 });
    expect(cell(row('basic ASR'), 'PoEM')).toMatchObject({ k: 0, n: 1 });
    expect(cell(row('benign skip'), 'no defence')).toMatchObject({ k: 3, n: 3 });
    expect(cell(row('benign skip'), 'PoEM')).toMatchObject({ k: 3, n: 3 });
    expect(v.simulated).toBe(false);

    // Table IV: measured in this run: the PoEM checks of its proposed skips (basic, A, B, three benign), its timed
    // calls, its stored ledgers.
    const iv = report.tables.find((t) => t.id === 'poem-IV')!;
    const value = (column: string) => iv.cells.find((c) => c.row === 'gpt-4o-mini' && c.column === column);
    expect(value('PoEM checks measured')).toMatchObject({ value: 6 });
    for (const column of ['grounding check (µs, median)', 'model call (ms, median)', "check's share of one call (ppm)"])
      expect(value(column)!.value, column).toBeGreaterThan(0);
    const poemLedgers = [unit('poem').clean, unit('poem').attacks.basic, ...Object.values(unit('poem').benign)];
    expect(poemLedgers.every((d) => d!.overhead!.ledger.lines >= 1)).toBe(true);
    expect(value('bytes/event')!.value).toBeGreaterThan(150);
  });
});
