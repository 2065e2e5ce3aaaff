// Three `--shard i/n` eval processes at once on one real Neo4j, merged, give the one-process run's summary byte for byte.
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, inject, it } from 'vitest';
import type { RunManifest } from '../pipeline/run-log/run-log.js';
import { POLICY_SCENARIO_IDS } from '../scenarios/index.js';
import { evalInProcess, merge, runShardProcesses, summaryOf } from '../pipeline/test-support/shard-runs.js';
import { listEngineNamespaces } from './engine-namespaces.js';
import { neo4jEvalEnv } from './test-support/neo4j-eval-env.js';

const env = neo4jEvalEnv(inject('neo4j'));
if (!env)
  console.log(
    '[neo4j-shards-eval] skipped: no Neo4j server (set NEO4J_URI, or run `pnpm run test:neo4j`, which starts one)',
  );

// Three scenarios keep it short: every shard seeds and probes all of them, one probe at a time on the engine.
const GRID = [
  '--model',
  'sim',
  '--engine',
  'neo4j',
  '--scenarios',
  POLICY_SCENARIO_IDS.slice(0, 3).join(','),
  '--systems',
  'graphiti,zep-ce',
  '--modes',
  'direct,natural',
  '--arms',
  'none,store-filter,output-filter',
  '--trials',
  '3',
  '--no-cache',
];

describe.skipIf(!env)('a grid split over three shard processes on one Neo4j', () => {
  it('merges to summary cells byte-identical to the same grid run as one process, leaving nothing on the engine', async () => {
    const root = mkdtempSync(join(tmpdir(), 'stalebench-neo4j-shards-'));
    let started = Date.now();
    const one = await evalInProcess([...GRID, '--out', join(root, 'single'), '--quiet'], env!);
    console.log(`[neo4j-shards-eval] one process: ${(Date.now() - started) / 1000} s`);
    expect(one.code, one.stderr).toBe(0);
    const single = join(root, 'single', readdirSync(join(root, 'single'))[0]!);
    // The three shards seed, read and wipe the same scenarios on the same server at the same time.
    started = Date.now();
    const shards = await runShardProcesses(GRID, join(root, 'shards'), 3, env!);
    console.log(`[neo4j-shards-eval] three shard processes at once: ${(Date.now() - started) / 1000} s`);
    const nonces = shards.map(
      (dir) => (JSON.parse(readFileSync(join(dir, 'manifest.json'), 'utf8')) as RunManifest).invocations![0]!.nonce,
    );
    expect(new Set(nonces).size).toBe(3);
    const merged = merge(shards, join(root, 'merged'));
    expect(merged.code, merged.stderr).toBe(0);
    expect(JSON.stringify(summaryOf(join(root, 'merged')).summary.cells)).toBe(
      JSON.stringify(summaryOf(single).summary.cells),
    );
    expect(summaryOf(join(root, 'merged')).text).toBe(summaryOf(single).text);
    const left = await listEngineNamespaces({
      graph: { id: 'neo4j', uri: env!.NEO4J_URI, user: env!.NEO4J_USER, password: env!.NEO4J_PASSWORD },
      vector: { id: 'embedded' },
    });
    expect(left.filter((namespace) => nonces.includes(namespace.nonce))).toEqual([]);
  }, 600_000);
});
