// Issue #26 item 13: no test writes into the user's home or the clone's response cache, and none depends on them.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { homedir, tmpdir, userInfo } from 'node:os';
import { join, relative, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createLexicalEmbedder } from '../backends/lexical-embedder.js';
import { createMem0Backend } from '../backends/mem0-backend.js';
import { createSimExtractionModel } from '../backends/sim-extraction-model.js';
import { startOpenAICompatibleServer } from './test-support/openai-compatible-server.js';
import { runEvalCli } from './test-support/eval-cli.js';
import { spawnEval } from './test-support/spawn-eval.js';

const CLONE = resolve(import.meta.dirname, '..');
const inside = (dir: string, parent: string) => !relative(parent, dir).startsWith('..');
const dirs: string[] = [];
const tmp = (prefix: string) => {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  dirs.push(dir);
  return dir;
};
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

/** Every cache entry under `dir` whose endpoint is `baseURL` (the repository's cache may hold a user's entries). */
const entriesFor = (dir: string, baseURL: string): string[] =>
  existsSync(dir)
    ? readdirSync(dir, { recursive: true, encoding: 'utf8' })
        .filter((name) => name.endsWith('.json'))
        .filter((name) => readFileSync(join(dir, name), 'utf8').includes(`"baseURL": "${baseURL}"`))
    : [];

describe('test isolation (vitest.config.ts → pipeline/test-support/isolated-home.ts)', () => {
  it("gives this test file a private HOME, XDG directories and response cache, not the user's or the clone's", () => {
    const realHome = userInfo().homedir;
    expect(homedir()).not.toBe(realHome);
    const root = resolve(homedir(), '..');
    expect(inside(root, tmpdir())).toBe(true);
    for (const key of ['XDG_CONFIG_HOME', 'XDG_CACHE_HOME', 'XDG_DATA_HOME', 'XDG_STATE_HOME', 'STALEBENCH_CACHE_DIR'])
      expect(inside(process.env[key] ?? '', root), key).toBe(true);
    expect(process.env.MEM0_DIR).toBeUndefined();
  });

  it('makes every temporary directory of the run, this process’s and its children’s, inside the run’s own one', () => {
    // pipeline/test-support/run-tmpdir.ts removes it when the run ends: no test leaves its temporary directories behind.
    expect(tmpdir()).toMatch(/\/stalebench-tests-[^/]+$/);
    const child = spawnSync(process.execPath, ['-e', 'process.stdout.write(require("node:os").tmpdir())'], {
      encoding: 'utf8',
    });
    expect(child.stdout).toBe(tmpdir());
  });

  it('a pnpm eval started without --cache-dir from the clone caches into the test directory, not .stalebench-cache', async () => {
    const server = await startOpenAICompatibleServer(() => ({ content: '{"action": "REJECT", "reason": "policy"}' }));
    try {
      const out = tmp('stalebench-isolation-');
      const args = ['--model', 'm', '--yes', '--systems', 'graphiti', '--modes', 'direct', '--arms', 'none'];
      const run = spawnEval([...args, '--trials', '1', '--out', out, '--quiet'], {
        OPENAI_BASE_URL: server.baseURL,
        OPENAI_API_KEY: 'sk-test-isolation',
      });
      expect(await run.exited, run.stderr()).toBe(0);
      expect(server.requests.length).toBeGreaterThan(0);
      expect(entriesFor(join(CLONE, '.stalebench-cache'), server.baseURL)).toEqual([]);
      expect(entriesFor(process.env.STALEBENCH_CACHE_DIR!, server.baseURL)).toHaveLength(server.requests.length);
    } finally {
      await server.close();
    }
  }, 60_000);

  it('an in-process pnpm eval given an endpoint environment without STALEBENCH_CACHE_DIR caches into the test directory', async () => {
    const server = await startOpenAICompatibleServer(() => ({ content: '{"action": "REJECT", "reason": "policy"}' }));
    try {
      const out = tmp('stalebench-isolation-inproc-');
      // Its own model alias: the test above caches into the same directory, and a server that reuses its port would
      // make this run's cache keys (base URL, model, sample, body) equal to those, so it would send nothing.
      const args = ['--model', 'm-in-process', '--yes', '--systems', 'graphiti', '--modes', 'direct', '--arms', 'none'];
      const run = await runEvalCli([...args, '--trials', '1', '--out', out, '--quiet'], {
        OPENAI_BASE_URL: server.baseURL,
        OPENAI_API_KEY: 'sk-test-isolation',
      });
      expect(run.code, run.stderr).toBe(0);
      expect(server.requests.length).toBeGreaterThan(0);
      expect(entriesFor(join(process.cwd(), '.stalebench-cache'), server.baseURL)).toEqual([]);
      expect(entriesFor(process.env.STALEBENCH_CACHE_DIR!, server.baseURL)).toHaveLength(server.requests.length);
    } finally {
      await server.close();
    }
  }, 60_000);

  it("mem0 leaves the user's ~/.mem0 alone, and what another process writes there cannot reach this file", async () => {
    const backend = createMem0Backend({
      embedder: createLexicalEmbedder(),
      extraction: createSimExtractionModel(),
      runId: 'isolation',
      workDir: tmp('stalebench-isolation-mem0-'),
      variant: 'default',
    });
    await backend.open();
    await backend.close();
    // Every mem0 file lives under the backend's work directory; the HOME mem0 would fall back to is this file's.
    expect(existsSync(join(homedir(), '.mem0'))).toBe(false);
    expect(inside(homedir(), userInfo().homedir)).toBe(false);
  });
});
