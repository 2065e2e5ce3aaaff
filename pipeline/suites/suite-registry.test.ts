// A registered suite renders its own runs (`pnpm eval --suite`, `pnpm merge`, `pnpm report`); a SuiteV1 without a
// `report` member (forged reasoning's units, reported by its run kind) is refused by name where one is needed.
import { describe, expect, it } from 'vitest';
import { forgedReasoningSuite } from './forged-reasoning/suite.js';
import { suiteIds, suiteReportOf } from './index.js';
import { suiteReport } from './run-suite.js';

describe('the suite registry', () => {
  it('holds only suites with a report', () => {
    expect(suiteIds().length).toBeGreaterThan(1);
    for (const id of suiteIds()) expect(suiteReportOf(id)?.suite, id).toBe(id);
  });

  it('names a suite without a report where a report is needed', () => {
    expect(forgedReasoningSuite.report).toBeUndefined();
    expect(() => suiteReport(forgedReasoningSuite)).toThrow(
      'suite forged-reasoning: it has no report member, and a registered suite renders its own runs',
    );
  });
});
