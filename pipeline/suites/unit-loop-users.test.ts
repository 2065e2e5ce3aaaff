// Issue #27 item 2: the unit loop is written once (pipeline/run/unit-loop.ts) and run by one unit runner
// (pipeline/suites/suite-units.ts), which every phase of `pnpm eval` and the registered suites' runner go through; no
// suite folder keeps a loop of its own (a pool, a limit, a settle-all of its units).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { productFiles } from '../test-support/branch-scan.js';

const root = join(import.meta.dirname, '..', '..');
const OWN_LOOP = [/from 'p-limit'/, /bounded-pool\.js'/, /Promise\.allSettled\(/];

describe('the unit loop', () => {
  it('is what the suite units run under, and only there among the suites', () => {
    expect(readFileSync(join(root, 'pipeline/suites/suite-units.ts'), 'utf8')).toMatch(/runUnitLoop\(/);
    const callers = productFiles(['pipeline/suites']).filter((file) =>
      /runUnitLoop\(/.test(readFileSync(join(root, file), 'utf8')),
    );
    expect(callers).toEqual(['pipeline/suites/suite-units.ts']);
  });

  it("runs the units of every SuiteV1 through suite-units.ts: the registered suites directly, pnpm eval's through eval-units.ts", () => {
    for (const file of ['pipeline/suites/run-suite.ts', 'pipeline/suites/eval-units.ts'])
      expect(readFileSync(join(root, file), 'utf8'), file).toMatch(/runSuiteUnits\(/);
    for (const file of [
      'pipeline/suites/grid/eval-phase.ts',
      'pipeline/suites/forged-reasoning/run-phase.ts',
      'pipeline/suites/follow-ups/eval-phase.ts',
    ])
      expect(readFileSync(join(root, file), 'utf8'), file).toMatch(/runEvalUnits\(/);
  });

  it('has no second copy in a suite folder', () => {
    const files = productFiles(['pipeline/suites']);
    expect(files.length).toBeGreaterThan(50);
    const offenders = files.filter((file) =>
      OWN_LOOP.some((pattern) => pattern.test(readFileSync(join(root, file), 'utf8'))),
    );
    expect(offenders).toEqual([]);
  });
});
