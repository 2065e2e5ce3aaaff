import { describe, expect, it } from 'vitest';
import { insertPlan, policyKey, RETIRE_REASON } from './inspeximus-writes.js';

const NOW = new Date('2026-09-01T12:00:00.000Z');
const T = NOW.getTime() / 1000;
const DAYS_90 = 90 * 86_400;

describe('inspeximus insert plans (the library calls an insert makes)', () => {
  it('keyed direct: revoked facts, then v2, under one key, v1 dated 90 days back; distractors unkeyed', () => {
    const plan = insertPlan(
      {
        namespace: 'mfa',
        now: NOW,
        writes: { mode: 'direct', revoked: ['v1'], current: ['v2', 'd1'], relation: 'POLICY' },
      },
      'keyed',
    );
    expect(plan).toEqual({
      steps: [
        { remember: { text: 'v1', key: 'mfa::policy', valid_from: T - DAYS_90 } },
        { remember: { text: 'v2', key: 'mfa::policy', valid_from: T } },
        { remember: { text: 'd1', valid_from: T } },
      ],
      extractor: null,
      correctedKey: 'mfa::policy',
      revokedCount: 1,
    });
  });

  it('unkeyed direct: the same texts and times with no key, and nothing to check afterwards', () => {
    const plan = insertPlan(
      { namespace: 'mfa', now: NOW, writes: { mode: 'direct', revoked: ['v1'], current: ['v2'] } },
      'unkeyed',
    );
    expect(plan.steps).toEqual([
      { remember: { text: 'v1', valid_from: T - DAYS_90 } },
      { remember: { text: 'v2', valid_from: T } },
    ]);
    expect([plan.correctedKey, plan.revokedCount]).toEqual([null, 0]);
  });

  it('keyed with no current fact ends the key with retire(); with no revoked fact nothing is keyed (a journal is not a correction)', () => {
    const retired = insertPlan(
      { namespace: 'n', now: NOW, writes: { mode: 'direct', revoked: ['a', 'b'], current: [], relation: 'DECISION' } },
      'keyed',
    );
    expect(retired.steps).toEqual([
      { remember: { text: 'a', key: 'n::decision', valid_from: T - DAYS_90 } },
      { remember: { text: 'b', key: 'n::decision', valid_from: T - DAYS_90 + 1 } },
      { retire: { key: 'n::decision', reason: RETIRE_REASON } },
    ]);
    expect(retired.revokedCount).toBe(2);
    const journal = insertPlan(
      { namespace: 'n', now: NOW, writes: { mode: 'direct', revoked: [], current: ['journal'] } },
      'keyed',
    );
    expect(journal).toEqual({
      steps: [{ remember: { text: 'journal', valid_from: T } }],
      extractor: null,
      correctedKey: null,
      revokedCount: 0,
    });
  });

  it('natural: episodes at their reference times; keyed configurations let the library key them (regex_extractor)', () => {
    const episodes = [
      { name: 'e0', text: 'old', referenceTime: new Date(NOW.getTime() - 1000), sourceDescription: 'policy feed' },
      { name: 'e1', text: 'new', referenceTime: NOW, sourceDescription: 'policy feed' },
    ];
    const keyed = insertPlan({ namespace: 'n', now: NOW, writes: { mode: 'natural', episodes } }, 'keyed');
    expect(keyed).toEqual({
      steps: [{ remember: { text: 'old', valid_from: T - 1 } }, { remember: { text: 'new', valid_from: T } }],
      extractor: 'regex_extractor',
      correctedKey: null,
      revokedCount: 0,
    });
    expect(
      insertPlan({ namespace: 'n', now: NOW, writes: { mode: 'natural', episodes } }, 'unkeyed').extractor,
    ).toBeNull();
  });

  it('writer metadata goes on every remember() as meta', () => {
    const plan = insertPlan(
      {
        namespace: 'n',
        now: NOW,
        writes: { mode: 'direct', revoked: [], current: ['x', 'y'] },
        metadata: { verified: true },
      },
      'keyed',
    );
    expect(plan.steps.map((step) => ('remember' in step ? step.remember.meta : null))).toEqual([
      { verified: true },
      { verified: true },
    ]);
    expect(policyKey('a b')).toBe('a b::policy');
  });
});
