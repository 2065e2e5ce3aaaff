// Acceptance (the house rule "adding a backend is one file plus one registry line plus a test"): a throwaway memory
// system (pipeline/test-support/throwaway-parts/notebook-backend.ts) added as its file, its line in SYSTEMS and its
// test (the shared conformance suite) runs through `pnpm eval`, `pnpm verify-run`, `pnpm report` and `--help` on a
// copy of the source tree with no other edit: its exposure comes from its own status field, its store filter and the
// guard apply, its unsupported mode is n/a with its reason, and the manifest records what it is. (A real system also
// gets a line in the ids backends/registries.test.ts pins at run time, with its factory's defaults: test data.)
import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { stripVTControlCharacters } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Summary } from '../analysis/grid/summarize.js';
import { specFromArgs } from '../pipeline/cli/cli.js';
import type { RunManifest } from '../pipeline/run-log/run-log.js';
import { type CommandResult, copySourceTree, runNode, type SourceCopy } from '../pipeline/test-support/source-copy.js';
import {
  NOTEBOOK_BACKEND,
  NOTEBOOK_NO_NATURAL,
  NOTEBOOK_SUMMARY,
} from '../pipeline/test-support/throwaway-parts/notebook-backend.js';
import { loadScenarios } from '../scenarios/index.js';

const ROOT = resolve(import.meta.dirname, '..');
const N = (await loadScenarios()).length;
const ok = (result: CommandResult) => `exit ${result.code}\n${result.stderr}\n${result.stdout.slice(-2000)}`;

describe('a memory system registered with one file, one registry line and its test', () => {
  let copy: SourceCopy;
  let runDir: string;
  let evaluation: CommandResult;

  beforeAll(async () => {
    copy = copySourceTree();
    copy.addPart(NOTEBOOK_BACKEND);
    const out = join(copy.dir, 'runs');
    evaluation = await copy.run('eval', [
      ...['--model', 'sim', '--systems', 'notebook', '--modes', 'direct,natural'],
      ...['--arms', 'none,store-filter,guard', '--trials', '2', '--no-cache', '-o', out],
    ]);
    runDir = join(out, readdirSync(out)[0]!);
  }, 240_000);

  afterAll(() => copy?.remove());

  it('touches 3 files: the system, its test and the registry; nothing else', () => {
    const { added, removed, changed } = copy.differences();
    expect(added).toEqual(['backends/notebook-backend.test.ts', 'backends/notebook-backend.ts']);
    expect(removed).toEqual([]);
    expect(changed).toEqual(['backends/index.ts']);
    const old = readFileSync(join(ROOT, 'backends/index.ts'), 'utf8').split('\n');
    const now = readFileSync(join(copy.dir, 'backends/index.ts'), 'utf8').split('\n');
    expect(now.filter((line) => !old.includes(line))).toEqual([NOTEBOOK_BACKEND.registryLines[0]!.line.entry]);
  });

  it('passes its own test in the copy: the conformance suite every memory system passes', async () => {
    const vitest = join(ROOT, 'node_modules', 'vitest', 'vitest.mjs');
    const result = await runNode(copy.dir, [vitest, 'run', 'backends/notebook-backend.test.ts']);
    expect(result.code, ok(result)).toBe(0);
    // 7 checks; the shared-engine one skips (an in-process notebook has no engine two backends could share).
    expect(stripVTControlCharacters(result.stdout)).toMatch(/notebook-backend\.test\.ts \(7 tests \| 1 skipped\)/);
  }, 120_000);

  it('runs through pnpm eval: exposure from its status field, its store filter and the guard apply, natural is n/a', () => {
    expect(evaluation.code, ok(evaluation)).toBe(0);
    const summary = JSON.parse(readFileSync(join(runDir, 'summary.json'), 'utf8')) as Summary;
    const cell = (mode: string, arm: string) =>
      summary.cells.find((c) => c.system === 'notebook' && c.mode === mode && c.arm === arm)!;
    // Every scenario's revoked fact is served by the default read (it carries expired_at, never hidden).
    for (const arm of ['none', 'store-filter', 'guard']) expect(cell('direct', arm).exposure).toEqual({ k: N, n: N });
    expect(cell('direct', 'none').contextExposure).toEqual({ k: N, n: N });
    expect(cell('direct', 'store-filter').contextExposure).toEqual({ k: 0, n: N });
    expect(cell('direct', 'guard').contextExposure).toEqual({ k: 0, n: N });
    expect(cell('direct', 'none').unsafe.n).toBe(2 * N);
    for (const arm of ['none', 'store-filter', 'guard'])
      expect(cell('natural', arm)).toMatchObject({ status: 'n/a', reason: NOTEBOOK_NO_NATURAL });
    expect(evaluation.stdout).toContain(`${NOTEBOOK_NO_NATURAL} — notebook natural`);
  });

  it('is recorded in the manifest as what it says it is', () => {
    const manifest = JSON.parse(readFileSync(join(runDir, 'manifest.json'), 'utf8')) as RunManifest;
    expect(manifest.systems.map((system) => system.id)).toEqual(['notebook']);
    expect(JSON.stringify(manifest.systems[0])).toContain(NOTEBOOK_SUMMARY);
  });

  it('passes pnpm verify-run, and pnpm report builds its rows', async () => {
    const verified = await copy.run('verify-run', [runDir]);
    expect(verified.code, ok(verified)).toBe(0);
    const reported = await copy.run('report', [runDir, '-o', join(copy.dir, 'report')]);
    expect(reported.code, ok(reported)).toBe(0);
    const tables = readFileSync(join(copy.dir, 'report', 'tables.md'), 'utf8');
    const rows = tables.split('\n').filter((line) => line.includes('notebook'));
    expect(rows.length, tables).toBeGreaterThan(0);
    expect(rows.join('\n'), tables).toContain(`${N}/${N}`);
  });

  it('is listed by --help with its summary; this checkout, where it is not registered, refuses it naming the others', async () => {
    const help = await copy.run('eval', ['--help']);
    expect(help.stdout).toContain('notebook');
    expect(help.stdout).toContain(NOTEBOOK_SUMMARY);
    expect(() => specFromArgs(['--model', 'sim', '--systems', 'notebook'], {})).toThrow(
      /unknown system "notebook"; available: graphiti, zep-ce/,
    );
  });
});
