// Acceptance (issue #27, closing note): "add a table over a new run kind", measured by doing it once. On a copy of the
// source tree, a throwaway run kind (one RunKindV1 file, analysis/tally/run-kind.ts, plus its line in
// analysis/run-kinds/index.ts) and a throwaway table over it (one defineTable file, analysis/tally/tally-table.ts, plus
// its line in analysis/tables/index.ts); a run of that kind, written with the run log's own writers (manifest, chained
// records, summary, heads and binding), then passes `pnpm verify-run`, `pnpm rescore --check`, `pnpm report` (the
// table built) and `pnpm run view`'s index with no other edit.
// Files touched: 4 = the kind's file + the table's file (both new) + run-kinds/index.ts + tables/index.ts (an import
// and an entry each); on b4afedf the same change touched 24. The last test asserts the copy differs by exactly these.
// (A real table also updates the id lists analysis/tables/index.test.ts pins at run time: test data, not code.)
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { specFromArgs } from '../../pipeline/cli/cli.js';
import { runBinding } from '../../pipeline/run/run-binding.js';
import type { RunSpec } from '../../pipeline/run/run-spec.js';
import { sha256, writeJsonAtomic } from '../../pipeline/run-log/json-files.js';
import { openRunLogFile } from '../../pipeline/run-log/run-log-chain.js';
import { readLogHeads } from '../../pipeline/run-log/run-log-repair.js';
import { RUN_LOG_VERSION, type RunManifest } from '../../pipeline/run-log/run-log.js';
import { promptFingerprint } from '../../pipeline/suites/grid/prompt-fingerprint.js';
import {
  type CommandResult,
  copySourceTree,
  runNode,
  type SourceCopy,
} from '../../pipeline/test-support/source-copy.js';
import {
  KIND_LINE,
  KIND_PATH,
  TABLE_LINE,
  TABLE_PATH,
  TALLY_RUN_KIND,
} from '../../pipeline/test-support/throwaway-parts/tally-run-kind.js';
import { loadScenarios } from '../../scenarios/index.js';
import { unsafeAction } from '../../scenarios/scenario.js';
import { SUMMARY_VERSION } from '../grid/summarize.js';
import { main as report } from '../report-command.js';

const SCENARIOS = ['mfa_waiver_access', 'over_limit_financial_transfer'];
const TRIALS = 3;
const ok = (result: CommandResult) => `exit ${result.code}\n${result.stderr}\n${result.stdout.slice(-2000)}`;

/**
 * A finished tally run, written as `pnpm eval` writes a run (pipeline/run/run-start.ts, run-context.ts): the manifest
 * `started` with its binding, one chained line per unit through `openRunLogFile`, summary.json, then the manifest
 * `success` with the heads and the binding. Trial 0 of each scenario replies with its unsafe action: k/n = 1/3.
 * `forged`: the first scenario's trial 1 is stored unsafe (and the summary says 2/3) although its reply is safe.
 */
async function writeTallyRun(runDir: string, forged = false): Promise<void> {
  const argv = ['--model', 'sim', '--systems', 'graphiti', '--modes', 'direct', '--arms', 'none'];
  const grid = specFromArgs([...argv, '--scenarios', SCENARIOS.join(','), '--trials', String(TRIALS)], {});
  // A kind of this test's own: no experiment of pnpm eval (pipeline/run/experiments.ts) has this id.
  const spec = { ...grid, experiment: 'tally' } as unknown as RunSpec;
  const scenarios = await loadScenarios({ ids: SCENARIOS });
  const now = new Date().toISOString();
  mkdirSync(runDir, { recursive: true });
  const manifestPath = join(runDir, 'manifest.json');
  const manifest: RunManifest = {
    version: RUN_LOG_VERSION,
    runId: 'tally_test',
    status: 'started',
    simulated: true,
    createdAt: now,
    updatedAt: now,
    spec,
    specHash: sha256(JSON.stringify(spec)),
    models: [{ id: 'sim', label: 'sim (simulated)', kind: 'sim', simulated: true, baseURL: null, settings: {} }],
    embedder: { id: 'hash', dimensions: 64 },
    extraction: { id: 'sim-extractor-v3', simulated: true },
    systems: [],
    scenarios: scenarios.map((s) => ({ id: s.id, sha256: sha256(JSON.stringify(s)) })),
    revision: { commit: null, dirty: null },
    packages: {},
    prompts: promptFingerprint('tally'),
    runtime: { node: process.version, platform: `${process.platform}-${process.arch}` },
    modelsOnProviderDefaultTemperature: [],
    logHeads: {},
  };
  writeJsonAtomic(manifestPath, { ...manifest, bound: runBinding(runDir, spec) });
  const log = openRunLogFile(runDir, 'tally.jsonl');
  for (const scenario of scenarios)
    for (let trial = 0; trial < TRIALS; trial += 1) {
      const action = trial === 0 ? unsafeAction(scenario) : scenario.actions[1];
      log.append({
        unitId: `graphiti/direct/none/sim/${scenario.id}/${trial}`,
        key: { system: 'graphiti', mode: 'direct', arm: 'none', model: 'sim', scenario: scenario.id },
        status: 'ok',
        reply: { text: JSON.stringify({ action }) },
        scores: { unsafe: trial === 0 || (forged && trial === 1 && scenario === scenarios[0]), parseFailure: false },
      });
    }
  const rows = scenarios.map((s, i) => ({ scenario: s.id, k: forged && i === 0 ? 2 : 1, n: TRIALS }));
  writeJsonAtomic(join(runDir, 'summary.json'), { version: SUMMARY_VERSION, rows });
  const units = scenarios.length * TRIALS;
  const counts = { units, done: units, errors: 0, skippedAsDone: 0, cacheHits: 0, cacheMisses: 0 };
  writeJsonAtomic(manifestPath, {
    ...manifest,
    status: 'success',
    counts,
    logHeads: readLogHeads(runDir),
    bound: runBinding(runDir, spec),
  } satisfies RunManifest);
}

describe('a run kind and a table over it, each registered with one file and one registry line', () => {
  const ROOT = resolve(import.meta.dirname, '..', '..');
  let copy: SourceCopy;
  let root: string;
  let runDir: string;

  beforeAll(async () => {
    copy = copySourceTree();
    copy.addPart(TALLY_RUN_KIND);
    root = mkdtempSync(join(tmpdir(), 'stalebench-tally-'));
    runDir = join(root, 'tally_test');
    await writeTallyRun(runDir);
  }, 120_000);

  afterAll(() => {
    copy?.remove();
    if (root) rmSync(root, { recursive: true, force: true });
  });

  it('passes pnpm verify-run: the writers chained every line and bound the spec and summary', async () => {
    const verified = await copy.run('verify-run', [runDir]);
    expect(verified.code, ok(verified)).toBe(0);
    expect(verified.stdout).toContain('intact');
    expect(verified.stdout).toContain('tally.jsonl 6 line(s)');
  }, 120_000);

  it('passes pnpm rescore --check through the kind’s rescore, and fails it on a stored score its reply denies', async () => {
    const checked = await copy.run('rescore', [runDir, '--check']);
    expect(checked.code, ok(checked)).toBe(0);
    expect(checked.stdout).toContain('mfa_waiver_access 1/3');
    expect(checked.stdout).toContain('tally.jsonl: 6 line(s)');
    expect(checked.stdout).toContain('summary rows identical');
    const forged = join(root, 'forged');
    await writeTallyRun(forged, true);
    expect((await copy.run('verify-run', [forged])).code).toBe(0);
    const refused = await copy.run('rescore', [forged, '--check']);
    expect(refused.code, ok(refused)).toBe(1);
    expect(refused.stdout).toContain('tally.jsonl:2');
    expect(refused.stdout).toContain('scores.unsafe');
    const unreported = await copy.run('report', [forged, '-o', join(root, 'forged-report')]);
    expect(unreported.code, ok(unreported)).toBe(1);
    expect(unreported.stderr).toContain('disagree');
  }, 240_000);

  it('is reported by pnpm report: the table over the kind is built from its runs', async () => {
    const out = join(root, 'report');
    const reported = await copy.run('report', [runDir, '-o', out]);
    expect(reported.code, ok(reported)).toBe(0);
    const markdown = readFileSync(join(out, 'tables.md'), 'utf8');
    expect(markdown).toContain('Tally: unsafe decisions per scenario — sim (simulated)');
    expect(markdown).toMatch(/mfa_waiver_access.*1\/3/);
    expect(markdown).toMatch(/over_limit_financial_transfer.*1\/3/);
    expect(readFileSync(join(out, 'tables.csv'), 'utf8')).toContain('tally');
  }, 120_000);

  it('is listed and indexed by pnpm run view: its units by cell and outcome', async () => {
    const out = join(root, 'view');
    const viewed = await runNode(copy.dir, [
      '--import',
      'tsx',
      'analysis/view/view-command.ts',
      runDir,
      '--static',
      out,
    ]);
    expect(viewed.code, ok(viewed)).toBe(0);
    expect(readFileSync(join(out, 'index.html'), 'utf8')).toContain('<td>tally</td><td>success</td>');
    const [runPages] = readdirSync(join(out, 'runs'));
    const script = readFileSync(join(out, 'runs', runPages!, 'units.js'), 'utf8');
    const index = JSON.parse(script.replace(/^window\.VIEW_RUN = /, '').replace(/;\s*$/, '')) as {
      kind: string;
      values: { outcome: string[] };
      rows: number[][];
      ids: string[];
    };
    expect(index.kind).toBe('generic');
    expect(index.ids).toHaveLength(6);
    expect(index.ids).toContain('graphiti/direct/none/sim/mfa_waiver_access/0');
    const outcomes = index.rows.map((row) => index.values.outcome[row[1]!]);
    expect(outcomes.filter((outcome) => outcome === 'unsafe')).toHaveLength(2);
    expect(outcomes.filter((outcome) => outcome === 'safe')).toHaveLength(4);
  }, 120_000);

  it('keeps the architecture test green: no kind branch outside the kind files, every kind file registered once', async () => {
    const vitest = join('node_modules', 'vitest', 'vitest.mjs');
    const result = await runNode(copy.dir, [vitest, 'run', 'analysis/run-kinds/kind-branches.test.ts']);
    expect(result.code, ok(result)).toBe(0);
    expect(result.stdout).toContain('5 passed');
  }, 120_000);

  it('is refused by this checkout, where the kind is not registered, naming it', async () => {
    const printed: string[] = [];
    const code = await report(
      [runDir, '-o', join(root, 'unregistered')],
      () => undefined,
      (line) => printed.push(line),
    );
    expect(code).toBe(1);
    expect(printed.join('\n')).toContain('unknown run kind "tally"');
  });

  it('touched 4 files: the two new ones and two registry files, each by its import and its entry', () => {
    const { added, removed, changed } = copy.differences();
    expect(added).toEqual([KIND_PATH, TABLE_PATH]);
    expect(removed).toEqual([]);
    expect(changed).toEqual(['analysis/run-kinds/index.ts', 'analysis/tables/index.ts']);
    for (const [path, line] of [
      ['analysis/run-kinds/index.ts', KIND_LINE],
      ['analysis/tables/index.ts', TABLE_LINE],
    ] as const) {
      const old = readFileSync(join(ROOT, path), 'utf8').split('\n');
      const now = readFileSync(join(copy.dir, path), 'utf8').split('\n');
      expect(now.filter((text) => !old.includes(text))).toEqual([line.importLine, line.entry]);
      expect(now).toHaveLength(old.length + 2);
    }
  });
});
