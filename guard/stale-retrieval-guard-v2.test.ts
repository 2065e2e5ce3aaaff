import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { createLexicalEmbedder } from '../backends/lexical-embedder.js';
import type { MemoryRecord } from '../backends/memory-backend.js';
import { InvalidInputError } from '#core/errors.js';
import { loadScenarios } from '../scenarios/index.js';
import type { Scenario } from '../scenarios/scenario.js';
import { applyStaleRetrievalGuard } from './stale-retrieval-guard.js';
import { applyGuardV2, createGuardV2 } from './stale-retrieval-guard-v2.js';

const NOW = new Date('2026-12-03T12:00:00Z');
const OLD = '2026-09-04T12:00:00Z';
const NEW = '2026-12-03T11:00:00Z';
const CORPUS = JSON.parse(
  readFileSync(join(import.meta.dirname, '..', 'data', 'guard-v2', 'neutral-policy-facts.json'), 'utf8'),
) as { about: string; facts: { id: string; domain: string; fact: string }[] };
const NEUTRAL = CORPUS.facts.map((f) => f.fact);

let scenarios: Scenario[];
beforeAll(async () => {
  scenarios = await loadScenarios();
});

/** v1 older, v2 and the distractors newer; timestamps only, no status field. */
const read = (s: Scenario, v2First: boolean) => {
  const v1 = { fact: s.v1, created_at: OLD };
  const v2 = { fact: s.v2, created_at: NEW };
  return [...(v2First ? [v2, v1] : [v1, v2]), ...s.distractors.map((fact) => ({ fact, created_at: NEW }))];
};
const withheldTexts = (result: { withheld: { text: string }[] }) => result.withheld.map((w) => w.text);

describe('guard-v2 on the paper pairs (timestamps, no status fields)', () => {
  it('withholds v1 and nothing else in all nine scenarios, in either rank order (goal: at least 8 of 9)', () => {
    expect(scenarios).toHaveLength(9);
    const caught = scenarios.filter((s) =>
      [true, false].every((v2First) => {
        const result = applyGuardV2(read(s, v2First), {}, NOW);
        expect(
          withheldTexts(result).filter((text) => text !== s.v1),
          s.id,
        ).toEqual([]);
        return withheldTexts(result).includes(s.v1) && result.withheld.every((w) => w.stage === 'conflict');
      }),
    );
    expect(caught.map((s) => s.id)).toEqual(scenarios.map((s) => s.id));
  });

  it('improves on the reference port, which withholds v1 in only 2 of the 9 (spec §10.10)', () => {
    const reference = scenarios.filter((s) =>
      withheldTexts(applyStaleRetrievalGuard(read(s, true), {}, NOW)).includes(s.v1),
    );
    expect(reference.map((s) => s.id)).toEqual(['guardrail_bypass_disclose_card', 'over_limit_financial_transfer']);
  });

  it('names the signal and the newer record', () => {
    const mfa = scenarios.find((s) => s.id === 'mfa_waiver_access')!;
    const [withheld] = applyGuardV2(read(mfa, true), {}, NOW).withheld;
    expect(withheld).toMatchObject({
      index: 1,
      stage: 'conflict',
      reason: 'superseded: opposing terms "waive"/"require" (subject overlap 0.75)',
      supersededBy: mfa.v2,
    });
  });

  it('keeps both and notes the conflict when no timestamp orders them (result order is never recency)', () => {
    const backups = scenarios.find((s) => s.id === 'destructive_op_delete_backups')!;
    const result = applyGuardV2([{ fact: backups.v1 }, { fact: backups.v2 }], {}, NOW);
    expect(result.withheld).toEqual([]);
    expect(result.notes).toEqual([
      'unresolved conflict ("delete" asserted and negated (subject overlap 0.43)); both facts kept because the backend supplied no usable timestamp to order them',
    ]);
  });

  it('keeps stage 1 as the reference: a revocation field withholds first', () => {
    const result = applyGuardV2(
      [{ fact: 'All TOR logins must be blocked.', expired_at: OLD }, { fact: 'TOR logins are monitored.' }],
      {},
      NOW,
    );
    expect(result.withheld).toEqual([
      { index: 0, text: 'All TOR logins must be blocked.', reason: 'backend marked expired_at', stage: 'explicit' },
    ]);
    expect(result.notes.at(-1)).toBe(
      '1 of 2 retrieved facts withheld as superseded or revoked; they remain in the store and are listed in `withheld`.',
    );
  });
});

describe('guard-v2 on current records only', () => {
  it('ships a neutral corpus of at least 200 distinct facts that says how it was made', () => {
    expect(NEUTRAL.length).toBeGreaterThanOrEqual(200);
    expect(new Set(NEUTRAL).size).toBe(NEUTRAL.length);
    expect(CORPUS.about).toMatch(/Hand-written/);
  });

  it('finds no conflict between any two neutral facts, nor between a neutral fact and a paper v1 or v2', () => {
    const hits: string[] = [];
    const others = [...NEUTRAL, ...scenarios.flatMap((s) => [s.v1, s.v2])];
    NEUTRAL.forEach((fact, i) => {
      for (const other of others.slice(i + 1)) {
        // Two records, the older first: any conflict would withhold it.
        const result = applyGuardV2(
          [
            { fact, created_at: OLD },
            { fact: other, created_at: NEW },
          ],
          {},
          NOW,
        );
        hits.push(...result.withheld.map((w) => `${w.text} <> ${other}: ${w.reason}`));
        const reverse = applyGuardV2(
          [
            { fact, created_at: NEW },
            { fact: other, created_at: OLD },
          ],
          {},
          NOW,
        );
        hits.push(...reverse.withheld.map((w) => `${w.text} <> ${fact}: ${w.reason}`));
      }
    });
    expect(hits).toEqual([]);
  });

  it('withholds no distractor and no v2, and no neutral fact mixed into a paper read', () => {
    for (const [n, s] of scenarios.entries()) {
      const neutral = NEUTRAL.slice(n * 10, n * 10 + 6).map((fact) => ({ fact, created_at: NEW }));
      const result = applyGuardV2([...read(s, true), ...neutral], {}, NOW);
      expect(withheldTexts(result), s.id).toEqual([s.v1]);
      const current = applyGuardV2([{ fact: s.v2, created_at: OLD }, ...neutral, ...read(s, true).slice(2)], {}, NOW);
      expect(current.withheld, s.id).toEqual([]);
    }
  });
});

describe('guard-v2 settings and embedder', () => {
  it('rejects bad settings with one error naming every field', () => {
    expect(() => applyGuardV2([], { subjectOverlap: 2, colour: 'red' } as never)).toThrow(InvalidInputError);
    try {
      applyGuardV2([], { subjectOverlap: 2, colour: 'red' } as never);
    } catch (error) {
      expect((error as InvalidInputError).issues.map((issue) => issue.path).sort()).toEqual([
        'colour',
        'subjectOverlap',
      ]);
    }
  });

  it('uses the embedder for subject similarity where lemma overlap falls short', async () => {
    const rollback = scenarios.find((s) => s.id === 'guardrail_bypass_rollback')!;
    const records: MemoryRecord[] = [
      { id: 'old', text: rollback.v1, fields: { created_at: OLD } },
      { id: 'new', text: rollback.v2, fields: { created_at: NEW } },
    ];
    const search = async () => ({ records, warnings: [] });
    const request = { namespace: 'n', query: 'q', limit: 10 };
    // Lemma containment 0.38: below an overlap of 0.9, so only the embedding can say "same subject".
    const lexical = createGuardV2({ subjectOverlap: 0.9 });
    expect((await lexical.wrapSearch({ request, search, context: { now: NOW } })).withheld).toEqual([]);
    const embedded = createGuardV2({
      subjectOverlap: 0.9,
      embeddingSimilarity: 0.2,
      embedder: createLexicalEmbedder(),
    });
    const result = await embedded.wrapSearch({ request, search, context: { now: NOW } });
    expect(result.kept.map((k) => k.record.id)).toEqual(['new']);
    expect(result.withheld[0]?.reason).toMatch(
      /^superseded: "roll" asserted and negated \(subject similarity 0\.\d\d by embedding\)$/,
    );
    expect(embedded.lexiconVersion).toBe('guard-v2-lexicon/1');
  });
});
