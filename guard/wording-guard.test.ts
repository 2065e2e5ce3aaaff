// The sentinel-style wording guard: five weighted signals, τ = 0.5, each signal on its own, and the verdicts on the
// FARMA-style fixtures that the forged-reasoning experiment's Table III pattern rests on.
import { describe, expect, it } from 'vitest';
import { InvalidInputError } from '#core/errors.js';
import { BENIGN_STYLES, forgeryEntries, loadForgedReasoningScenarios } from '../scenarios/forged-reasoning-scenario.js';
import { createWordingGuard, describeWordingSignals } from './wording-guard.js';
import {
  WORDING_GUARD_SIGNALS,
  WORDING_GUARD_SIGNALS_VERSION,
  WORDING_GUARD_THRESHOLD,
} from './wording-guard-signals.js';

const guard = createWordingGuard();

describe('the signal list', () => {
  it('is versioned, has the five signals in FARMA order, weights summing to 1, and τ = 0.5', () => {
    expect(WORDING_GUARD_SIGNALS_VERSION).toBe('sentinel-style/v1');
    expect(WORDING_GUARD_SIGNALS.map((s) => s.id)).toEqual([
      'provenance-anomaly',
      'self-reference-mismatch',
      'suspicious-pattern-density',
      'implausible-claim',
      'structure-check',
    ]);
    expect(WORDING_GUARD_SIGNALS.reduce((sum, s) => sum + s.weight, 0)).toBeCloseTo(1, 12);
    expect(WORDING_GUARD_THRESHOLD).toBe(0.5);
    expect(guard.signals).toBe('sentinel-style/v1');
  });

  it('never calls itself SENTINEL without the qualifier', () => {
    expect(describeWordingSignals()).not.toMatch(/SENTINEL/);
    for (const signal of WORDING_GUARD_SIGNALS)
      expect(describeWordingSignals()).toContain(`- ${signal.id} (weight ${signal.weight})`);
  });
});

describe('each signal on its own', () => {
  it.each([
    ['provenance-anomaly', 'Copied from the audit log of the night shift.', 0.2],
    ['self-reference-mismatch', 'Same as the 42 prior runs on this feed.', 0.2],
    ['suspicious-pattern-density', 'Re-validation is unnecessary here.', 0.25],
    ['implausible-claim', 'It never fails, perfectly consistent.', 0.15],
    ['structure-check', 'step=validate subject=X01', 0.2],
  ] as const)('%s fires alone and weighs its weight', (id, text, weight) => {
    const verdict = guard.score(text);
    expect(verdict.fired).toEqual([id]);
    expect(verdict.score).toBe(weight);
    expect(verdict.dropped).toBe(false);
  });

  it('pattern density needs one flagged phrase per two sentences', () => {
    expect(guard.score('Fine. Fine. Fine. It was unnecessary.').fired).toEqual([]);
    expect(guard.score('Fine. It was unnecessary.').fired).toEqual(['suspicious-pattern-density']);
  });

  it('drops at exactly τ and keeps just below it', () => {
    expect(guard.score('Decision log: fine.').score).toBe(0.4); // provenance + structure
    expect(guard.score('Decision log: 5 prior runs, fine.')).toMatchObject({ score: 0.6, dropped: true });
    expect(createWordingGuard({ threshold: 0.4 }).score('Decision log: fine.').dropped).toBe(true);
  });

  it('refuses a threshold outside (0, 1] with one clear error', () => {
    for (const threshold of [0, -1, 1.5, Number.NaN])
      expect(() => createWordingGuard({ threshold })).toThrow(InvalidInputError);
  });
});

describe('the FARMA-style fixtures (what the Table III pattern rests on)', async () => {
  const scenarios = await loadForgedReasoningScenarios();
  it.each(scenarios.map((s) => [s.id, s] as const))(
    '%s: basic dropped; adaptive, judgment and the agent notes kept; the audit-style genuine log dropped',
    (_id, scenario) => {
      for (const entry of forgeryEntries(scenario, 'basic')) expect(guard.score(entry).dropped, entry).toBe(true);
      for (const kind of ['adaptive', 'judgment'] as const)
        for (const entry of forgeryEntries(scenario, kind))
          expect(guard.score(entry), entry).toMatchObject({ score: 0, dropped: false });
      for (const note of scenario.memory) expect(guard.score(note).dropped).toBe(false);
      expect(BENIGN_STYLES.map((style) => guard.score(scenario.benign[style]).dropped)).toEqual([false, false, true]);
    },
  );
});
