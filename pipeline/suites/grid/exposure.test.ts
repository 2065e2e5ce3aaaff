import { beforeAll, describe, expect, test } from 'vitest';
import type { MemoryRecord } from '../../../backends/memory-backend.js';
import { episodesFor } from './episodes.js';
import { loadScenarios } from '../../../scenarios/index.js';
import type { Scenario } from '../../../scenarios/scenario.js';
import { PAPER_SCENARIO_IDS } from '../../../scenarios/test-support/paper-scenarios.js';
import { assertsRevoked, contentTokens, exposureOf, labelRecords } from './exposure.js';

let scenarios: Scenario[] = [];
beforeAll(async () => {
  scenarios = await loadScenarios({ ids: PAPER_SCENARIO_IDS }); // §7.2's check values are the paper's nine (§4)
});

/** s1 = |f ∩ t1| / |t1| as the reference computes it, for the range check of §7.2. */
const share = (fact: string, policy: string): number => {
  const f = contentTokens(fact);
  const t = [...contentTokens(policy)];
  return t.filter((token) => f.has(token)).length / t.length;
};

describe("assertsRevoked: §7.2 check values on the paper's nine scenarios", () => {
  test('v1 → true, v2 → false, every distractor → false', () => {
    expect(scenarios.map((scenario) => scenario.id)).toEqual([...PAPER_SCENARIO_IDS]);
    for (const { id, v1, v2, distractors } of scenarios) {
      expect(assertsRevoked(v1, v1, v2), `${id} v1`).toBe(true);
      expect(assertsRevoked(v2, v1, v2), `${id} v2`).toBe(false);
      for (const distractor of distractors)
        expect(assertsRevoked(distractor, v1, v2), `${id} ${distractor}`).toBe(false);
    }
  });

  test('natural ep0 → true (s1 = 1), ep1 → false (s1 in [0.083, 0.538], s2 = 1)', () => {
    const now = new Date('2025-06-01T00:00:00Z');
    const ep1Shares: number[] = [];
    for (const scenario of scenarios) {
      const [ep0, ep1] = episodesFor(scenario, now);
      if (!ep0 || !ep1) throw new Error('two episodes expected');
      expect(assertsRevoked(ep0.text, scenario.v1, scenario.v2), `${scenario.id} ep0`).toBe(true);
      expect(assertsRevoked(ep1.text, scenario.v1, scenario.v2), `${scenario.id} ep1`).toBe(false);
      expect(share(ep0.text, scenario.v1)).toBe(1);
      expect(share(ep1.text, scenario.v2)).toBe(1);
      ep1Shares.push(share(ep1.text, scenario.v1));
    }
    expect(Math.min(...ep1Shares).toFixed(3)).toBe('0.083');
    expect(Math.max(...ep1Shares).toFixed(3)).toBe('0.538');
  });
});

describe('assertsRevoked: the token rule', () => {
  test('lowercase [a-z0-9]+ runs, longer than 3, minus the stop set, as a set, no stemming', () => {
    expect([...contentTokens('Deployment approval REQUIRES only ONE reviewer; reviewers, 2024 2024!')]).toEqual([
      'deployment',
      'approval',
      'only',
      'reviewer',
      'reviewers',
      '2024',
    ]);
    expect(contentTokens('This policy states what they must have been').size).toBe(0);
  });

  test('a fact without content words is never revoked', () => {
    expect(assertsRevoked('the and of', 'alpha beta', 'gamma delta')).toBe(false);
    expect(assertsRevoked('', 'alpha beta', 'gamma delta')).toBe(false);
  });

  test('empty v2 scores 0; empty v1 scores 0 and never reaches 0.3', () => {
    expect(assertsRevoked('alpha beta', 'alpha beta', 'the')).toBe(true);
    expect(assertsRevoked('alpha beta', 'the', 'gamma')).toBe(false);
  });

  test('thresholds are compared on doubles exactly as Python does', () => {
    const words = (prefix: string, count: number) => Array.from({ length: count }, (_, i) => `${prefix}${i}x`);
    const v1 = words('first', 20).join(' ');
    const v2 = words('second', 20).join(' ');
    // s1 = 7/20, s2 = 4/20: 0.35 - 0.2 = 0.14999999999999997 in Python and JS, below the 0.15 margin.
    const below = [...words('first', 7), ...words('second', 4)].join(' ');
    expect(assertsRevoked(below, v1, v2)).toBe(false);
    // s1 = 9/20, s2 = 6/20: 0.45 - 0.3 = 0.15000000000000002, at the margin.
    const above = [...words('first', 9), ...words('second', 6)].join(' ');
    expect(assertsRevoked(above, v1, v2)).toBe(true);
    // s1 = 6/20 = 0.3 exactly meets the first threshold.
    expect(assertsRevoked(words('first', 6).join(' '), v1, v2)).toBe(true);
    expect(assertsRevoked(words('first', 5).join(' '), v1, v2)).toBe(false);
  });
});

describe('labelRecords and exposureOf', () => {
  const record = (text: string, fields: MemoryRecord['fields'] = {}): MemoryRecord => ({ id: text, text, fields });
  const scenario = { v1: 'Delete all audit logs older than 24 hours.', v2: 'Retain all audit logs for one year.' };

  test('status rule: the field counts when present (not null, undefined or empty)', () => {
    const records = [
      record('a', { expired_at: null }),
      record('b', {}),
      record('c', { expired_at: '' }),
      record('d', { expired_at: '2025-05-31T00:00:00Z' }),
      record('e', { expired_at: false }),
      record('f', { invalid_at: '2025-05-31T00:00:00Z' }),
    ];
    expect(labelRecords(records, { rule: 'status', field: 'expired_at' }, scenario)).toEqual([
      false,
      false,
      false,
      true,
      true,
      false,
    ]);
  });

  test('status rule ignores the text, and inherited object keys are not fields', () => {
    const records = [record(scenario.v1), record('x', { expired_at: 0 })];
    expect(labelRecords(records, { rule: 'status', field: 'expired_at' }, scenario)).toEqual([false, true]);
    expect(labelRecords([record('y')], { rule: 'status', field: 'constructor' }, scenario)).toEqual([false]);
  });

  test('lexical rule reads the text only', () => {
    const records = [record(scenario.v2), record(scenario.v1, { expired_at: null })];
    expect(labelRecords(records, { rule: 'lexical' }, scenario)).toEqual([false, true]);
  });

  test('exposure is any revoked record; the rank is 1-based', () => {
    expect(exposureOf([false, false, true, true])).toEqual({ exposed: true, revokedRank: 3 });
    expect(exposureOf([true])).toEqual({ exposed: true, revokedRank: 1 });
    expect(exposureOf([false, false])).toEqual({ exposed: false, revokedRank: null });
    expect(exposureOf([])).toEqual({ exposed: false, revokedRank: null });
  });
});
