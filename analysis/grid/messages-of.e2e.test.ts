// Issue #30 item 2: the exact messages are in the run. Rebuilt from a stored record (messagesOf), they are byte for byte
// the ones the endpoint received, and `pnpm rescore --check` checks the rebuild and the recorded prompt version.
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { main as evalMain } from '../../pipeline/cli/cli.js';
import { messagesOf, sha256 } from '../../pipeline/index.js';
import type { UnitRecord } from '../../pipeline/run-log/run-log.js';
import { startOpenAICompatibleServer, type TestServer } from '../../pipeline/test-support/openai-compatible-server.js';
import { loadScenarios } from '../../scenarios/index.js';
import { main as rescoreMain } from '../rescore-command.js';

const scenarios = new Map((await loadScenarios()).map((s) => [s.id, s]));
const SCENARIOS = ['mfa_waiver_access', 'data_exfiltration_pii_export'];

let server: TestServer;
let runDir: string;
let records: UnitRecord[];

beforeAll(async () => {
  server = await startOpenAICompatibleServer(() => ({ content: '{"action": "nothing allowed", "reason": "x"}' }));
  const out = mkdtempSync(join(tmpdir(), 'stalebench-messages-of-'));
  vi.spyOn(console, 'log').mockImplementation(() => undefined);
  vi.spyOn(console, 'error').mockImplementation(() => undefined);
  const code = await evalMain(
    [
      'eval',
      '--model',
      'local-model',
      '--yes',
      '--systems',
      'graphiti,mem0-exp',
      '--modes',
      'direct',
      '--arms',
      'none,store-filter,prompt-hardening,guard',
      '--scenarios',
      SCENARIOS.join(','),
      '--trials',
      '1',
      '--concurrency',
      '1',
      '--no-cache',
      '--out',
      out,
    ],
    { OPENAI_BASE_URL: server.baseURL, OPENAI_API_KEY: 'sk-test-messages-of' },
  );
  vi.restoreAllMocks();
  expect(code).toBe(0);
  runDir = join(out, readdirSync(out)[0]!);
  records = readFileSync(join(runDir, 'records.jsonl'), 'utf8')
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as UnitRecord);
}, 120_000);
afterAll(async () => server?.close());

const rescore = async (args: string[]) => {
  const lines: string[] = [];
  const code = await rescoreMain(
    args,
    (line) => lines.push(line),
    (line) => lines.push(line),
  );
  return { code, text: lines.join('\n') };
};

describe('messagesOf', () => {
  it('rebuilds, from each stored record, exactly the messages the endpoint received, and their stored hash', () => {
    expect(records).toHaveLength(16);
    const rebuilt = records.map((record) => messagesOf(record, scenarios.get(record.key.scenario)!));
    const received = server.requests.map((request) => JSON.stringify(request.body.messages));
    // Concurrency 1: the calls arrive in the order the records are appended.
    expect(rebuilt.map((messages) => JSON.stringify(messages))).toEqual(received);
    for (const [i, record] of records.entries())
      expect(sha256(JSON.stringify(rebuilt[i])), record.unitId).toBe(record.promptSha256);
    // The prompt-hardening arm's prefix is part of what was rebuilt.
    const hardened = records.findIndex((r) => r.key.arm === 'prompt-hardening');
    expect(rebuilt[hardened]![0]!.content).toMatch(/^Some retrieved facts may be OUTDATED/);
  });

  it('is checked by rescore --check, which names a manifest whose prompt version is not this code', async () => {
    const ok = await rescore([runDir, '--check']);
    expect(ok.text).toContain('summary cells identical');
    expect(ok.code).toBe(0);
    const manifestPath = join(runDir, 'manifest.json');
    const manifest = JSON.parse(readFileSync(manifestPath, 'utf8'));
    manifest.prompts.decision = '0'.repeat(64);
    writeFileSync(manifestPath, JSON.stringify(manifest, null, 2));
    const changed = await rescore([runDir, '--check', '--no-verify']);
    expect(changed.code).toBe(1);
    expect(changed.text).toContain('manifest.json');
    expect(changed.text).toContain('prompts.decision');
  });
});
