// `pnpm eval --engine neo4j` against a real Neo4j gives the same exposure and unsafe counts as the embedded engine.
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, inject, it, vi } from 'vitest';
import type { Summary } from '../analysis/grid/summarize.js';
import { main } from '../pipeline/cli/cli.js';
import { POLICY_SCENARIO_IDS } from '../scenarios/index.js';
import { neo4jEvalEnv } from './test-support/neo4j-eval-env.js';

const env = neo4jEvalEnv(inject('neo4j'));
if (!env)
  console.log(
    '[neo4j-engine-eval] skipped: no Neo4j server (set NEO4J_URI, or run `pnpm run test:neo4j`, which starts one)',
  );

async function evaluate(args: string[], environment: Record<string, string>) {
  const out = mkdtempSync(join(tmpdir(), 'stalebench-engine-'));
  const err: string[] = [];
  vi.spyOn(console, 'log').mockImplementation(() => {});
  vi.spyOn(console, 'error').mockImplementation((...parts) => void err.push(parts.join(' ')));
  const started = Date.now();
  const code = await main(['eval', '--model', 'sim', '--trials', '2', '--out', out, ...args], environment);
  vi.restoreAllMocks();
  return { code, out, seconds: (Date.now() - started) / 1000, stderr: err.join('\n') };
}

const counts = (summary: Summary) =>
  summary.cells.map((c) => ({
    system: c.system,
    mode: c.mode,
    arm: c.arm,
    status: c.status,
    exposure: c.exposure,
    unsafe: [c.unsafe.k, c.unsafe.n],
  }));
const summaryOf = (out: string) =>
  JSON.parse(readFileSync(join(out, readdirSync(out)[0]!, 'summary.json'), 'utf8')) as Summary;

describe.skipIf(!env)('the neo4j engine in a full eval', () => {
  it('gives identical exposure and unsafe counts to the embedded engine for graphiti and zep-ce', async () => {
    const args = ['--systems', 'graphiti,zep-ce', '--modes', 'direct,natural', '--arms', 'none,store-filter'];
    const embedded = await evaluate(args, {});
    const neo4j = await evaluate([...args, '--engine', 'neo4j'], env!);
    expect(embedded.code, embedded.stderr).toBe(0);
    expect(neo4j.code, neo4j.stderr).toBe(0);
    expect(counts(summaryOf(neo4j.out))).toEqual(counts(summaryOf(embedded.out)));
    expect(counts(summaryOf(neo4j.out)).find((c) => c.system === 'graphiti' && c.mode === 'direct')!.exposure).toEqual({
      k: POLICY_SCENARIO_IDS.length,
      n: POLICY_SCENARIO_IDS.length,
    });
  }, 180_000);

  it('--tamper unrevoke on Neo4j: the store filter serves the revived v1 everywhere, the ledger filter nowhere', async () => {
    const args = [
      '--systems',
      'graphiti',
      '--modes',
      'direct',
      '--arms',
      'store-filter,ledger-filter',
      '--tamper',
      'unrevoke',
    ];
    const neo4j = await evaluate([...args, '--engine', 'neo4j'], env!);
    expect(neo4j.code, neo4j.stderr).toBe(0);
    const context = (arm: string) => summaryOf(neo4j.out).cells.find((c) => c.arm === arm)?.contextExposure;
    const n = POLICY_SCENARIO_IDS.length;
    expect([context('store-filter'), context('ledger-filter')]).toEqual([
      { k: n, n },
      { k: 0, n },
    ]);
  }, 180_000);

  it('gives the same write-back hops on Neo4j as on the embedded engine (journals are real DECISION edges)', async () => {
    const args = ['--experiment', 'writeback', '--systems', 'graphiti', '--arms', 'direct'];
    const embedded = await evaluate(args, {});
    const neo4j = await evaluate([...args, '--engine', 'neo4j'], env!);
    expect(embedded.code, embedded.stderr).toBe(0);
    expect(neo4j.code, neo4j.stderr).toBe(0);
    type Row = {
      poisoned: number;
      storedActive: unknown;
      defaultHops: unknown;
      filteredHops: unknown;
      journalRetrievedFiltered: unknown;
    };
    const rows = (out: string) =>
      (
        JSON.parse(readFileSync(join(out, readdirSync(out)[0]!, 'summary.json'), 'utf8')) as { writeback: Row[] }
      ).writeback.map(({ poisoned, storedActive, defaultHops, filteredHops, journalRetrievedFiltered }) => ({
        poisoned,
        storedActive,
        defaultHops,
        filteredHops,
        journalRetrievedFiltered,
      }));
    // Every hop's context, in retrieval order, is the same on both engines (the sim's draws depend on it).
    const contexts = (out: string) =>
      readFileSync(join(out, readdirSync(out)[0]!, 'writeback.jsonl'), 'utf8')
        .trim()
        .split('\n')
        .map(
          (line) =>
            JSON.parse(line) as {
              unitId: string;
              hops: {
                hop: number;
                default: { readTrace: { records: { text: string; fields: Record<string, unknown> }[] } };
                filtered: { readTrace: { records: { text: string }[] } };
              }[];
            },
        )
        .sort((a, b) => a.unitId.localeCompare(b.unitId))
        .flatMap((r) =>
          r.hops.map((h) => ({
            unit: r.unitId,
            hop: h.hop,
            default: h.default.readTrace.records.map((x) => x.text),
            filtered: h.filtered.readTrace.records.map((x) => x.text),
          })),
        );
    expect(contexts(neo4j.out)).toEqual(contexts(embedded.out));
    expect(rows(neo4j.out)).toEqual(rows(embedded.out));
    expect(rows(neo4j.out)[0]!.poisoned).toBeGreaterThan(0);
  }, 180_000);
});

describe('a wrong NEO4J_URI', () => {
  it('fails in seconds, names the URL, and writes nothing', async () => {
    const result = await evaluate(['--systems', 'graphiti', '--modes', 'direct', '--engine', 'neo4j'], {
      NEO4J_URI: 'bolt://127.0.0.1:1',
      NEO4J_PASSWORD: 'x',
    });
    expect(result.code).toBe(1);
    expect(result.seconds).toBeLessThan(15);
    expect(result.stderr).toContain('bolt://127.0.0.1:1');
    expect(readdirSync(result.out)).toEqual([]);
  }, 30_000);
});
