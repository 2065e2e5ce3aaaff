// `pnpm run cache stats|explain|clear` over a cache filled by the real decision model from a local endpoint.
import { existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { main, parseDuration } from './cache-command.js';
import { createOpenAIDecisionModel } from '../models/openai-decision-model.js';
import { cacheEntryPath, createResponseCache } from '../models/response-cache.js';
import { startOpenAICompatibleServer, type TestServer } from '../test-support/openai-compatible-server.js';

let server: TestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

function run(argv: string[], now?: Date) {
  const out: string[] = [];
  const err: string[] = [];
  const code = main(
    argv,
    (line) => void out.push(line),
    (line) => void err.push(line),
    now,
  );
  return { code, out: out.join('\n'), err: err.join('\n') };
}

/** A cache with two replies (two samples of one prompt) and the model's key for each. */
async function filledCache() {
  const dir = mkdtempSync(join(tmpdir(), 'stalebench-cache-'));
  server = await startOpenAICompatibleServer((_, index) => ({
    content: `{"action": "REJECT", "reason": "draw ${index}"}`,
  }));
  const model = createOpenAIDecisionModel({
    model: 'gpt-5-nano',
    baseURL: server.baseURL,
    apiKey: 'sk-test-cache-command',
    cache: createResponseCache({ dir, enabled: true }),
  });
  const messages = [
    { role: 'system' as const, content: 'S' },
    { role: 'user' as const, content: 'U' },
  ];
  const a = await model.decide({ messages, trial: 1, sample: 'grid/s/graphiti/direct/none/gpt-5-nano/1' });
  const b = await model.decide({ messages, trial: 1, sample: 'grid/s/mem0-exp/direct/none/gpt-5-nano/1' });
  return { dir, keys: [a.cacheKey!, b.cacheKey!] };
}

const setStoredAt = (dir: string, key: string, storedAt: string) => {
  const path = cacheEntryPath(dir, key);
  writeFileSync(path, JSON.stringify({ ...JSON.parse(readFileSync(path, 'utf8')), storedAt }));
};

describe('pnpm run cache', () => {
  it('stats: entries, bytes, by schema and model, oldest and newest', async () => {
    const { dir, keys } = await filledCache();
    setStoredAt(dir, keys[0]!, '2026-01-01T00:00:00.000Z');
    setStoredAt(dir, keys[1]!, '2026-02-01T00:00:00.000Z');
    writeFileSync(join(dir, 'keep-me.txt'), 'not an entry');
    const { code, out } = run(['stats', '--cache-dir', dir]);
    expect(code).toBe(0);
    expect(out).toContain('entries: 2 (');
    expect(out).toContain('by key schema: 2 (current): 2');
    expect(out).toContain('by model: gpt-5-nano: 2');
    expect(out).toContain(`oldest: 2026-01-01T00:00:00.000Z (${keys[0]})`);
    expect(out).toContain(`newest: 2026-02-01T00:00:00.000Z (${keys[1]})`);
    expect(run(['stats', '--cache-dir', join(dir, 'missing')]).out).toContain('entries: 0');
  });

  it('explain: every key component, the body pretty-printed; bad or unknown keys exit 1', async () => {
    const { dir, keys } = await filledCache();
    const { code, out } = run(['explain', keys[1]!, '--cache-dir', dir]);
    expect(code).toBe(0);
    expect(out).toContain(`endpoint:  ${server!.baseURL}`);
    expect(out).toContain('model:     gpt-5-nano');
    expect(out).toContain('sample:    grid/s/mem0-exp/direct/none/gpt-5-nano/1');
    expect(out).toContain('trial:     1');
    expect(out).toContain('schema:    2 (current)');
    expect(out).toMatch(/storedAt: {2}\d{4}-\d\d-\d\dT/);
    expect(out).toContain('verified:  the components hash to this key');
    expect(out).toContain('body:\n{\n  "model": "gpt-5-nano",\n  "messages": [\n');
    expect(out).toContain('draw 1');
    expect(out).not.toContain('sk-test-cache-command');
    const malformed = run(['explain', 'not-a-key', '--cache-dir', dir]);
    expect(malformed).toMatchObject({ code: 1 });
    expect(malformed.err).toMatch(/"not-a-key" is not a cache key: expected 64/);
    const unknown = run(['explain', '0'.repeat(64), '--cache-dir', dir]);
    expect(unknown.code).toBe(1);
    expect(unknown.err).toContain(`no entry ${'0'.repeat(64)} in ${dir}`);
    expect(run(['explain', '--cache-dir', dir]).err).toMatch(/explain takes exactly one key/);
  });

  it('clear --older-than removes only older entries and says which; clear removes the rest, nothing else', async () => {
    const { dir, keys } = await filledCache();
    const now = new Date('2026-03-01T00:00:00.000Z');
    setStoredAt(dir, keys[0]!, '2026-02-20T00:00:00.000Z'); // 9 days old
    setStoredAt(dir, keys[1]!, '2026-02-27T00:00:00.000Z'); // 2 days old
    writeFileSync(join(dir, 'keep-me.txt'), 'not an entry');
    const some = run(['clear', '--older-than', '7d', '--cache-dir', dir], now);
    expect(some.code).toBe(0);
    expect(some.out).toContain(
      `removed ${keys[0]}  2026-02-20T00:00:00.000Z  gpt-5-nano  grid/s/graphiti/direct/none/gpt-5-nano/1`,
    );
    expect(some.out).toContain('removed 1 file(s)');
    expect(existsSync(cacheEntryPath(dir, keys[0]!))).toBe(false);
    expect(existsSync(cacheEntryPath(dir, keys[1]!))).toBe(true);
    const bad = run(['clear', '--older-than', '7 days', '--cache-dir', dir], now);
    expect(bad.code).toBe(1);
    expect(bad.err).toMatch(/--older-than "7 days": expected a whole number and a unit/);
    expect(existsSync(cacheEntryPath(dir, keys[1]!))).toBe(true);
    writeFileSync(`${cacheEntryPath(dir, keys[1]!)}.0a1b2c3d.tmp`, '{"half');
    const all = run(['clear', '--cache-dir', dir], now);
    expect(all.code).toBe(0);
    expect(all.out).toContain('removed 2 file(s)');
    expect(readdirSync(dir)).toEqual(['keep-me.txt']);
  });

  it('rejects unknown commands and misplaced options', () => {
    expect(run(['purge']).code).toBe(1);
    expect(run([]).err).toContain('no command');
    expect(run(['stats', '--older-than', '7d']).err).toContain('--older-than applies to clear only');
    expect(run(['stats', '--bogus']).code).toBe(1);
    const notADirectory = join(mkdtempSync(join(tmpdir(), 'stalebench-cache-')), 'file');
    writeFileSync(notADirectory, 'x');
    expect(run(['clear', '--cache-dir', notADirectory])).toMatchObject({
      code: 1,
      err: `error: --cache-dir ${notADirectory}: not a directory`,
    });
    expect(existsSync(notADirectory)).toBe(true);
    expect([
      parseDuration('12h'),
      parseDuration('30m'),
      parseDuration('1w'),
      parseDuration('7'),
      parseDuration('-1d'),
    ]).toEqual([43_200_000, 1_800_000, 604_800_000, null, null]);
  });
});
