// The architecture as a test (issue #27): outside the run-kind registry and the kinds' own files, analysis/ and
// notebooks/ never branch on a run's kind; they ask the registry (analysis/run-kinds/index.ts).
import { readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { UnknownComponentError } from '#core/errors.js';
import { findRunKind, RUN_KINDS, runKindIdOf, runKindOf } from './index.js';
import { branchesIn, kindBranchPattern, productFiles, REPOSITORY } from '../../pipeline/test-support/branch-scan.js';

const FOLDERS = ['analysis', 'notebooks'];

/** Where a kind may be named: the registry's folder and each kind's own `run-kind.ts`. */
const mayBranch = (path: string) => path.startsWith('analysis/run-kinds/') || path.endsWith('/run-kind.ts');

/**
 * A kind branch: a comparison (`===`, `!==`, `case`) with a kind id literal, or with a value named `experiment` or
 * `suite` (a run's kind under its two names), or a membership test of one in a list of ids.
 */
const BRANCH = kindBranchPattern({ ids: RUN_KINDS.map((kind) => kind.id), names: ['experiment', 'suite'] });

describe('run kinds are branched on only in the run-kind registry and the kinds’ files', () => {
  it('finds the branches it is meant to find (the check can fail)', () => {
    for (const line of [
      "if (experiment === 'grid') {",
      "const grid = (run.manifest.spec.experiment ?? 'grid') === 'grid';",
      "if (run.manifest.spec.experiment === 'forged-reasoning') {",
      "if (kind === 'grid') {",
      "var grid = run.kind === 'grid';",
      'const inputs = followUps.filter((f) => f.summary.experiment === experiment);',
      "if (suite !== null && entry.suite === 'integrity')",
      "  case 'tools':",
      'const figures = FIGURE_EXPERIMENTS.includes(entry.experiment);',
      "if (manifest.suite === 'integrity') {",
    ])
      expect(BRANCH.test(line), line).toBe(true);
    for (const line of [
      "if (scenarios.kind !== 'policy') throw new Error('a grid run is scored with policy scenarios');",
      "if (score.kind === 'error') tally.errors += 1;",
      'const kind = findRunKind(entry.experiment);',
    ])
      expect(BRANCH.test(line), line).toBe(false);
  });

  it('has none outside analysis/run-kinds/ and the run-kind.ts files', () => {
    const files = productFiles(FOLDERS).filter((path) => !mayBranch(path));
    expect(files.length).toBeGreaterThan(50);
    expect(branchesIn(files, BRANCH)).toEqual([]);
  });

  it('every kind file is registered, once', () => {
    const kindFiles = productFiles(FOLDERS).filter((path) => path.endsWith('/run-kind.ts'));
    const registry = readFileSync(join(REPOSITORY, 'analysis', 'run-kinds', 'index.ts'), 'utf8');
    for (const path of kindFiles)
      expect(registry, relative('analysis/run-kinds', path)).toContain(
        `from '${relative('analysis/run-kinds', path).replace(/\.ts$/, '.js')}'`,
      );
    expect(new Set(RUN_KINDS.map((kind) => kind.id)).size).toBe(RUN_KINDS.length);
    expect(RUN_KINDS.every((kind) => kind.specificationVersion === 'v1')).toBe(true);
  });
});

describe('the run-kind lookup', () => {
  it('reads a suite run by its suite, an eval run by its experiment, grid when absent', () => {
    expect(runKindIdOf({ suite: 'integrity', spec: {} })).toBe('integrity');
    expect(runKindIdOf({ spec: { experiment: 'tools' } })).toBe('tools');
    expect(runKindIdOf({ spec: {} })).toBe('grid');
    expect(runKindOf({ spec: {} })).toBe(findRunKind('grid'));
  });

  it('names an unknown kind and every registered one', () => {
    expect(findRunKind('no-such-kind')).toBeUndefined();
    const error = (() => {
      try {
        runKindOf({ spec: { experiment: 'no-such-kind' } });
      } catch (caught) {
        return caught;
      }
      return null;
    })();
    expect(error).toBeInstanceOf(UnknownComponentError);
    expect((error as Error).message).toBe(
      `unknown run kind "no-such-kind"; available: ${RUN_KINDS.map((kind) => kind.id).join(', ')}`,
    );
    expect((error as Error).message).toContain(
      'grid, writeback, propagation, tools, forged-reasoning, integrity, frontdoor',
    );
  });
});
