// Issue #26 item 2 end to end: a 200 reply whose content and headers echo the key leaves it in no file of the run,
// the response cache or the report, and in no output; a resume served from the cache replays the redacted reply.
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { main as reportMain } from '../analysis/report-command.js';
import { loadScenarios } from '../scenarios/index.js';
import { listCacheFiles } from './models/response-cache-files.js';
import { runEvalCli } from './test-support/eval-cli.js';
import { startOpenAICompatibleServer, type TestServer } from './test-support/openai-compatible-server.js';

const scenarios = await loadScenarios();
// Not key-shaped (no `sk-`): only the configured secret itself can catch it.
const KEY = 'litellm-master-7f3a9c0e5b2d4816';
let server: TestServer | undefined;
afterEach(async () => {
  vi.restoreAllMocks();
  await server?.close();
  server = undefined;
});

const tmp = (prefix: string) => mkdtempSync(join(tmpdir(), prefix));
const files = (dir: string): string[] =>
  readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? files(join(dir, e.name)) : [join(dir, e.name)],
  );

describe('a key echoed in a 200 reply', () => {
  it('is in no run file, cache entry, report file or output; the cached replay agrees with the records', async () => {
    // Every reply echoes the key the server received, in its content and in a kept (x-litellm-*) and any header.
    server = await startOpenAICompatibleServer((request) => {
      const key = String(request.headers.authorization).slice('Bearer '.length);
      const user = request.body.messages?.find((m) => m.role === 'user')?.content ?? '';
      const scenario = scenarios.find((s) => user.includes(`Question: ${s.task}\n`));
      const action = scenario ? scenario.actions[1] : 'NONE';
      return {
        content: `{"action": "${action}", "reason": "you sent ${key}"}`,
        headers: {
          'x-litellm-key-alias': key,
          'x-litellm-version': `1.0-${key}`,
          'x-request-id': `req-${key}`,
          'x-echo': key,
        },
      };
    });
    const out = tmp('stalebench-echo-out-');
    const cacheDir = tmp('stalebench-echo-cache-');
    const args = [
      '--model',
      'gpt-5-nano',
      '--systems',
      'graphiti',
      '--modes',
      'direct',
      '--arms',
      'none,store-filter',
      '--trials',
      '1',
      '--out',
      out,
      '--cache-dir',
      cacheDir,
      '--no-preflight',
    ];
    const env = { OPENAI_BASE_URL: server.baseURL, OPENAI_API_KEY: KEY, CI: 'true' };
    // The progress lines go to the streams directly, not through console (runEvalCli restores every spy).
    const streamed: string[] = [];
    const run = (argv: string[]) => {
      for (const stream of [process.stdout, process.stderr])
        vi.spyOn(stream, 'write').mockImplementation((chunk: string | Uint8Array) => {
          streamed.push(String(chunk));
          return true;
        });
      return runEvalCli(argv, env);
    };
    const first = await run(args);
    expect(first.code, first.stderr).toBe(0);
    expect(server.requests.length).toBeGreaterThan(0);
    const entries = listCacheFiles(cacheDir).filter((file) => file.kind === 'entry');
    expect(entries.length).toBeGreaterThan(0);
    const runDir = join(out, readdirSync(out)[0]!);
    const records = readFileSync(join(runDir, 'records.jsonl'), 'utf8');
    expect(records).toContain('[redacted]');

    // The resume is served from the cache: the same replies (redacted) as the records hold, nothing sent.
    const sent = server.requests.length;
    const second = await run([...args, '--run-id', 'again']);
    expect(second.code, second.stderr).toBe(0);
    expect(server.requests.length).toBe(sent);
    const replies = (dir: string) =>
      readFileSync(join(dir, 'records.jsonl'), 'utf8')
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line) as { id?: string; reply?: string })
        .filter((row) => typeof row.reply === 'string')
        .map((row) => row.reply)
        .sort();
    expect(replies(join(out, 'again'))).toEqual(replies(runDir));

    const reported: string[] = [];
    const reportCode = await reportMain(
      [runDir],
      (line) => reported.push(line),
      (line) => reported.push(line),
    );
    expect(reportCode, reported.join('\n')).toBe(0);

    const printed = [first.stdout, first.stderr, second.stdout, second.stderr, ...reported, ...streamed].join('\n');
    expect(streamed.join('').match(/\[18\/18\]/g)).toHaveLength(2);
    expect(printed).not.toContain(KEY);
    const written = [...files(out), ...files(cacheDir)];
    expect(written.some((file) => file.endsWith('index.html'))).toBe(true);
    const holding = written.filter((file) => readFileSync(file, 'utf8').includes(KEY));
    expect(holding).toEqual([]);
  }, 120_000);
});
