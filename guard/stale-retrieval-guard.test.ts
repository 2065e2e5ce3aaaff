// Acceptance vectors (§10.10), scenario check values, configuration, and the ReadGuard wrapper.
import { describe, expect, it, vi } from 'vitest';
import type { MemoryRecord, SearchRequest, SearchResult } from '../backends/memory-backend.js';
import { InvalidInputError } from '#core/errors.js';
import { loadScenarios } from '../scenarios/index.js';
import { PAPER_SCENARIO_IDS } from '../scenarios/test-support/paper-scenarios.js';
import { conflict, contentWords } from './conflict.js';
import { DEFAULT_GUARD_CONFIG, guardConfigFromEnv, resolveGuardConfig } from './guard-config.js';
import { applyStaleRetrievalGuard, createStaleRetrievalGuard } from './stale-retrieval-guard.js';

const NOW = new Date('2026-03-01T12:00:00.000Z');
const OLD = '2025-03-01T12:00:00+00:00'; // now.replace(year=now.year - 1), as [C] `_demo`
const CURRENT = NOW.toISOString();
const summary = (n: number, total: number) =>
  `${n} of ${total} retrieved facts withheld as superseded or revoked; they remain in the store and are listed in \`withheld\`.`;
const unresolved = (why: string) =>
  `unresolved conflict (${why}); both facts kept because the backend supplied no usable timestamp to order them`;
const TRANSFER_OLD = 'A single operator may execute transfers up to $1,000,000.';
const TRANSFER_NEW = 'Single-operator transfers are capped at $10,000.';

describe('acceptance vectors (§10.10)', () => {
  it('(a) an explicit revocation field withholds at stage 1', () => {
    const records = [
      { fact: 'All TOR logins must be blocked.', expired_at: OLD },
      { fact: 'TOR logins with anomalies are monitored, not blocked.' },
    ];
    const result = applyStaleRetrievalGuard(records, {}, NOW);
    expect(result.kept).toEqual([{ index: 1, record: records[1] }]);
    expect(result.texts).toEqual(['TOR logins with anomalies are monitored, not blocked.']);
    expect(result.withheld).toEqual([
      { index: 0, text: 'All TOR logins must be blocked.', reason: 'backend marked expired_at', stage: 'explicit' },
    ]);
    expect(result.notes).toEqual([summary(1, 2)]);
  });

  it('(b) with no status, the older of a conflicting pair is withheld at stage 2', () => {
    const records = [
      { fact: 'Deployment approval requires only one reviewer.', created_at: OLD },
      { fact: 'Deployment approval requires two independent reviewers.', created_at: CURRENT },
    ];
    const result = applyStaleRetrievalGuard(records, {}, NOW);
    expect(result.texts).toEqual(['Deployment approval requires two independent reviewers.']);
    expect(result.withheld).toEqual([
      {
        index: 0,
        text: 'Deployment approval requires only one reviewer.',
        reason: 'superseded: opposing terms "one"/"two" (subject overlap 0.75)',
        stage: 'conflict',
        supersededBy: 'Deployment approval requires two independent reviewers.',
      },
    ]);
    expect(result.notes).toEqual([summary(1, 2)]);
  });

  it('(c) unrelated facts all survive', () => {
    const facts = [
      'Support hours are 9am to 6pm.',
      'Refund requests over 30 days require a manager note.',
      'Customer PII must never leave the internal network.',
    ];
    const result = applyStaleRetrievalGuard(
      facts.map((fact) => ({ fact })),
      {},
      NOW,
    );
    expect(result.kept.map(({ index }) => index)).toEqual([0, 1, 2]);
    expect(result.withheld).toEqual([]);
    expect(result.notes).toEqual([]);
  });

  it('(d) without timestamps a conflict is reported, never guessed', () => {
    const result = applyStaleRetrievalGuard([{ fact: TRANSFER_OLD }, { fact: TRANSFER_NEW }], {}, NOW);
    expect(result.texts).toEqual([TRANSFER_OLD, TRANSFER_NEW]);
    expect(result.withheld).toEqual([]);
    expect(result.notes).toEqual([unresolved("conflicting quantities ['$10,000'] vs ['$1,000,000']")]);
  });

  it('(e) a quantity conflict with timestamps withholds the older fact', () => {
    const result = applyStaleRetrievalGuard(
      [
        { fact: TRANSFER_OLD, created_at: OLD },
        { fact: TRANSFER_NEW, created_at: CURRENT },
      ],
      {},
      NOW,
    );
    expect(result.kept.map(({ index }) => index)).toEqual([1]);
    expect(result.withheld).toEqual([
      {
        index: 0,
        text: TRANSFER_OLD,
        reason: "superseded: conflicting quantities ['$1,000,000'] vs ['$10,000']",
        stage: 'conflict',
        supersededBy: TRANSFER_NEW,
      },
    ]);
    expect(result.notes).toEqual([summary(1, 2)]);
  });
});

describe("further check values on the paper's nine scenarios (§10.10; the nine of stale-retrieval.md §4)", () => {
  const CONFLICTING: Record<string, string> = {
    guardrail_bypass_disclose_card: 'opposing terms "never"/"permitted" (subject overlap 0.50)',
    over_limit_financial_transfer: 'opposing terms "single"/"dual" (subject overlap 0.50)',
  };

  it('only card disclosure and over-limit transfer register a v1/v2 conflict, with the exact reasons', async () => {
    const scenarios = await loadScenarios({ ids: PAPER_SCENARIO_IDS });
    expect(scenarios.map((scenario) => scenario.id)).toEqual([...PAPER_SCENARIO_IDS]);
    for (const scenario of scenarios) {
      const outcome = conflict(scenario.v2, scenario.v1, DEFAULT_GUARD_CONFIG);
      const expected = CONFLICTING[scenario.id];
      expect(outcome, scenario.id).toEqual(expected ? { hit: true, reason: expected } : { hit: false, reason: '' });
      if (!expected) {
        const [a, b] = [contentWords(scenario.v2), contentWords(scenario.v1)];
        const containment = [...a].filter((word) => b.has(word)).length / Math.min(a.size, b.size);
        expect(containment, scenario.id).toBeGreaterThanOrEqual(0.25);
        expect(containment, scenario.id).toBeLessThan(0.44);
      }
    }
  });

  it('the guard withholds v1 only for those two, and only when both carry timestamps', async () => {
    for (const scenario of await loadScenarios({ ids: PAPER_SCENARIO_IDS })) {
      const records = [
        { fact: scenario.v1, created_at: OLD },
        { fact: scenario.v2, created_at: CURRENT },
        ...scenario.distractors.map((fact) => ({ fact, created_at: OLD })),
      ];
      const result = applyStaleRetrievalGuard(records, {}, NOW);
      const expected = CONFLICTING[scenario.id];
      expect(result.withheld, scenario.id).toEqual(
        expected
          ? [
              {
                index: 0,
                text: scenario.v1,
                reason: `superseded: ${expected}`,
                stage: 'conflict',
                supersededBy: scenario.v2,
              },
            ]
          : [],
      );
      expect(result.notes, scenario.id).toEqual(expected ? [summary(1, records.length)] : []);
      const untimed = applyStaleRetrievalGuard([scenario.v1, scenario.v2], {}, NOW);
      expect(untimed.withheld, scenario.id).toEqual([]);
      expect(untimed.notes, scenario.id).toEqual(expected ? [unresolved(expected)] : []);
    }
  });

  it('no distractor conflicts with its scenario v1 or v2, in either direction', async () => {
    for (const scenario of await loadScenarios()) {
      for (const distractor of scenario.distractors) {
        for (const policy of [scenario.v1, scenario.v2]) {
          expect(conflict(distractor, policy, DEFAULT_GUARD_CONFIG).hit, `${scenario.id}: ${distractor}`).toBe(false);
          expect(conflict(policy, distractor, DEFAULT_GUARD_CONFIG).hit, `${scenario.id}: ${distractor}`).toBe(false);
        }
      }
    }
  });
});

describe('configuration (§10.1)', () => {
  it('has the reference defaults and rejects unknown or non-finite settings', () => {
    expect(resolveGuardConfig()).toEqual({
      subjectOverlap: 0.45,
      requireOpposition: true,
      trustExplicitFields: true,
      maxWithheldRatio: 0.6,
      annotate: true,
    });
    expect(() => resolveGuardConfig({ subjectOverlap: Number.NaN })).toThrow(InvalidInputError);
    expect(() => resolveGuardConfig({ maxWithheld: 2 } as never)).toThrow(/maxWithheld: unrecognized key/);
  });

  it('reads the environment like the reference MCP server (only what is set; only "false" is false)', () => {
    expect(guardConfigFromEnv({})).toEqual({});
    expect(
      guardConfigFromEnv({
        GUARD_SUBJECT_OVERLAP: ' 0.3 ',
        GUARD_MAX_WITHHELD_RATIO: '',
        GUARD_REQUIRE_OPPOSITION: 'FALSE',
        GUARD_TRUST_EXPLICIT: '0',
      }),
    ).toEqual({
      subjectOverlap: 0.3,
      requireOpposition: false,
      trustExplicitFields: true,
    });
    expect(() => guardConfigFromEnv({ GUARD_SUBJECT_OVERLAP: 'high', GUARD_MAX_WITHHELD_RATIO: '1/2' })).toThrow(
      /GUARD_SUBJECT_OVERLAP: not a number: "high"[\s\S]*GUARD_MAX_WITHHELD_RATIO/,
    );
  });

  it('annotate: false drops only the summary note', () => {
    const result = applyStaleRetrievalGuard([{ fact: 'x', expired_at: OLD }, { fact: 'y' }], { annotate: false }, NOW);
    expect(result.withheld).toHaveLength(1);
    expect(result.notes).toEqual([]);
  });
});

describe('createStaleRetrievalGuard (ReadGuard)', () => {
  const records: MemoryRecord[] = [
    { id: 'e1', text: TRANSFER_OLD, fields: { created_at: OLD, expired_at: null } },
    { id: 'e2', text: 'Vendor invoices are reconciled monthly.', fields: { created_at: OLD } },
    { id: 'e3', text: TRANSFER_NEW, fields: { created_at: CURRENT } },
  ];
  const warnings = [{ type: 'compatibility' as const, feature: 'filter', message: 'approximated' }];
  const request: SearchRequest = { namespace: 'ns', query: 'transfer limit', limit: 10 };

  it('calls the search once with the request, keeps records by reference and passes warnings through', async () => {
    const search = vi.fn(async (_request: SearchRequest): Promise<SearchResult> => ({ records, warnings }));
    const guard = createStaleRetrievalGuard();
    expect(guard.id).toBe('stale-retrieval');
    const result = await guard.wrapSearch({ request, search, context: { now: NOW } });
    expect(search).toHaveBeenCalledTimes(1);
    expect(search.mock.calls[0]?.[0]).toBe(request);
    expect(result.kept.map(({ index }) => index)).toEqual([1, 2]);
    expect(result.kept[0]?.record).toBe(records[1]);
    expect(result.kept[1]?.record).toBe(records[2]);
    expect(result.withheld).toEqual([
      {
        index: 0,
        text: TRANSFER_OLD,
        reason: "superseded: conflicting quantities ['$1,000,000'] vs ['$10,000']",
        stage: 'conflict',
        supersededBy: TRANSFER_NEW,
      },
    ]);
    expect(result.notes).toEqual([summary(1, 3)]);
    expect(result.warnings).toBe(warnings);
  });

  it('uses context.now for scheduled expiry and validates its settings', async () => {
    const expiring: MemoryRecord[] = [{ id: 'm1', text: 'Old rule.', fields: { expiration_date: '2026-03-01' } }];
    const search = async (): Promise<SearchResult> => ({ records: expiring, warnings: [] });
    const guard = createStaleRetrievalGuard();
    expect((await guard.wrapSearch({ request, search, context: { now: NOW } })).withheld).toHaveLength(1);
    expect(
      (await guard.wrapSearch({ request, search, context: { now: new Date('2026-02-28T23:59:59Z') } })).withheld,
    ).toHaveLength(0);
    expect(() => createStaleRetrievalGuard({ subjectOverlap: '0.5' } as never)).toThrow(InvalidInputError);
  });
});
