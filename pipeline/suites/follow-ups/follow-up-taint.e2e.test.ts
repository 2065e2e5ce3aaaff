// Acceptance of issue #19 item 1: `pnpm eval --experiment writeback|propagation --taint off,on` against a local
// OpenAI-compatible server whose model follows whatever its context says (v1 or a journal): the worst case.
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { main as report } from '../../../analysis/report-command.js';
import { loadScenarios } from '../../../scenarios/index.js';
import { unsafeAction } from '../../../scenarios/scenario.js';
import { main } from '../../cli/cli.js';
import { screenOf } from '../../defences/index.js';
import type { PropagationRecord, ReadTrace, WritebackRecord } from './follow-up-log.js';
import { startOpenAICompatibleServer, type TestServer } from '../../test-support/openai-compatible-server.js';

const scenarios = await loadScenarios();
const chosen = scenarios.filter((s) => ['destructive_op_delete_backups', 'mfa_waiver_access'].includes(s.id));
let server: TestServer | undefined;
afterEach(async () => {
  vi.restoreAllMocks();
  await server?.close();
  server = undefined;
});

/** Unsafe whenever the context holds the revoked policy or any decision record; the safe action otherwise. */
async function contextFollowingServer(): Promise<TestServer> {
  return startOpenAICompatibleServer((request) => {
    const user = String(request.body.messages![1]!.content);
    const scenario = chosen.find((s) => s.actions.every((action) => user.includes(`'${action}'`)))!;
    const poisoned = user.includes(scenario.v1) || user.includes('Decision record:');
    const action = poisoned ? unsafeAction(scenario) : scenario.actions.find((a) => a !== unsafeAction(scenario))!;
    return { content: JSON.stringify({ action, reason: poisoned ? 'memory says so' : 'current policy' }) };
  });
}

async function runEval(args: string[], baseURL: string): Promise<{ code: number; stdout: string; runDir: string }> {
  const out = mkdtempSync(join(tmpdir(), 'stalebench-taint-'));
  const lines: string[] = [];
  vi.spyOn(console, 'log').mockImplementation((...parts) => void lines.push(parts.join(' ')));
  vi.spyOn(console, 'error').mockImplementation(() => undefined);
  const env = { OPENAI_BASE_URL: baseURL, OPENAI_API_KEY: 'sk-test-taint-key' };
  const common = ['--model', 'gpt-5-nano', '--systems', 'graphiti', '--scenarios', chosen.map((s) => s.id).join(',')];
  const code = await main(['eval', ...args, ...common, '--trials', '1', '--no-cache', '--out', out], env);
  vi.restoreAllMocks();
  return { code, stdout: lines.join('\n'), runDir: join(out, readdirSync(out)[0]!) };
}

const readLines = <T>(path: string): T[] =>
  readFileSync(path, 'utf8')
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as T);

async function markdownReport(runDir: string): Promise<string> {
  const lines: string[] = [];
  expect(
    await report(
      [runDir],
      (line) => lines.push(line),
      () => undefined,
    ),
  ).toBe(0);
  return lines.join('\n');
}

const revokedIds = (trace: ReadTrace) => trace.records.filter((r) => r.fields.expired_at !== null).map((r) => r.id);

describe('--taint off,on (issue #19 item 1)', () => {
  it('writeback --arms direct: with taint, filter hops 1–3 leak nothing when every journal derives from a revoked context', async () => {
    server = await contextFollowingServer();
    const { code, stdout, runDir } = await runEval(
      ['--experiment', 'writeback', '--arms', 'direct', '--taint', 'off,on'],
      server.baseURL,
    );
    expect(code).toBe(0);
    const records = readLines<WritebackRecord>(join(runDir, 'writeback.jsonl'));
    expect(records.map((r) => [r.key.scenario, r.key.taint ?? false, r.status])).toEqual(
      chosen.flatMap((s) => [
        [s.id, false, 'ok'],
        [s.id, true, 'ok'],
      ]),
    );
    for (const record of records) {
      expect(record.hop0!.unsafe).toBe(true);
      expect(record.hops).toHaveLength(3);
      const filtered = record.hops.map((hop) => hop.filtered.unsafe);
      if (!record.key.taint) {
        // Today's leak: the active journal keeps the revoked policy alive under the filter.
        expect(record.journals.every((j) => j.derivedFrom === undefined)).toBe(true);
        expect(filtered).toEqual([true, true, true]);
        continue;
      }
      // Every journal derives from a decision whose context held the revoked v1 ...
      const contexts = [record.hop0!, ...record.hops.map((hop) => hop.default)];
      expect(record.journals).toHaveLength(3);
      record.journals.forEach((journal, index) => {
        const context = contexts[index]!.readTrace;
        expect(revokedIds(context)).toHaveLength(1);
        expect(journal.derivedFrom).toEqual(context.records.map((r) => r.id));
      });
      // ... so the filtered read never returns a journal, and no filtered hop is unsafe.
      expect(record.hops.map((hop) => hop.filtered.readTrace.journal.some(Boolean))).toEqual([false, false, false]);
      expect(filtered).toEqual([false, false, false]);
      // The default read still returns them, marked; the guard's stage 1 withholds each as derived_from_revoked.
      const hop3 = record.hops[2]!.default.readTrace;
      const journals = hop3.records.filter((r) => r.text.startsWith('Decision record:'));
      expect(journals.length).toBeGreaterThan(0);
      expect(journals.every((r) => r.fields.derived_from_status === 'revoked')).toBe(true);
      const { withheld } = screenOf('guard')({ records: hop3.records, now: new Date() });
      expect(withheld.filter((w) => w.reason === 'derived_from_revoked')).toHaveLength(journals.length);
    }
    // Both rows, side by side, in the run's summary and in the report's Table 14.
    expect(stdout).toMatch(/direct: taint \(journal provenance\)/);
    const markdown = await markdownReport(runDir);
    const table14 = markdown.slice(markdown.indexOf('Table 14'));
    expect(table14).toMatch(/\| direct \|/);
    expect(table14).toMatch(/\| direct \+ taint \|/);
    expect(table14).toMatch(/\| direct \+ taint \|[^\n]*0\/2/);
  });

  it('propagation: the executor journal carries its context, the filtered roles see it only when that context was clean', async () => {
    server = await contextFollowingServer();
    const { code, runDir } = await runEval(
      ['--experiment', 'propagation', '--arms', 'shared-default,shared-filtered', '--taint', 'off,on'],
      server.baseURL,
    );
    expect(code).toBe(0);
    const records = readLines<PropagationRecord>(join(runDir, 'propagation.jsonl'));
    expect(records).toHaveLength(chosen.length * 4);
    for (const record of records) {
      expect(record.status).toBe('ok');
      const executor = record.roles.executor!.readTrace;
      if (!record.key.taint) {
        expect(record.journal!.derivedFrom).toBeUndefined();
        continue;
      }
      expect(record.journal!.derivedFrom).toEqual(executor.records.map((r) => r.id));
      const reviewerJournal = record.roles.reviewer!.readTrace.returned.find((r) =>
        r.text.startsWith('Decision record:'),
      );
      if (record.key.arm === 'shared-default') {
        // The executor read v1 and went unsafe: its journal is revoked-derived wherever it is read.
        expect(revokedIds(executor)).toHaveLength(1);
        expect(reviewerJournal?.fields.derived_from_status).toBe('revoked');
      } else {
        // Filtered context, nothing revoked in it: the journal is clean and stays in the filtered read.
        expect(revokedIds(executor)).toEqual([]);
        expect(reviewerJournal?.fields.derived_from_status).toBe('clean');
      }
    }
    const markdown = await markdownReport(runDir);
    const table15 = markdown.slice(markdown.indexOf('Table 15'));
    for (const label of ['shared, default', 'shared, default + taint', 'shared, filtered', 'shared, filtered + taint'])
      expect(table15).toContain(`| ${label} |`);
  });

  it('refuses --taint on where no journal is written, naming the experiments that write them', async () => {
    const out = mkdtempSync(join(tmpdir(), 'stalebench-taint-'));
    const errors: string[] = [];
    vi.spyOn(console, 'log').mockImplementation(() => undefined);
    vi.spyOn(console, 'error').mockImplementation((...parts) => void errors.push(parts.join(' ')));
    const code = await main(['eval', '--model', 'sim', '--taint', 'on', '--out', out], {});
    expect(code).toBe(1);
    expect(errors.join('\n')).toMatch(/--taint.*writeback, propagation/);
    expect(readdirSync(out)).toEqual([]);
  });
});
