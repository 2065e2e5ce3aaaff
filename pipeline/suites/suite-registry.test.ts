// A registered suite renders its own runs (`pnpm eval --suite`, `pnpm merge`, `pnpm report`); a SuiteV1 without a
// `report` member (forged reasoning's units, reported by its run kind) is refused by name where one is needed. Every
// suite's arguments refuse a key they do not know, by name: a misspelt `--args` key is never dropped for the default.
import { describe, expect, it } from 'vitest';
import { forgedReasoningSuite } from './forged-reasoning/suite.js';
import { suiteIds, suiteOf, suiteReportOf } from './index.js';
import { gridSuite } from './grid/suite.js';
import { createFollowUpSuite } from './follow-ups/suite.js';
import { FOLLOW_UP_EXPERIMENTS } from './follow-ups/index.js';
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

  it('refuses an argument it does not know, naming it, in every suite', () => {
    const environment = { env: {}, root: process.cwd() };
    // The smallest valid arguments of each registered suite: every other argument has its default.
    const minimal: Record<string, object> = {
      integrity: { targets: ['reference'] },
      frontdoor: { targets: ['reference'] },
    };
    expect(Object.keys(minimal)).toEqual(suiteIds());
    for (const id of suiteIds()) {
      const { args } = suiteOf(id, environment);
      expect(() => args.parse(minimal[id]), id).not.toThrow();
      expect(() => args.parse({ ...minimal[id], edit: ['T6'] }), id).toThrow(/Unrecognized key.*edit/);
    }
    // The experiments of pnpm eval build their arguments from the spec; a stray key is refused there too.
    const unknown = { scenarioIds: ['s'], systems: ['graphiti'], modes: ['direct'], arms: ['none'], models: ['sim'] };
    const common = { ...unknown, trials: 1, axes: {}, limit: null, stray: 1 };
    expect(() => gridSuite.args.parse({ ...common, probed: {} })).toThrow(/Unrecognized key.*stray/);
    for (const experiment of Object.values(FOLLOW_UP_EXPERIMENTS))
      expect(() =>
        createFollowUpSuite(experiment).args.parse({ ...common, k: 10, settings: { hops: 1, toolSteps: 1 } }),
      ).toThrow(/Unrecognized key.*stray/);
    expect(() => forgedReasoningSuite.args.parse({ stray: 1 })).toThrow(/stray/);
  });
});
