// graphiti-py (graphiti-core 0.31.2 itself) on the test Neo4j through `pnpm eval` (issue #29): the paper's direct
// column, the graphiti port checked against the library scenario by scenario, and a killed Python process retried.
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, inject, it } from 'vitest';
import type { Summary } from '../analysis/grid/summarize.js';
import type { ProbeRecord, UnitRecord } from '../pipeline/run-log/run-log.js';
import { runEvalCli } from '../pipeline/test-support/eval-cli.js';
import { startOpenAICompatibleServer } from '../pipeline/test-support/openai-compatible-server.js';
import { runPortLibraryGrid } from '../pipeline/test-support/port-library-grid.js';
import { spawnEval } from '../pipeline/test-support/spawn-eval.js';
import { untilWritten } from '../pipeline/test-support/wait-for-event.js';
import { loadScenarios } from '../scenarios/index.js';
import { graphitiPyProblem } from './graphiti-py-backend.js';
import { langmemPyProblem } from './langmem-py-backend.js';
import { setupGraphitiInterop } from './test-support/graphiti-interop.js';
import { minimalSchemaReply } from './test-support/minimal-schema-reply.js';
import { neo4jEvalEnv } from './test-support/neo4j-eval-env.js';
import type { ProvidedNeo4jServer } from './test-support/neo4j-global-setup.js';
import { storeDrivers } from './test-support/python-memory.js';

const env = neo4jEvalEnv(inject('neo4j') as ProvidedNeo4jServer | undefined);
const server = env && { uri: env.NEO4J_URI, user: env.NEO4J_USER, password: env.NEO4J_PASSWORD };
// The main venv (graphiti-core) is installed by setupGraphitiInterop when missing, as the other interop tests do.
const interop = server ? await setupGraphitiInterop() : { skip: 'NEO4J_URI is unset and no test server was started' };
const reason = 'skip' in interop ? interop.skip : ((await graphitiPyProblem(server))?.message ?? null);
if (reason !== null) console.log(`[graphiti-py] skipped: ${reason}`);
const langmemReason = (await langmemPyProblem())?.message ?? null;
const N = (await loadScenarios()).length;
const outs: string[] = [];
afterAll(() => {
  for (const dir of outs) rmSync(dir, { recursive: true, force: true });
});
const freshOut = () => {
  const dir = mkdtempSync(join(tmpdir(), 'stalebench-graphiti-py-'));
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

/** Nodes left on the server in groups of a run (the pipeline wipes every group after probing it). */
async function nodesOfRun(runId: string): Promise<number> {
  const neo4j = (await import('neo4j-driver')).default;
  const driver = neo4j.driver(server!.uri, neo4j.auth.basic(server!.user, server!.password));
  try {
    const { records } = await driver.executeQuery('MATCH (n) WHERE n.group_id CONTAINS $run RETURN count(n) AS nodes', {
      run: runId,
    });
    return Number(records[0]?.get('nodes') ?? 0);
  } finally {
    await driver.close();
  }
}

describe.skipIf(reason !== null)('graphiti-py: graphiti-core 0.31.2 itself on Neo4j (offline, sim, direct)', () => {
  it("the port and the library agree on every scenario (exposure, revoked rank, default and filtered read); the paper's 9/9", async () => {
    const grid = await runPortLibraryGrid(
      {
        port: 'graphiti',
        library: 'graphiti-py',
        statusFields: ['expired_at', 'invalid_at', 'valid_at', 'created_at'],
      },
      freshOut(),
      env!,
    );
    expect(grid.run.code, grid.run.stderr).toBe(0);
    // Every difference is fixed or listed in backends/graphiti-port.md; none is left on these aspects.
    expect(grid.differences).toEqual([]);
    const library = grid.probes.filter((p) => p.system === 'graphiti-py');
    expect(library.filter((p) => p.status === 'ok')).toHaveLength(N);
    // Paper, direct: Graphiti 81/81 at rank 1 (nine models); here every scenario's default read returns v1 with
    // expired_at, and graphiti-core's SearchFilters(expired_at IS NULL) keeps it out of every filtered read.
    expect(library.filter((p) => p.exposure?.exposed)).toHaveLength(N);
    expect(library.flatMap((p) => p.filteredRead ?? []).filter((r) => r.fields.expired_at !== null)).toEqual([]);
    expect(grid.manifest.components?.filter((c) => c.kind === 'system')).toEqual([
      { kind: 'system', id: 'graphiti', args: {} },
      { kind: 'system', id: 'graphiti-py', args: { library: 'graphiti-core==0.31.2' } },
    ]);
    expect(grid.manifest.systems.find((s) => s.id === 'graphiti-py')?.summary).toMatch(
      /^graphiti-core 0\.31\.2 \(PyPI, the library itself\) .* embeddings from the run's embedder lexical-hash-v1/,
    );
    expect(await nodesOfRun(grid.manifest.runId)).toBe(0);
    expect(storeDrivers()).toEqual([]);
  }, 300_000);

  it.skipIf(langmemReason !== null)(
    "the acceptance command: graphiti-py and langmem-py exposure equal the paper's direct column (9/9, 0/9)",
    async () => {
      const out = freshOut();
      const run = await runEvalCli(
        [
          '--model',
          'sim',
          '--systems',
          'graphiti-py,langmem-py',
          '--modes',
          'direct',
          '--arms',
          'none,store-filter,guard',
          '--trials',
          '1',
          '--out',
          out,
        ],
        env!,
      );
      expect(run.code, run.stderr).toBe(0);
      const summary = JSON.parse(readFileSync(join(runDirOf(out), 'summary.json'), 'utf8')) as Summary;
      const cell = (system: string, arm: string) =>
        summary.cells.find((c) => c.system === system && c.arm === arm && c.mode === 'direct');
      expect(cell('graphiti-py', 'none')?.exposure).toEqual({ k: N, n: N });
      expect(cell('langmem-py', 'none')?.exposure).toEqual({ k: 0, n: N });
      for (const arm of ['store-filter', 'guard'])
        for (const system of ['graphiti-py', 'langmem-py'])
          expect(cell(system, arm)?.contextExposure, `${system} ${arm}`).toEqual({ k: 0, n: N });
      // Table 9, direct: the guard catches every revoked edge graphiti-core returns and withholds no current one.
      expect(summary.guardMetrics.find((m) => m.system === 'graphiti-py')).toMatchObject({
        revokedPresent: N,
        revokedCaught: N,
        currentWithheld: 0,
      });
    },
    300_000,
  );

  it('natural mode: n/a with the reason under the simulator; on an endpoint, add_episode sends its own prompts there', async () => {
    const offline = await runEvalCli(
      [
        '--model',
        'sim',
        '--systems',
        'graphiti,graphiti-py',
        '--modes',
        'natural',
        '--arms',
        'none',
        '--trials',
        '1',
        '--out',
        freshOut(),
      ],
      env!,
    );
    expect(offline.code, offline.stderr).toBe(0);
    const offlineProbes = lines<ProbeRecord>(join(runDirOf(outs.at(-1)!), 'setup.jsonl')).filter(
      (p) => p.type === 'memory-probe' && p.system === 'graphiti-py',
    );
    expect(offlineProbes.map((p) => p.status)).toEqual(Array(N).fill('not-applicable'));
    expect(offlineProbes[0]!.reason).toMatch(
      /^graphiti-core's natural mode is add_episode, which sends its own prompts/,
    );

    const server = await startOpenAICompatibleServer((request) => minimalSchemaReply(request));
    try {
      const out = freshOut();
      const run = await runEvalCli(
        [
          '--model',
          'sim',
          '--systems',
          'graphiti-py',
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
        { ...env!, OPENAI_BASE_URL: server.baseURL, OPENAI_API_KEY: 'key-for-the-endpoint' },
      );
      expect(run.code, run.stderr).toBe(0);
      const [probe] = lines<ProbeRecord>(join(runDirOf(out), 'setup.jsonl')).filter((p) => p.type === 'memory-probe');
      expect(probe).toMatchObject({ status: 'ok', extractor: 'graphiti-core add_episode on openai:extractor-alias' });
      // graphiti-core's own structured prompts, per episode: entities, then edges (none extracted: no edge to resolve).
      expect(
        server.requests.map((r) => (r.body.response_format as { json_schema?: { name: string } }).json_schema?.name),
      ).toEqual(['ExtractedEntities', 'ExtractedEdges', 'ExtractedEntities', 'ExtractedEdges']);
      for (const request of server.requests) {
        expect(request.body.model).toBe('extractor-alias');
        expect(request.headers.authorization).toBe('Bearer key-for-the-endpoint');
      }
    } finally {
      await server.close();
    }
  }, 300_000);

  it('a Python process killed mid-run: that unit is an error, and the same command re-runs it', async () => {
    const out = freshOut();
    const args = [
      '--model',
      'sim',
      '--systems',
      'graphiti-py',
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
    const child = spawnEval(args, env!);
    const setupPath = () => (readdirSync(out).length ? join(runDirOf(out), 'setup.jsonl') : '');
    await untilWritten(out, () => Boolean(setupPath()) && lines(setupPath()).length >= 1, 180_000, 'the first probe');
    const [driver] = storeDrivers(child.child.pid!);
    expect(driver, 'the store driver of the running eval').toBeDefined();
    process.kill(driver!, 'SIGSTOP');
    const done = lines<ProbeRecord>(setupPath()).length;
    // Kept: nothing outside the eval says it has sent its next request to the stopped driver; half a second lets it.
    await new Promise((resolve) => setTimeout(resolve, 500));
    process.kill(driver!, 'SIGKILL');
    const code = await child.exited;
    expect(done, 'the driver was stopped before setup ended').toBeLessThan(N);
    expect(code, child.stderr()).toBe(4);
    const probes = lines<ProbeRecord>(setupPath());
    const failed = probes.filter((probe) => probe.status === 'error');
    expect(failed, JSON.stringify(probes.map((p) => p.status))).toHaveLength(1);
    expect(failed[0]!.reason).toMatch(
      /^graphiti-py: .* failed: the store process exited \(code null, signal SIGKILL\) before answering/,
    );

    const resumed = await runEvalCli(args, env!);
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
    expect(summary.cells.find((c) => c.arm === 'none')?.exposure).toEqual({ k: N, n: N });
    // The killed process's group was reset by a new process (the unit's cleanup), so nothing of the run is left.
    expect(await nodesOfRun(readdirSync(out)[0]!)).toBe(0);
    expect(storeDrivers()).toEqual([]);
  }, 420_000);
});
