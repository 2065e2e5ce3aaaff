// `--limit N` selection (issue #26 item 9): round-robin over the plan's cells, trial-major within a cell, a reusing arm
// only with the reply it reuses, independent of probes; and the `limited` mark every surface prints.
import { describe, expect, it } from 'vitest';
import { evalPhaseOf } from '../suites/eval-phases.js';
import type { ArmId } from './arms.js';
import { gridArgsOf, gridSuite } from '../suites/grid/suite.js';
import { probeIdOf, unitIdOf, type ProbeRecord, type UnitKey } from '../run-log/run-log.js';
import { limitedLine, limitedOf } from './unit-limit.js';

const SYSTEMS = ['graphiti', 'mem0-exp'];
const SCENARIOS = ['s1', 's2', 's3'];
const ARMS: ArmId[] = ['output-filter', 'none', 'store-filter'];
const okProbes = (failed: string[] = []) =>
  new Map(
    SYSTEMS.flatMap((system) =>
      SCENARIOS.map((scenario) => [
        probeIdOf(system, 'direct', scenario),
        { status: failed.includes(`${system}/${scenario}`) ? 'error' : 'ok' } as ProbeRecord,
      ]),
    ),
  );
const units = (limit: number | null, probes = okProbes()) =>
  [
    ...gridSuite.plan(
      gridArgsOf(
        { modes: ['direct'], systems: SYSTEMS, trials: 2, arms: ARMS, guard: ['off'], poem: ['off'], limit },
        { scenarios: SCENARIOS, models: ['m'] },
        probes,
      ),
    ),
  ].map((unit) => unit.key);
const cell = (key: UnitKey) => `${key.system}/${key.arm}`;

describe('--limit selection', () => {
  it('without a limit, every unit', () => {
    expect(units(null)).toHaveLength(SYSTEMS.length * SCENARIOS.length * 2 * ARMS.length);
  });

  it('one unit per cell before any cell gets a second, the first scenario of the first trial first', () => {
    const kept = units(6);
    expect(kept).toHaveLength(6);
    expect(new Set(kept.map(cell)).size).toBe(6);
    expect(kept.every((key) => key.scenario === 's1' && key.trial === 0)).toBe(true);
  });

  it('trial-major within a cell: every scenario of trial 0 before trial 1', () => {
    const kept = units(6 * 4);
    const perCell = kept.filter((key) => cell(key) === 'graphiti/none').map((key) => `${key.trial}:${key.scenario}`);
    // Kept: the three scenarios of trial 0 and the first of trial 1 (listed in enumeration order, scenario-major).
    expect(perCell.sort()).toEqual(['0:s1', '0:s2', '0:s3', '1:s1']);
  });

  it('a kept output-filter unit always has its none unit kept (it reuses that reply and sends no call)', () => {
    for (let limit = 1; limit <= 36; limit += 1) {
      const kept = units(limit);
      expect(kept).toHaveLength(limit);
      const ids = new Set(kept.map(unitIdOf));
      for (const key of kept.filter((k) => k.arm === 'output-filter'))
        expect(ids.has(unitIdOf({ ...key, arm: 'none' })), `limit ${limit}`).toBe(true);
    }
    // A round cut short keeps the arms that send calls first.
    expect(units(4).map(cell)).toEqual([
      'graphiti/none',
      'graphiti/store-filter',
      'mem0-exp/none',
      'mem0-exp/store-filter',
    ]);
  });

  it('the kept set does not move when a probe fails: it only loses that probe units', () => {
    const all = new Set(units(10).map(unitIdOf));
    const withFailure = units(10, okProbes(['graphiti/s1']));
    expect(withFailure.length).toBeLessThan(10);
    for (const key of withFailure) expect(all.has(unitIdOf(key))).toBe(true);
  });

  it('the limited mark: units = min(limit, all units), and its line says so', () => {
    const spec = {
      experiment: 'grid' as const,
      modes: ['direct' as const],
      systems: SYSTEMS,
      models: ['m'],
      guard: ['off' as const],
      poem: ['off' as const],
      arms: ARMS,
      scenarios: SCENARIOS,
      trials: 2,
    };
    const grid = evalPhaseOf(spec.experiment);
    expect(limitedOf({ ...spec, limit: null }, grid)).toBeNull();
    expect(limitedOf({ ...spec, limit: 7 }, grid)).toEqual({ limit: 7, units: 7, of: 36 });
    expect(limitedOf({ ...spec, limit: 1000 }, grid)).toEqual({ limit: 1000, units: 36, of: 36 });
    expect(limitedLine({ limit: 7, units: 7, of: 36 })).toMatch(/^limited: 7 of 36 units \(--limit 7/);
  });
});
