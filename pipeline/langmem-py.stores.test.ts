// langmem-py (langmem 0.0.30 itself, store environment langmem) through `pnpm eval`: the paper's direct column, the
// langmem port checked against the library scenario by scenario, and a killed Python process retried on resume.
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { Summary } from '../analysis/grid/summarize.js';
import { langmemPyProblem } from '../backends/langmem-py-backend.js';
import { minimalSchemaReply } from '../backends/test-support/minimal-schema-reply.js';
import { storeDrivers } from '../backends/test-support/python-memory.js';
import { loadScenarios } from '../scenarios/index.js';
import type { ProbeRecord, UnitRecord } from './run-log/run-log.js';
import { runEvalCli } from './test-support/eval-cli.js';
import { startOpenAICompatibleServer } from './test-support/openai-compatible-server.js';
import { runPortLibraryGrid } from './test-support/port-library-grid.js';
import { spawnEval } from './test-support/spawn-eval.js';
import { untilWritten } from './test-support/wait-for-event.js';

const reason = (await langmemPyProblem())?.message ?? null;
if (reason !== null) console.log(`[stores] langmem-py skipped: ${reason}`);
const N = (await loadScenarios()).length;
const outs: string[] = [];
afterAll(() => {
  for (const dir of outs) rmSync(dir, { recursive: true, force: true });
});
const freshOut = () => {
  const dir = mkdtempSync(join(tmpdir(), 'stalebench-langmem-py-'));
  outs.push(dir);
  return dir;
};
const runDirOf = (out: string) => join(out, readdirSync(out)[0]!);
const lines = <T>(path: string): T[] =>
  existsSync(path)
    ? readFileSync(path, 'utf8')
        .trim()
        .split('\n')
        .filter(Boolean)
        .map((line) => JSON.parse(line) as T)
    : [];

describe('langmem-py: langmem 0.0.30 itself (offline, sim, direct)', () => {
  it.skipIf(reason !== null)(
    "the port and the library agree on every scenario (exposure, revoked rank, default and filtered read); the paper's 0/9",
    async () => {
      const grid = await runPortLibraryGrid(
        { port: 'langmem', library: 'langmem-py', statusFields: ['created_at', 'updated_at'] },
        freshOut(),
        {},
      );
      expect(grid.run.code, grid.run.stderr).toBe(0);
      expect(grid.probes.filter((p) => p.system === 'langmem-py' && p.status === 'ok')).toHaveLength(N);
      // Every difference is fixed or listed in backends/langmem-port.md; none is left on these aspects.
      expect(grid.differences).toEqual([]);
      const library = grid.probes.filter((p) => p.system === 'langmem-py');
      // Paper, direct: langmem 0/81 (v1 hard-deleted); the filtered read is the default read (no status field).
      expect(library.filter((p) => p.exposure?.exposed)).toEqual([]);
      expect(library.every((p) => p.filteredRead === null)).toBe(true);
      expect(library.every((p) => (p.defaultRead ?? []).length > 0)).toBe(true);
      expect(grid.manifest.components?.filter((c) => c.kind === 'system')).toEqual([
        { kind: 'system', id: 'langmem', args: { queryLimit: 5 } },
        { kind: 'system', id: 'langmem-py', args: { library: 'langmem==0.0.30' } },
      ]);
      expect(grid.manifest.systems.find((s) => s.id === 'langmem-py')?.summary).toMatch(
        /^langmem 0\.0\.30 \(PyPI, the library itself\) .* embeddings from the run's embedder lexical-hash-v1/,
      );
      expect(storeDrivers()).toEqual([]);
    },
    300_000,
  );

  it.skipIf(reason !== null)(
    'natural mode with the extraction simulator is n/a with the reason, never a silent substitute',
    async () => {
      const out = freshOut();
      const run = await runEvalCli(
        [
          '--model',
          'sim',
          '--systems',
          'langmem,langmem-py',
          '--modes',
          'natural',
          '--arms',
          'none',
          '--trials',
          '1',
          '--out',
          out,
        ],
        {},
      );
      expect(run.code, run.stderr).toBe(0);
      const probes = lines<ProbeRecord>(join(runDirOf(out), 'setup.jsonl')).filter(
        (p) => p.type === 'memory-probe' && p.system === 'langmem-py',
      );
      expect(probes).toHaveLength(N);
      for (const probe of probes) {
        expect(probe.status).toBe('not-applicable');
        expect(probe.reason).toMatch(
          /^langmem's natural mode is create_memory_store_manager, which sends its own prompts to a language model; sim-extractor-v3 answers stalebench's own operations/,
        );
      }
    },
    120_000,
  );

  it.skipIf(reason !== null)(
    "natural mode with --extraction-model on an endpoint: langmem's own memory manager sends its prompts there",
    async () => {
      const server = await startOpenAICompatibleServer((request) => minimalSchemaReply(request));
      try {
        const out = freshOut();
        const run = await runEvalCli(
          [
            '--model',
            'sim',
            '--systems',
            'langmem-py',
            '--modes',
            'natural',
            '--arms',
            'none',
            '--trials',
            '1',
            '--scenarios',
            'mfa_waiver_access',
            '--extraction-model',
            'extractor-alias',
            '--out',
            out,
          ],
          { OPENAI_BASE_URL: server.baseURL, OPENAI_API_KEY: 'key-for-the-endpoint' },
        );
        expect(run.code, run.stderr).toBe(0);
        const [probe] = lines<ProbeRecord>(join(runDirOf(out), 'setup.jsonl')).filter((p) => p.type === 'memory-probe');
        expect(probe).toMatchObject({
          status: 'ok',
          extractor: 'langmem create_memory_store_manager on openai:extractor-alias',
        });
        // One manager call per episode (two), each with langmem's tools, the alias, the key and the episode's text.
        expect(server.requests.length).toBeGreaterThanOrEqual(2);
        for (const request of server.requests) {
          expect(request.body.model).toBe('extractor-alias');
          expect(request.headers.authorization).toBe('Bearer key-for-the-endpoint');
          expect(Array.isArray(request.body.tools) && request.body.tools.length > 0).toBe(true);
          expect(request.body.temperature).toBe(0);
        }
        const sent = server.requests.map((request) => request.raw).join('\n');
        const [scenario] = (await loadScenarios()).filter((s) => s.id === 'mfa_waiver_access');
        expect(sent).toContain(JSON.stringify(scenario!.v1).slice(1, 40));
      } finally {
        await server.close();
      }
    },
    120_000,
  );

  it.skipIf(reason !== null)(
    'a Python process killed mid-run: that unit is an error (never an empty read), and the same command re-runs it',
    async () => {
      const out = freshOut();
      const args = [
        '--model',
        'sim',
        '--systems',
        'langmem-py',
        '--modes',
        'direct',
        '--arms',
        'none,store-filter,guard',
        '--trials',
        '1',
        '--concurrency',
        '1',
        '--out',
        out,
      ];
      const child = spawnEval(args, {});
      const setupPath = () => (readdirSync(out).length ? join(runDirOf(out), 'setup.jsonl') : '');
      await untilWritten(
        out,
        () => Boolean(setupPath()) && existsSync(setupPath()) && lines(setupPath()).length >= 1,
        120_000,
        'the first probe',
      );
      const [driver] = storeDrivers(child.child.pid!);
      expect(driver, 'the store driver of the running eval').toBeDefined();
      process.kill(driver!, 'SIGSTOP');
      const done = lines<ProbeRecord>(setupPath()).length;
      await new Promise((resolve) => setTimeout(resolve, 500));
      process.kill(driver!, 'SIGKILL');
      const code = await child.exited;
      expect(done, 'the driver was stopped before setup ended').toBeLessThan(N);
      // One failed probe of nine is within the default --max-error-rate (0.25): the run completes, exit 4, naming it.
      expect(code, child.stderr()).toBe(4);
      const probes = lines<ProbeRecord>(setupPath());
      const failed = probes.filter((probe) => probe.status === 'error');
      expect(failed, JSON.stringify(probes.map((p) => p.status))).toHaveLength(1);
      expect(failed[0]!.reason).toMatch(
        /^langmem-py: .* failed: the store process exited \(code null, signal SIGKILL\) before answering/,
      );
      expect(probes.filter((probe) => probe.status === 'ok')).toHaveLength(N - 1);

      const resumed = await runEvalCli(args, {});
      expect(resumed.code, resumed.stderr).toBe(0);
      expect(
        lines<ProbeRecord>(setupPath())
          .filter((probe) => probe.scenario === failed[0]!.scenario)
          .map((p) => p.status),
      ).toEqual(['error', 'ok']);
      expect(new Set(lines<UnitRecord>(join(runDirOf(out), 'records.jsonl')).map((unit) => unit.unitId)).size).toBe(
        N * 3,
      );
      const summary = JSON.parse(readFileSync(join(runDirOf(out), 'summary.json'), 'utf8')) as Summary;
      expect(summary.cells.find((c) => c.system === 'langmem-py' && c.arm === 'none')?.exposure).toEqual({
        k: 0,
        n: N,
      });
      expect(storeDrivers()).toEqual([]);
    },
    240_000,
  );
});
