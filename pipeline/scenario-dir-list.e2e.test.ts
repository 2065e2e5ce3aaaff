// Issue #26 item 4: `--scenario-dir` without `--scenarios` runs the directory's own scenarios (its index.json's order,
// else every file by name), not the nine repository ids.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { POLICY_SCENARIO_DIR } from '../scenarios/index.js';
import type { RunManifest, UnitRecord } from './run-log/run-log.js';
import { runEvalCli } from './test-support/eval-cli.js';

const root = mkdtempSync(join(tmpdir(), 'stalebench-scenario-dir-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

const mfa = JSON.parse(readFileSync(join(POLICY_SCENARIO_DIR, 'mfa_waiver_access.json'), 'utf8')) as object;
/** A folder of copies of one repository scenario under new ids, with an index.json listing `indexed` when given. */
function scenarioDir(name: string, ids: readonly string[], indexed?: readonly string[]): string {
  const dir = join(root, name);
  mkdirSync(dir);
  for (const id of ids)
    writeFileSync(join(dir, `${id}.json`), JSON.stringify({ ...mfa, id, short: id, source: 'a test copy' }, null, 2));
  if (indexed)
    writeFileSync(
      join(dir, 'index.json'),
      JSON.stringify({ about: 'test scenarios', source: 'this test', scenarios: indexed.map((id) => ({ id })) }),
    );
  return dir;
}

const run = (dir: string, out: string, extra: string[] = []) =>
  runEvalCli(
    [
      '--model',
      'sim',
      '--systems',
      'graphiti',
      '--modes',
      'direct',
      '--arms',
      'none',
      '--trials',
      '1',
      '--no-cache',
      '--quiet',
      '--scenario-dir',
      dir,
      '--out',
      out,
      '--run-id',
      'r',
      ...extra,
    ],
    {},
  );
const manifestOf = (out: string) => JSON.parse(readFileSync(join(out, 'r', 'manifest.json'), 'utf8')) as RunManifest;
const scenariosRun = (out: string) => [
  ...new Set(
    readFileSync(join(out, 'r', 'records.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((line) => (JSON.parse(line) as UnitRecord).key.scenario),
  ),
];

describe('--scenario-dir without --scenarios', () => {
  it("runs the directory's index.json list, in its order", async () => {
    const dir = scenarioDir('indexed', ['zz_alpha', 'zz_beta', 'zz_gamma'], ['zz_gamma', 'zz_alpha', 'zz_beta']);
    const out = join(root, 'out-indexed');
    const result = await run(dir, out);
    expect(result.stderr).not.toMatch(/unknown scenario/);
    expect(result.code, result.stderr).toBe(0);
    expect(manifestOf(out).spec.scenarios).toEqual(['zz_gamma', 'zz_alpha', 'zz_beta']);
    expect(scenariosRun(out).sort()).toEqual(['zz_alpha', 'zz_beta', 'zz_gamma']);
  }, 60_000);

  it('runs every file of a directory without an index, sorted by name', async () => {
    const dir = scenarioDir('plain', ['zz_second', 'zz_first']);
    const out = join(root, 'out-plain');
    const result = await run(dir, out);
    expect(result.code, result.stderr).toBe(0);
    expect(manifestOf(out).spec.scenarios).toEqual(['zz_first', 'zz_second']);
  }, 60_000);

  it('--scenarios still picks a subset of the directory', async () => {
    const dir = scenarioDir('subset', ['zz_first', 'zz_second']);
    const out = join(root, 'out-subset');
    const result = await run(dir, out, ['--scenarios', 'zz_second']);
    expect(result.code, result.stderr).toBe(0);
    expect(manifestOf(out).spec.scenarios).toEqual(['zz_second']);
  }, 60_000);

  it('an index that leaves a file out is one error naming the index and the file, with nothing written', async () => {
    const dir = scenarioDir('bad-index', ['zz_first', 'zz_second'], ['zz_first']);
    const out = join(root, 'out-bad');
    const result = await run(dir, out);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(join(dir, 'index.json'));
    expect(result.stderr).toContain('zz_second.json is in the folder but not in the index');
  });
});
