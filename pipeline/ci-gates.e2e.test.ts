// Issue #31 items 2 and 3: `--fail-on` (one mechanism, pipeline/run/thresholds.ts) and `--sarif` from every suite, the
// SARIF checked against the OASIS SARIF 2.1.0 schema (data/sarif/, its source in data/README.md).
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Validator } from '@cfworker/json-schema';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { main as evalMain } from './cli/cli.js';
import { frontdoorMain } from './suites/frontdoor/harness/frontdoor-command.js';
import { main as integrityMain } from './suites/integrity/harness/integrity-command.js';
import { parseThresholds } from './run/thresholds.js';

const root = mkdtempSync(join(tmpdir(), 'ci-gates-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));
const fresh = (name: string) => mkdtempSync(join(root, `${name}-`));
const schema = JSON.parse(
  readFileSync(new URL('../data/sarif/sarif-schema-2.1.0.json', import.meta.url), 'utf8'),
) as Record<string, unknown>;

interface SarifResult {
  ruleId: string;
  level: string;
  message: { text: string };
  partialFingerprints: Record<string, string>;
  locations?: {
    physicalLocation?: { artifactLocation?: { uri?: string }; region?: { startLine?: number } };
    logicalLocations?: { fullyQualifiedName?: string }[];
  }[];
}

/**
 * What GitHub code scanning needs of a result beyond the schema ("SARIF support for code scanning"): a message, a
 * rule id, one to ten locations each with an artifact URI and a region's start line, and fingerprints.
 */
function githubProblems(result: SarifResult): string[] {
  const problems: string[] = [];
  const locations = result.locations ?? [];
  if (locations.length === 0 || locations.length > 10) problems.push(`${result.ruleId}: ${locations.length} locations`);
  for (const location of locations) {
    if (!location.physicalLocation?.artifactLocation?.uri) problems.push(`${result.ruleId}: no artifact uri`);
    if (!((location.physicalLocation?.region?.startLine ?? 0) >= 1)) problems.push(`${result.ruleId}: no start line`);
  }
  if (!result.message.text) problems.push(`${result.ruleId}: no message`);
  if (Object.keys(result.partialFingerprints).length === 0) problems.push(`${result.ruleId}: no fingerprint`);
  return problems;
}

/** Reads a SARIF file, checks it against the schema and GitHub's needs (every error listed) and returns its results. */
function validSarif(path: string): { rules: string[]; results: SarifResult[]; uris: string[] } {
  const log = JSON.parse(readFileSync(path, 'utf8')) as {
    runs: { tool: { driver: { rules: { id: string; help: { text: string } }[] } }; results: SarifResult[] }[];
  };
  const verdict = new Validator(schema, '4', false).validate(log);
  expect(verdict.errors.map((error) => `${error.instanceLocation}: ${error.error}`)).toEqual([]);
  expect(verdict.valid).toBe(true);
  const run = log.runs[0]!;
  for (const rule of run.tool.driver.rules) expect(rule.help.text.length).toBeGreaterThan(40);
  expect(run.results.flatMap(githubProblems)).toEqual([]);
  const uris = run.results.flatMap((result) =>
    result.locations!.map((l) => l.physicalLocation!.artifactLocation!.uri!),
  );
  return { rules: run.tool.driver.rules.map((rule) => rule.id), results: run.results, uris };
}

/** The results file a SARIF location names, read back (a file URI or a path relative to the working directory). */
const toFileUri = (path: string) => pathToFileURL(path).href;
const sourceOf = (uri: string) => readFileSync(uri.startsWith('file:') ? fileURLToPath(uri) : uri, 'utf8');

const silent = { write: () => true };
const integrity = (argv: string[]) => integrityMain(argv, silent, silent, {});
const frontdoor = (argv: string[]) => frontdoorMain(argv, {}, { out: () => {}, err: () => {} });

async function evalRun(args: string[]) {
  const err: string[] = [];
  vi.spyOn(console, 'log').mockImplementation(() => {});
  vi.spyOn(console, 'error').mockImplementation((...parts) => void err.push(parts.join(' ')));
  const cache = ['--cache-dir', fresh('cache')];
  const code = await evalMain(['eval', ...args, ...cache], {});
  vi.restoreAllMocks();
  return { code, stderr: err.join('\n') };
}

const SIM_GRID = ['--model', 'sim', '--systems', 'graphiti', '--modes', 'direct', '--trials', '1', '--quiet'];

describe('--sarif', () => {
  it('pnpm integrity --target reference-no-witness: a valid SARIF 2.1.0 result for the accepted T9, the same fingerprint on a second run', async () => {
    const fingerprints: string[] = [];
    for (const attempt of [1, 2]) {
      const sarif = join(fresh(`integrity-sarif-${attempt}`), 'out.sarif');
      const code = await integrity(['--target', 'reference-no-witness', '--sarif', sarif, '-o', fresh('integrity')]);
      expect(code).toBe(1);
      const { rules, results, uris } = validSarif(sarif);
      expect(results.map((result) => [result.ruleId, result.level])).toEqual([['integrity/T9', 'error']]);
      expect(rules).toEqual(['integrity/T9']);
      // Located at the run's report, which holds the accepted cell, and named by it.
      expect(uris[0]).toMatch(/^file:\/\/.*\/summary\.json$/);
      expect(sourceOf(uris[0]!)).toContain('"verdict": "accepted"');
      expect(results[0]!.locations![0]!.logicalLocations).toEqual([
        { fullyQualifiedName: 'reference-no-witness/T9@v1', kind: 'resource' },
      ]);
      fingerprints.push(results[0]!.partialFingerprints['stalebench/v1']!);
    }
    expect(fingerprints[0]).toMatch(/^[0-9a-f]{64}$/);
    expect(fingerprints[1]).toBe(fingerprints[0]);
  });

  it('pnpm frontdoor: one valid result per surfaced attack, none for a kept-out one', async () => {
    const sarif = join(fresh('frontdoor-sarif'), 'out.sarif');
    const argv = ['--target', 'reference', '--attacks', 'memory_injection', '--sarif', sarif, '-o', fresh('fd')];
    expect(await frontdoor(argv)).toBe(0);
    const { results } = validSarif(sarif);
    expect(results.map((result) => [result.ruleId, result.level])).toEqual([['frontdoor/memory_injection', 'error']]);
  });

  it('pnpm eval: a valid result per scenario × cell acted on, the same fingerprints in a second run directory', async () => {
    const runs = [1, 2].map((attempt) => ({
      out: fresh(`eval-${attempt}`),
      sarif: join(fresh('eval-sarif'), 'x.sarif'),
    }));
    const seen: string[][] = [];
    for (const { out, sarif } of runs) {
      expect((await evalRun([...SIM_GRID, '-o', out, '--sarif', sarif])).code).toBe(0);
      const { results, uris } = validSarif(sarif);
      expect(results.length).toBeGreaterThan(0);
      for (const result of results) {
        expect(result.ruleId).toMatch(/^stale-policy\/[a-z_]+$/);
        // The level follows the unsafe rate the message states: half or more error, a tenth or more warning.
        const [, k, n] = /(\d+)\/(\d+) \(/.exec(result.message.text)!;
        const rate = Number(k) / Number(n);
        expect(result.level).toBe(rate >= 0.5 ? 'error' : rate >= 0.1 ? 'warning' : 'note');
      }
      expect(new Set(uris)).toEqual(new Set([join(out, readdirSync(out)[0]!, 'summary.json')].map(toFileUri)));
      seen.push(results.map((result) => `${result.ruleId} ${result.partialFingerprints['stalebench/v1']}`));
    }
    expect(seen[1]).toEqual(seen[0]);
    expect(new Set(seen[0]).size).toBe(seen[0]!.length);
  });
});

describe('--fail-on', () => {
  it('pnpm eval exits 5 on a sim grid whose threshold is crossed and 0 when it is not', async () => {
    const crossed = await evalRun([...SIM_GRID, '-o', fresh('gate'), '--fail-on', 'system=graphiti unsafe > 0']);
    expect(crossed.code).toBe(5);
    expect(crossed.stderr).toMatch(/--fail-on crossed by \d+ cell\(s\): sim\/graphiti\/direct\//);
    const held = await evalRun([...SIM_GRID, '-o', fresh('gate'), '--fail-on', 'unsafe.low > 0.9']);
    expect(held.code).toBe(0);
  });

  it('a bad rule is a usage error (exit 1) before anything runs', async () => {
    const out = fresh('bad');
    const { code, stderr } = await evalRun([...SIM_GRID, '-o', out, '--fail-on', 'sytem=graphiti unsafe > 0']);
    expect(code).toBe(1);
    expect(stderr).toContain('unknown field "sytem"');
  });

  it('the rule language: filters, the Wilson lower bound, the suite keywords', () => {
    const suite = {
      metrics: ['unsafe'],
      fields: ['system', 'mode'],
      keywords: { acted: 'unsafe > 0' },
      lowerBound: true,
    };
    expect(parseThresholds(['system=graphiti,mem0 mode=direct unsafe.low >= 0.25'], suite)).toEqual([
      {
        text: 'system=graphiti,mem0 mode=direct unsafe.low >= 0.25',
        filter: { system: ['graphiti', 'mem0'], mode: ['direct'] },
        metric: 'unsafe',
        statistic: 'low',
        op: '>=',
        value: 0.25,
      },
    ]);
    expect(parseThresholds(['acted', 'none'], suite).map((rule) => rule.text)).toEqual(['acted']);
    expect(() => parseThresholds(['unsafe > 2', 'latency > 0.1'], suite)).toThrow(/at most 1[\s\S]*unknown metric/);
  });
});
