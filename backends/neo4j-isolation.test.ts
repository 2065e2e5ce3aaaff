// Runs that cannot collide on one Neo4j: concurrent runs of one spec agree, a killed run's leftovers are removed by
// the resume and by `pnpm clean`, and the exclusive section holds across clients and dies with its client.
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, inject, it, vi } from 'vitest';
import { main as clean } from '../pipeline/cli/clean-command.js';
import { main } from '../pipeline/cli/cli.js';
import { acquireRunLock, readRunLock } from '../pipeline/run/run-lock.js';
import type { RunManifest } from '../pipeline/run-log/run-log.js';
import { createNeo4jGraphStore } from './neo4j-graph-store.js';
import { rootPrefix } from './run-namespace.js';
import type { ProvidedNeo4jServer } from './test-support/neo4j-global-setup.js';

const provided: ProvidedNeo4jServer | undefined = inject('neo4j');
const uri = provided?.uri ?? process.env.NEO4J_URI;
const env = {
  NEO4J_URI: uri ?? '',
  NEO4J_USER: provided ? (provided.user ?? 'neo4j') : (process.env.NEO4J_USER ?? 'neo4j'),
  NEO4J_PASSWORD: provided ? (provided.password ?? '') : (process.env.NEO4J_PASSWORD ?? ''),
};
if (!uri)
  console.log(
    '[neo4j-isolation] skipped: no Neo4j server (set NEO4J_URI, or run `pnpm run test:neo4j`, which starts one)',
  );
const cli = join(import.meta.dirname, '..', 'pipeline', 'cli', 'cli.ts');
const store = () => createNeo4jGraphStore({ uri: env.NEO4J_URI, user: env.NEO4J_USER, password: env.NEO4J_PASSWORD });

afterEach(() => vi.restoreAllMocks());

function spawnEval(args: string[]) {
  const child = spawn(process.execPath, ['--import', 'tsx', cli, 'eval', ...args], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (chunk) => (stderr += String(chunk)));
  return {
    child,
    exited: new Promise<number | null>((resolve) =>
      child.on('exit', (code, signal) => resolve(code ?? (signal ? -1 : null))),
    ),
    stderr: () => stderr,
  };
}

async function quietly<T>(run: (lines: string[]) => Promise<T>): Promise<{ result: T; output: string }> {
  const lines: string[] = [];
  vi.spyOn(console, 'log').mockImplementation((...parts) => void lines.push(parts.join(' ')));
  vi.spyOn(console, 'error').mockImplementation((...parts) => void lines.push(parts.join(' ')));
  try {
    return { result: await run(lines), output: lines.join('\n') };
  } finally {
    vi.restoreAllMocks();
  }
}

/** Nodes and edges on the server whose group id starts with `prefix`. */
async function countWithPrefix(prefix: string): Promise<{ groups: number; nodes: number; edges: number }> {
  const neo4j = (await import('neo4j-driver')).default;
  const driver = neo4j.driver(env.NEO4J_URI, neo4j.auth.basic(env.NEO4J_USER, env.NEO4J_PASSWORD));
  try {
    const count = async (query: string) =>
      Number((await driver.executeQuery(query, { prefix })).records[0]?.get(0) ?? 0);
    return {
      groups: await count('MATCH (n) WHERE n.group_id STARTS WITH $prefix RETURN count(DISTINCT n.group_id)'),
      nodes: await count('MATCH (n) WHERE n.group_id STARTS WITH $prefix RETURN count(n)'),
      edges: await count('MATCH ()-[e]->() WHERE e.group_id STARTS WITH $prefix RETURN count(e)'),
    };
  } finally {
    await driver.close();
  }
}

/**
 * Starts an eval and SIGKILLs it while one of its namespaces holds data (seen on the server), so it leaves
 * leftovers as a crash would. Returns the killed process's nonce and what it left.
 */
async function killMidSetup(
  args: string[],
  runDir: string,
): Promise<{ nonce: string; left: { groups: number; nodes: number; edges: number } }> {
  for (let attempt = 0; attempt < 5; attempt += 1) {
    const run = spawnEval(args);
    let nonce: string | null = null;
    const deadline = Date.now() + 60_000;
    while (run.child.exitCode === null && Date.now() < deadline) {
      const holder: ReturnType<typeof readRunLock> = nonce === null ? readRunLock(runDir) : null;
      if (holder && holder !== 'unreadable' && holder.pid === run.child.pid) nonce = holder.nonce;
      if (nonce !== null && (await countWithPrefix(rootPrefix(nonce))).edges > 0) {
        run.child.kill('SIGKILL');
        break;
      }
      // Kept: the condition is the database's content, and Neo4j Community pushes no change event to wait on.
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    await run.exited;
    if (nonce === null) throw new Error(`the eval never took its lock:\n${run.stderr()}`);
    const left = await countWithPrefix(rootPrefix(nonce));
    if (left.edges > 0) return { nonce, left };
  }
  throw new Error('could not kill an eval while its namespace held data in 5 attempts');
}

const summaryOf = (out: string) => readFileSync(join(out, readdirSync(out)[0]!, 'summary.json'), 'utf8');
const manifestOf = (runDir: string) => JSON.parse(readFileSync(join(runDir, 'manifest.json'), 'utf8')) as RunManifest;

describe.skipIf(!uri)('runs that cannot collide on one Neo4j', () => {
  it("gives identical summaries, equal to the embedded engine's, for 3 runs of one spec at once (exit 0 each)", async () => {
    const args = (out: string, engine: string[]) => [
      '--model',
      'sim',
      '--systems',
      'graphiti,zep-ce',
      '--trials',
      '2',
      '--out',
      out,
      ...engine,
    ];
    const outs = [0, 1, 2].map(() => mkdtempSync(join(tmpdir(), 'stalebench-concurrent-')));
    const runs = outs.map((out) => spawnEval(args(out, ['--engine', 'neo4j'])));
    const codes = await Promise.all(runs.map((run) => run.exited));
    codes.forEach((code, index) => {
      expect(code, runs[index]!.stderr()).toBe(0);
    });
    const embeddedOut = mkdtempSync(join(tmpdir(), 'stalebench-concurrent-embedded-'));
    const { result } = await quietly(() => main(['eval', ...args(embeddedOut, [])], {}));
    expect(result).toBe(0);
    const summaries = outs.map(summaryOf);
    expect(summaries[1]).toBe(summaries[0]);
    expect(summaries[2]).toBe(summaries[0]);
    expect(summaries[0]).toBe(summaryOf(embeddedOut));
  }, 300_000);

  it('removes what a SIGKILLed run left on Neo4j when the run is resumed, and says so', async () => {
    const out = mkdtempSync(join(tmpdir(), 'stalebench-killed-'));
    const args = [
      '--model',
      'sim',
      '--systems',
      'graphiti',
      '--modes',
      'natural,direct',
      '--arms',
      'none',
      '--trials',
      '1',
      '--engine',
      'neo4j',
      '--out',
      out,
      '--run-id',
      'killed',
    ];
    const runDir = join(out, 'killed');
    const { nonce, left } = await killMidSetup(args, runDir);
    console.log(
      `[neo4j-isolation] SIGKILL mid-setup left ${left.groups} group(s), ${left.nodes} nodes, ${left.edges} edges`,
    );
    const { result, output } = await quietly(() => main(['eval', ...args], env));
    expect(result, output).toBe(0);
    expect(output).toContain(`took over the lock of ${runDir} from pid`);
    expect(output).toContain(
      `removed leftovers of invocation ${nonce} on neo4j: ${left.groups} namespace(s), ${left.nodes} nodes, ${left.edges} edges`,
    );
    expect(await countWithPrefix(rootPrefix(nonce))).toEqual({ groups: 0, nodes: 0, edges: 0 });
    const invocations = manifestOf(runDir).invocations!;
    expect(invocations.map((entry) => entry.ended?.status)).toEqual([undefined, 'success']);
    expect(invocations[1]!.removedLeftovers).toEqual([
      { nonce, engine: 'neo4j', namespaces: left.groups, detail: `${left.nodes} nodes, ${left.edges} edges` },
    ]);
    expect(await countWithPrefix(rootPrefix(invocations[1]!.nonce))).toEqual({ groups: 0, nodes: 0, edges: 0 });
  }, 180_000);

  it("`pnpm clean --orphans` removes a killed run's namespaces and keeps a running run's and unknown ones; --run removes one run's", async () => {
    const out = mkdtempSync(join(tmpdir(), 'stalebench-clean-'));
    const args = (id: string) => [
      '--model',
      'sim',
      '--systems',
      'graphiti',
      '--modes',
      'natural,direct',
      '--arms',
      'none',
      '--trials',
      '1',
      '--engine',
      'neo4j',
      '--out',
      out,
      '--run-id',
      id,
    ];
    const killed = await killMidSetup(args('orphaned'), join(out, 'orphaned'));
    // A run that is "running": this process holds its lock, and its namespace holds data.
    const liveDir = join(out, 'live');
    mkdirSync(liveDir);
    const live = await acquireRunLock(liveDir, { nonce: '0000aaaa' });
    writeFileSync(
      join(liveDir, 'manifest.json'),
      JSON.stringify({
        invocations: [{ nonce: '0000aaaa', pid: process.pid, host: hostname(), startedAt: live.holder.startedAt }],
        spec: {
          engine: { graph: { id: 'neo4j', uri: env.NEO4J_URI, user: env.NEO4J_USER }, vector: { id: 'embedded' } },
        },
      }),
    );
    const graph = store();
    await graph.open();
    const seed = async (group: string) =>
      graph.saveNodes([
        { uuid: `${group}-n`, name: 'n', group_id: group, created_at: new Date(), summary: '', name_embedding: null },
      ]);
    await seed('sb0000aaaa_live__x');
    await seed('sb0000bbbb_elsewhere__x');
    try {
      const orphans = await quietly((lines) =>
        clean(['--orphans', '--engine', 'neo4j', '--out', out], env, (line) => lines.push(line)),
      );
      expect(orphans.result, orphans.output).toBe(0);
      expect(orphans.output).toContain(
        `neo4j: removed ${killed.left.groups} namespace(s) of nonce ${killed.nonce}: ${killed.left.nodes} nodes, ${killed.left.edges} edges`,
      );
      expect(orphans.output).toMatch(/kept 1 namespace\(s\) of nonce 0000aaaa: run .*live, pid \d+ .* still running/);
      expect(orphans.output).toMatch(
        /kept 1 namespace\(s\) of nonce 0000bbbb: no run directory under .* records it \(pass the --out it ran with, or --include-unknown\)/,
      );
      expect(await countWithPrefix(rootPrefix(killed.nonce))).toEqual({ groups: 0, nodes: 0, edges: 0 });
      expect((await countWithPrefix('sb0000aaaa_')).nodes).toBe(1);
      expect((await countWithPrefix('sb0000bbbb_')).nodes).toBe(1);

      const refused = await quietly((lines) => clean(['--run', 'live', '--out', out], env, (line) => lines.push(line)));
      expect(refused.result).toBe(1);
      expect(refused.output).toMatch(
        new RegExp(`error: run directory .*live is in use by pid ${process.pid} on host `),
      );
      live.release();
      const byRun = await quietly((lines) => clean(['--run', 'live', '--out', out], env, (line) => lines.push(line)));
      expect(byRun.result, byRun.output).toBe(0);
      expect(byRun.output).toContain('neo4j: removed 1 namespace(s) of nonce 0000aaaa: 1 nodes, 0 edges');
      expect((await countWithPrefix('sb0000aaaa_')).nodes).toBe(0);

      const unknown = await quietly((lines) =>
        clean(['--orphans', '--engine', 'neo4j', '--out', out, '--include-unknown'], env, (line) => lines.push(line)),
      );
      expect(unknown.result, unknown.output).toBe(0);
      expect((await countWithPrefix('sb0000bbbb_')).nodes).toBe(0);
    } finally {
      live.release();
      await graph.close();
    }
  }, 240_000);

  it('holds the exclusive section across clients, frees it when the holding client dies, and fails a section whose lock the server ended', async () => {
    const [a, b] = [store(), store()];
    await a.open();
    await b.open();
    try {
      const timeline: string[] = [];
      let releaseA!: () => void;
      const aHolds = new Promise<void>((resolve) => (releaseA = resolve));
      let aEntered!: () => void;
      const entered = new Promise<void>((resolve) => (aEntered = resolve));
      const sectionA = a.exclusive(async () => {
        timeline.push('a+');
        aEntered();
        await aHolds;
        timeline.push('a-');
      });
      await entered;
      const sectionB = b.exclusive(async () => void timeline.push('b'));
      // Kept: time passing is what is tested (B stays out for half a second while A holds the section).
      await new Promise((resolve) => setTimeout(resolve, 500));
      expect(timeline).toEqual(['a+']);
      releaseA();
      await Promise.all([sectionA, sectionB]);
      expect(timeline).toEqual(['a+', 'a-', 'b']);

      // A client that dies inside its section (its connections close) leaves no lock behind.
      const dying = store();
      await dying.open();
      let dyingEntered!: () => void;
      const inside = new Promise<void>((resolve) => (dyingEntered = resolve));
      const abandoned = dying.exclusive(async () => {
        dyingEntered();
        await new Promise(() => {});
      });
      abandoned.catch(() => undefined);
      await inside;
      const waiting = b.exclusive(async () => 'after');
      await dying.close();
      expect(
        await Promise.race([waiting, new Promise((resolve) => setTimeout(() => resolve('still locked'), 20_000))]),
      ).toBe('after');

      // A mutex transaction the server ends while its section runs fails the section instead of passing silently.
      const neo4j = (await import('neo4j-driver')).default;
      const admin = neo4j.driver(env.NEO4J_URI, neo4j.auth.basic(env.NEO4J_USER, env.NEO4J_PASSWORD));
      try {
        const lost = a.exclusive(async () => {
          const { records } = await admin.executeQuery(
            "SHOW TRANSACTIONS YIELD transactionId, metaData WHERE metaData.stalebench = 'fulltext-statistics' RETURN transactionId",
          );
          expect(records).toHaveLength(1);
          await admin.executeQuery(`TERMINATE TRANSACTIONS '${String(records[0]!.get('transactionId'))}'`);
          return 'done';
        });
        await expect(lost).rejects.toMatchObject({ code: 'neo4j-mutex-lost' });
      } finally {
        await admin.close();
      }
    } finally {
      await a.close();
      await b.close();
    }
  }, 60_000);
});
