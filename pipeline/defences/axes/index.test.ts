// The axis registry: every axis file registered once, each axis's defence registered, and the serialisations the run
// logs hold (unit keys, unit ids, spec identity, summary cells) exactly as they were before the registry existed.
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { followUpUnitIdOf } from '../../suites/follow-ups/follow-up-log.js';
import { type UnitKey, unitIdOf } from '../../run-log/run-log.js';
import { defenceOf } from '../index.js';
import type { AxisV1 } from './axis-v1.js';
import {
  AXES,
  axesOf,
  axisCombinations,
  axisDefenceId,
  axisIdentity,
  cellAxes,
  cellAxesId,
  unitKeyAxes,
} from './index.js';

const isAxis = (value: unknown): value is AxisV1 =>
  typeof value === 'object' && value !== null && (value as AxisV1).specificationVersion === 'axis-v1';

const base = { scenario: 's1', system: 'graphiti', mode: 'direct', arm: 'none', model: 'sim', trial: 0 } as const;

describe('the axis registry', () => {
  it('registers every axis file in pipeline/defences/axes exactly once, each with a registered defence', async () => {
    const exported: AxisV1[] = [];
    for (const name of readdirSync(import.meta.dirname))
      if (name.endsWith('.ts') && !name.endsWith('.test.ts')) {
        const module = (await import(join(import.meta.dirname, name))) as Record<string, unknown>;
        exported.push(...Object.values(module).filter(isAxis));
      }
    expect(new Set(exported)).toEqual(new Set(AXES));
    expect(new Set(AXES.map((axis) => axis.id)).size).toBe(AXES.length);
    for (const axis of AXES as readonly AxisV1[]) {
      expect(axis.id).toMatch(/^[a-z][a-z0-9]*(-[a-z0-9]+)*$/);
      expect(defenceOf(axisDefenceId(axis)).id, `${axis.id}: its defence is registered`).toBe(axisDefenceId(axis));
    }
  });

  it('keeps guard and poem the only always-stored axes: a new one never changes a recorded key', () => {
    expect(AXES.filter((axis) => axis.stored === 'always').map((axis) => axis.id)).toEqual(['guard', 'poem']);
    expect(axesOf('grid').map((axis) => axis.id)).toEqual(['guard', 'poem']);
    expect(axesOf('follow-up').map((axis) => axis.id)).toEqual(['guard', 'poem', 'taint']);
  });

  it('nests the axes as the loops did: guard outermost, an absent axis off', () => {
    expect(axisCombinations(axesOf('follow-up'), { guard: ['off', 'on'], taint: ['off', 'on'] })).toEqual([
      { guard: false, poem: false, taint: false },
      { guard: false, poem: false, taint: true },
      { guard: true, poem: false, taint: false },
      { guard: true, poem: false, taint: true },
    ]);
    expect(axisCombinations(axesOf('grid'), {})).toEqual([{ guard: false, poem: false }]);
  });

  it('serialises unit keys and ids as runs recorded them: guard and poem always, taint only when on', () => {
    const grid: UnitKey = { ...base, ...unitKeyAxes(axesOf('grid'), { guard: true }) };
    expect(JSON.stringify(grid)).toBe(
      '{"scenario":"s1","system":"graphiti","mode":"direct","arm":"none","model":"sim","trial":0,"guard":true,"poem":false}',
    );
    expect(unitIdOf(grid)).toBe('s1/graphiti/direct/none/sim/0/guard');
    expect(unitIdOf({ ...grid, poem: true })).toBe('s1/graphiti/direct/none/sim/0/guard/poem');
    const followUp = { experiment: 'writeback' as const, ...base, arm: 'direct' };
    const off = { ...followUp, ...unitKeyAxes(axesOf('follow-up'), { poem: true }) };
    expect(Object.keys(off)).not.toContain('taint');
    expect(followUpUnitIdOf(off)).toBe('writeback/s1/graphiti/direct/direct/sim/0/poem');
    const on = { ...followUp, ...unitKeyAxes(axesOf('follow-up'), { guard: true, taint: true }) };
    expect(JSON.stringify(on)).toMatch(/"trial":0,"guard":true,"poem":false,"taint":true\}$/);
    expect(followUpUnitIdOf(on)).toBe('writeback/s1/graphiti/direct/direct/sim/0/guard/taint');
  });

  it('leaves axes at off out of the spec identity, and cells carry taint only as on', () => {
    expect(axisIdentity({ guard: ['off'], poem: ['off', 'on'], taint: ['off'] })).toEqual({ poem: ['off', 'on'] });
    expect(cellAxes('follow-up', { guard: true, poem: false, taint: false })).toEqual({ guard: 'on', poem: 'off' });
    expect(cellAxes('follow-up', { taint: true })).toEqual({ guard: 'off', poem: 'off', taint: 'on' });
    expect(cellAxesId('grid', { guard: 'on' })).toEqual(['on', 'off']);
  });
});
