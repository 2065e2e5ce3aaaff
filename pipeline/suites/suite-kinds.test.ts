// The architecture as a test (issue #27 acceptance: "no branch on the suite kind outside the suite registry"):
// outside the suite registry (pipeline/suites/index.ts) and each registered suite's own folder, pipeline/ never
// compares a value with a registered suite's id or with the action's `eval`; it asks the suite's members (SuiteV1,
// and `ci` for the stalebench action: pipeline/ci/action-commands.ts).
import { describe, expect, it } from 'vitest';
import { type BranchException, branchesIn, kindBranchPattern, productFiles } from '../test-support/branch-scan.js';
import { suiteIds } from './index.js';

/** A suite-kind branch: a comparison (`===`, `!==`, `case`) with a suite id literal, or with a value named `suite`. */
const BRANCH = kindBranchPattern({ ids: [...suiteIds(), 'eval'], names: ['suite'] });

/** Where a suite may be named: the registries (the suites', the action's commands) and each registered suite's folder. */
const mayBranch = (path: string) =>
  ['pipeline/suites/index.ts', 'pipeline/ci/action-commands.ts'].includes(path) ||
  suiteIds().some((id) => path.startsWith(`pipeline/suites/${id}/`));

/** Named exceptions, each with its reason. */
const EXCEPTIONS: readonly BranchException[] = [
  {
    path: 'pipeline/suites/run-suite.ts',
    text: 'if (previous.suite !== suite)',
    reason: 'a run directory holding another suite’s run is refused: a comparison of two manifests, not a kind test',
  },
  {
    path: 'pipeline/cli/cli.ts',
    text: "if (command !== 'eval') {",
    reason: 'the command-line entry point checks its subcommand (`eval`), not a suite',
  },
];

describe('suite kinds are branched on only in the suite registry and the suites’ folders', () => {
  it('finds the branches it is meant to find (the check can fail)', () => {
    // Each of these was in pipeline/ci/ before the action asked a suite's `ci` member.
    for (const line of [
      "if (inputs.sarif && inputs.suite === 'integrity')",
      "const argv = [...args, ...inputs.args, inputs.suite === 'eval' ? '--out' : '-o', inputs.out];",
      "const file = join(out, suite === 'eval' ? 'tables.md' : 'scorecard.md');",
      "case 'frontdoor':",
      'if (ACTION_SUITES.includes(suite)) {',
    ])
      expect(BRANCH.test(line), line).toBe(true);
    for (const line of [
      'const command = actionCommandOf(inputs.suite);',
      "if (typeof manifest.suite === 'string') return manifest.suite;",
      "id: 'eval',",
    ])
      expect(BRANCH.test(line), line).toBe(false);
  });

  it('has none in pipeline/ outside the two registries and the registered suites’ folders', () => {
    const files = productFiles(['pipeline']).filter((path) => !mayBranch(path));
    expect(files.length).toBeGreaterThan(200);
    expect(branchesIn(files, BRANCH, EXCEPTIONS)).toEqual([]);
  });
});
