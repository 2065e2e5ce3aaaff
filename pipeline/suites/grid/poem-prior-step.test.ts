import { describe, expect, it } from 'vitest';
import { loadScenarios } from '../../../scenarios/index.js';
import { GRID_PRIOR_STEP_DESIGN, hasPriorStep, priorStepDesignOf } from './poem-prior-step.js';

describe('hasPriorStep', () => {
  it('never picks a --poem off unit, so PoEM-off units are untouched', () => {
    for (let trial = 0; trial < 4; trial += 1)
      expect(hasPriorStep({ scenario: 'mfa_waiver_access', trial, poem: false })).toBe(false);
  });

  it("picks exactly half of each scenario's trials for an even trial count, and about half the scenarios for one trial", async () => {
    const scenarios = await loadScenarios();
    for (const { id } of scenarios) {
      const picked = [0, 1, 2, 3].filter((trial) => hasPriorStep({ scenario: id, trial, poem: true }));
      expect(picked.length, id).toBe(2);
      // Alternating trials: a pair (2k, 2k + 1) always has one unit of each kind.
      expect(hasPriorStep({ scenario: id, trial: 0, poem: true })).not.toBe(
        hasPriorStep({ scenario: id, trial: 1, poem: true }),
      );
    }
    const firstTrial = scenarios.filter(({ id }) => hasPriorStep({ scenario: id, trial: 0, poem: true })).length;
    expect(firstTrial).toBeGreaterThan(0);
    expect(firstTrial).toBeLessThan(scenarios.length);
  });

  it('never picks trial 0 of the scenarios the old-run e2e test relies on (analysis/forged-reasoning/poem-grid.e2e.test.ts)', () => {
    for (const scenario of ['compliance_log_deletion', 'data_exfiltration_pii_export'])
      expect(hasPriorStep({ scenario, trial: 0, poem: true }), scenario).toBe(false);
  });

  it('is a function of the identity alone: the same answer on every call (resume, shards and rescore agree)', () => {
    const key = { scenario: 'over_limit_financial_transfer', trial: 7, poem: true };
    expect(new Set(Array.from({ length: 5 }, () => hasPriorStep(key))).size).toBe(1);
  });
});

describe('priorStepDesignOf', () => {
  it('reads the design the poem defence recorded; a manifest without it (an older run) has none', () => {
    const poem = (args: Record<string, unknown>) => ({ components: [{ kind: 'defence', id: 'poem', args }] });
    expect(priorStepDesignOf(poem({ gridPriorStep: GRID_PRIOR_STEP_DESIGN }))).toBe(GRID_PRIOR_STEP_DESIGN);
    expect(priorStepDesignOf(poem({}))).toBeNull();
    expect(priorStepDesignOf({})).toBeNull();
  });

  it('refuses a design id it does not know, naming the field', () => {
    expect(() =>
      priorStepDesignOf({ components: [{ kind: 'defence', id: 'poem', args: { gridPriorStep: 'all-v9' } }] }),
    ).toThrow(/components\[defence poem\]\.args\.gridPriorStep is "all-v9"/);
  });
});
