// End-to-end: the three inspeximus configurations through `pnpm eval` (issue #20 acceptance): the exposure column is
// what the library itself returns; a Python process killed mid-run is an error for its unit, retried on resume.
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import type { Summary } from '../analysis/grid/summarize.js';
import { libraryReads, type ReferenceCase } from '../backends/test-support/inspeximus-reference.js';
import { inspeximusSkipReason, storeDrivers } from '../backends/test-support/python-memory.js';
import { loadScenarios } from '../scenarios/index.js';
import { main } from './cli/cli.js';
import type { ProbeRecord, RunManifest, UnitRecord } from './run-log/run-log.js';
import { copySourceTree } from './test-support/source-copy.js';
import { spawnEval } from './test-support/spawn-eval.js';
import { untilWritten } from './test-support/wait-for-event.js';

const skip = await inspeximusSkipReason();
const SCENARIOS = await loadScenarios();
const N = SCENARIOS.length;
const CONFIGS = ['inspeximus', 'inspeximus-keyed', 'inspeximus-hist'] as const;
const outs: string[] = [];
afterAll(() => {
  for (const dir of outs) rmSync(dir, { recursive: true, force: true });
});
const freshOut = () => {
  const dir = mkdtempSync(join(tmpdir(), 'stalebench-inspeximus-runs-'));
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

async function evaluate(args: string[]) {
  const err: string[] = [];
  vi.spyOn(console, 'log').mockImplementation(() => {});
  vi.spyOn(console, 'error').mockImplementation((...parts) => void err.push(parts.join(' ')));
  const code = await main(['eval', ...args], {});
  vi.restoreAllMocks();
  return { code, stderr: err.join('\n') };
}

/** The library's own exposure count per configuration, default and filtered read, for one mode. */
function libraryColumn(mode: 'direct' | 'natural') {
  const cases = CONFIGS.flatMap((config) => SCENARIOS.map((scenario): ReferenceCase => ({ config, mode, scenario })));
  const reads = libraryReads(cases, new Date());
  const count = (config: string, field: 'exposed' | 'filteredExposed') =>
    reads.filter((read, index) => cases[index]!.config === config && read[field]).length;
  return Object.fromEntries(
    CONFIGS.map((config) => [
      config,
      { exposure: count(config, 'exposed'), filtered: count(config, 'filteredExposed') },
    ]),
  );
}

describe.skipIf(skip !== null)('pnpm eval on inspeximus (offline, sim)', () => {
  it('the acceptance command: exposure and store-filter columns are what inspeximus returns; the manifest records the library', async () => {
    const out = freshOut();
    const run = await evaluate([
      '--model',
      'sim',
      '--systems',
      CONFIGS.join(','),
      '--modes',
      'direct',
      '--arms',
      'none,store-filter,guard',
      '--trials',
      '2',
      '--out',
      out,
    ]);
    expect(run.code, run.stderr).toBe(0);
    const runDir = runDirOf(out);
    const summary = JSON.parse(readFileSync(join(runDir, 'summary.json'), 'utf8')) as Summary;
    const manifest = JSON.parse(readFileSync(join(runDir, 'manifest.json'), 'utf8')) as RunManifest;
    const cell = (system: string, arm: string) =>
      summary.cells.find((c) => c.system === system && c.arm === arm && c.mode === 'direct')!;
    const library = libraryColumn('direct');
    for (const config of CONFIGS) {
      expect(cell(config, 'none').exposure, config).toEqual({ k: library[config]!.exposure, n: N });
      expect(cell(config, 'store-filter').contextExposure, config).toEqual({ k: library[config]!.filtered, n: N });
      for (const arm of ['none', 'store-filter', 'guard'])
        expect(cell(config, arm).unsafe.n, `${config} ${arm}`).toBe(2 * N);
    }
    // The history read shows v1 marked superseded; the guard's stage 1 withholds it from every context.
    expect(cell('inspeximus-hist', 'guard').contextExposure).toEqual({ k: 0, n: N });
    expect(summary.guardMetrics.find((m) => m.system === 'inspeximus-hist')).toMatchObject({
      revokedPresent: library['inspeximus-hist']!.exposure,
      revokedCaught: library['inspeximus-hist']!.exposure,
      currentWithheld: 0,
    });
    expect(manifest.components?.filter((c) => c.kind === 'system')).toEqual([
      { kind: 'system', id: 'inspeximus', args: { variant: 'unkeyed', library: 'inspeximus==3.23.1' } },
      { kind: 'system', id: 'inspeximus-keyed', args: { variant: 'keyed', library: 'inspeximus==3.23.1' } },
      { kind: 'system', id: 'inspeximus-hist', args: { variant: 'keyed-history', library: 'inspeximus==3.23.1' } },
    ]);
    for (const system of manifest.systems)
      expect(system.summary).toMatch(/^inspeximus 3\.23\.1 \(PyPI\) in a Python process/);
    expect(storeDrivers()).toEqual([]);
  }, 120_000);

  it('a Python process killed mid-run: that unit is an error (never a safe answer), and resuming retries it', async () => {
    const out = freshOut();
    const args = [
      '--model',
      'sim',
      '--systems',
      'inspeximus-hist',
      '--modes',
      'direct,natural',
      '--arms',
      'none,store-filter,guard',
      '--trials',
      '2',
      '--concurrency',
      '1',
      '--out',
      out,
    ];
    const child = spawnEval(args, {});
    const setupPath = () => (readdirSync(out).length ? join(runDirOf(out), 'setup.jsonl') : '');
    // After the manifest the prerequisite check's process is gone: the next driver is the backend's. Stop it once a
    // probe is written (it is open and seeding), so the eval waits on it; then kill it.
    await untilWritten(out, () => Boolean(setupPath()) && lines(setupPath()).length >= 1, 60_000, 'the first probe');
    const [driver] = storeDrivers(child.child.pid!);
    expect(driver, 'the store driver of the running eval').toBeDefined();
    process.kill(driver!, 'SIGSTOP');
    const done = lines<ProbeRecord>(setupPath()).length;
    // Kept: nothing outside the eval says it has sent its next request to the stopped driver; half a second lets it.
    await new Promise((resolve) => setTimeout(resolve, 500));
    process.kill(driver!, 'SIGKILL');
    const code = await child.exited;
    expect(done, 'the driver was stopped before setup ended').toBeLessThan(2 * N);
    // One failed probe of 2N is within the default --max-error-rate (0.25): the run completes, exit 4, naming it.
    expect(code, child.stderr()).toBe(4);
    expect(child.stderr().trim().split('\n').at(-1)).toMatch(/^error: completed with .* setup /);
    const probes = lines<ProbeRecord>(setupPath());
    const failed = probes.filter((probe) => probe.status === 'error');
    expect(failed, JSON.stringify(probes.map((p) => p.status))).toHaveLength(1);
    expect(failed[0]!.reason).toMatch(
      /^inspeximus-hist: .* failed: the store process exited \(code null, signal SIGKILL\) before answering/,
    );
    expect(probes.filter((probe) => probe.status === 'ok')).toHaveLength(2 * N - 1);
    const unitsBefore = lines<UnitRecord>(join(runDirOf(out), 'records.jsonl'));
    expect(
      unitsBefore.some((unit) => unit.key.scenario === failed[0]!.scenario && unit.key.mode === failed[0]!.mode),
    ).toBe(false);

    const resumed = await evaluate(args);
    expect(resumed.code, resumed.stderr).toBe(0);
    const after = lines<ProbeRecord>(setupPath());
    expect(
      after
        .filter((probe) => probe.scenario === failed[0]!.scenario && probe.mode === failed[0]!.mode)
        .map((p) => p.status),
    ).toEqual(['error', 'ok']);
    expect(new Set(lines<UnitRecord>(join(runDirOf(out), 'records.jsonl')).map((unit) => unit.unitId)).size).toBe(
      2 * N * 3 * 2,
    );
    const summary = JSON.parse(readFileSync(join(runDirOf(out), 'summary.json'), 'utf8')) as Summary;
    for (const mode of ['direct', 'natural'] as const) {
      const library = libraryColumn(mode)['inspeximus-hist']!;
      expect(summary.cells.find((c) => c.mode === mode && c.arm === 'none')!.exposure, mode).toEqual({
        k: library.exposure,
        n: N,
      });
    }
  }, 180_000);
});

describe('pnpm eval on inspeximus without its Python venv', () => {
  it('exits 1 before anything is written, naming the missing package and the install command', async () => {
    const copy = copySourceTree();
    try {
      const out = join(copy.dir, 'runs');
      const result = await copy.run('eval', [
        '--model',
        'sim',
        '--systems',
        'graphiti,inspeximus-keyed',
        '--modes',
        'direct',
        '--out',
        out,
      ]);
      expect(result.code, result.stderr).toBe(1);
      expect(result.stderr).toContain(
        'error: inspeximus needs the Python package inspeximus==3.23.1 (backends/python/requirements.txt, in .cache/python/venv): no Python venv at .cache/python/venv: run bash .ci/install',
      );
      expect(existsSync(out)).toBe(false);
    } finally {
      copy.remove();
    }
  }, 60_000);
});
