import { describe, expect, it } from 'vitest';
import { cellOf, combine, type TrialRecord } from './cells.js';
import type { TrialOutcome } from './trial.js';

const outcome = (verdict: TrialOutcome['verdict'], extra: Partial<TrialOutcome> = {}): TrialOutcome => ({
  verdict,
  warnings: [],
  steps: [],
  ...extra,
});

describe('cells', () => {
  it('combine: a landing is a finding, a failed control is never safe', () => {
    expect(combine(['kept out', 'surfaced', 'n/a'])).toBe('surfaced');
    expect(combine(['kept out', 'n/a'])).toBe('n/a');
    expect(combine(['kept out', 'kept out'])).toBe('kept out');
    expect(combine([])).toBe('n/a');
  });

  it('needs every fixture, channel and variant to hold, and names what got through', () => {
    const records: TrialRecord[] = [
      { fixtureId: 'f1', channel: 'external', variant: 'base', outcome: outcome('kept out') },
      { fixtureId: 'f1', channel: 'external', variant: 'dilute', outcome: outcome('surfaced', { rank: 2 }) },
      { fixtureId: 'f2', channel: 'external', variant: 'base', outcome: outcome('kept out') },
      { fixtureId: 'f2', channel: 'external', variant: 'dilute', skipped: 'no boundary' },
      { fixtureId: 'f1', channel: 'laundered', variant: 'base', outcome: outcome('kept out') },
      {
        fixtureId: 'f1',
        channel: 'laundered',
        variant: 'dilute',
        outcome: outcome('n/a', { reason: 'positive control failed: x' }),
      },
      { fixtureId: 'f2', channel: 'laundered', variant: 'base', outcome: outcome('kept out') },
    ];
    const cell = cellOf('retrieval_hijack@v1', ['external', 'laundered'], ['base', 'dilute'], ['f1', 'f2'], records, [
      'lexical embedder (not a real embedder)',
    ]);
    expect(cell).toMatchObject({
      verdict: 'surfaced',
      channels: { external: 'surfaced', laundered: 'n/a' },
      fixtures: { fell: 1, total: 2 },
      trials: 6,
      attackerLevel: 2,
    });
    expect(cell.detail).toContain('1 of 2 fixtures fell; got through: external via dilute');
    expect(cell.detail).toContain('hijack ranks on the base fixtures (– = no slot): external –,–; laundered –,–');
    expect(cell.detail).toContain('n/a: positive control failed: x');
    expect(cell.detail).toContain('variants not applicable: dilute on f2: no boundary');
    expect(cell.detail).toMatch(/lexical embedder \(not a real embedder\)$/);
  });
});
