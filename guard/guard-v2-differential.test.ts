// Differential test (issue #32 item 1): guard-v2 after its speed-up (per-claim pair views, one read of each record's
// fields, claims cached by text) against a verbatim copy of guard-v2 before it, on generated retrievals in wordings
// no other test uses (antonyms, negated and affirmed verbs, modality, quantities, shared heads, shouting, wrapping).
import { describe, expect, it } from 'vitest';
import { claimOf, type Claim, type Quantity } from './claim.js';
import { shippedLexicon, type LoadedLexicon } from './conflict-lexicon.js';
import { stem } from './conflict.js';
import { type ConflictV2Outcome, conflictV2, type SubjectThresholds } from './conflict-v2.js';
import { type GuardV2Config, resolveGuardV2Config } from './guard-v2-config.js';
import { explicitRevocation, type GuardInput, textOf, timestampOf } from './guard-record.js';
import type { WithheldRecord } from './read-guard.js';
import { type GuardResult, unresolvedConflictNote } from './stale-retrieval-guard.js';
import { applyGuardV2, type SubjectSimilarity } from './stale-retrieval-guard-v2.js';

// ---- guard-v2 as it was before issue #32 item 1 (guard/conflict-v2.ts, stale-retrieval-guard-v2.ts). Test-only. ----
const NO_CONFLICT: ConflictV2Outcome = Object.freeze({ hit: false, reason: '' });
const fixed = (value: number) => value.toFixed(2);

/** Same subject: ≥ 2 shared content lemmas, one head noun found in the other text, no clashing modifiers. */
function oldSubjectOf(a: Claim, b: Claim, thresholds: SubjectThresholds, similarity: number | null): string | null {
  const shared = [...a.content].filter((lemma) => b.content.has(lemma));
  if (shared.length < 2 || !a.head || !b.head) return null;
  if (!b.content.has(a.head.noun) && !a.content.has(b.head.noun)) return null;
  // `sick leave` and `bereavement leave` share a head but name different things.
  // Stemmed, since the tagger may read `suspected breach` as an adjective once and a participle the next time.
  const modifiersA = new Set([...a.head.modifiers].map(stem));
  const modifiersB = new Set([...b.head.modifiers].map(stem));
  if (
    a.head.noun === b.head.noun &&
    modifiersA.size > 0 &&
    modifiersB.size > 0 &&
    ![...modifiersA].some((m) => modifiersB.has(m))
  )
    return null;
  const containment = shared.length / Math.min(a.content.size, b.content.size);
  if (containment >= thresholds.subjectOverlap) return `subject overlap ${fixed(containment)}`;
  if (similarity !== null && similarity >= thresholds.embeddingSimilarity)
    return `subject similarity ${fixed(similarity)} by embedding`;
  return null;
}

/** An antonym pair where each side asserts its own term and not the other's (`delete` vs `retain`). */
function oldOpposingTerms(a: Claim, b: Claim, lexicon: LoadedLexicon): [string, string] | null {
  for (const u of [...a.affirmed].sort()) {
    if (b.affirmed.has(u)) continue;
    for (const w of [...(lexicon.antonyms.get(u) ?? [])].sort()) {
      if (b.affirmed.has(w) && !a.affirmed.has(w)) return [u, w];
    }
  }
  return null;
}

/** A verb one side asserts and the other negates, on a shared noun (`rolled back` vs `never roll back`). */
function oldFlippedVerb(a: Claim, b: Claim): string | null {
  const flips = (yes: Claim, no: Claim) =>
    [...yes.affirmedVerbs].filter(([verb, nouns]) => {
      const negated = no.negatedVerbs.get(verb);
      return negated !== undefined && !no.affirmedVerbs.has(verb) && [...nouns].some((noun) => negated.has(noun));
    });
  return [...flips(a, b), ...flips(b, a)].map(([verb]) => verb).sort()[0] ?? null;
}

/** A unit both state with no value in common (`$1,000,000` vs `$10,000`; `24 hours` vs `1 year`). */
function oldConflictingQuantities(a: Claim, b: Claim): [Quantity, Quantity] | null {
  for (const unit of [...new Set(a.quantities.map((q) => q.unit))].sort()) {
    const inA = a.quantities.filter((q) => q.unit === unit);
    const inB = b.quantities.filter((q) => q.unit === unit);
    if (inB.length === 0 || inA.some((q) => inB.some((r) => r.value === q.value))) continue;
    return [inA[0]!, inB[0]!];
  }
  return null;
}

/**
 * conflict(a, b) for guard-v2: the same subject, then the first opposition that fires: antonyms (WordNet plus the
 * curated list), a verb asserted on one side and negated on the other, permission against prohibition, or a
 * quantity in the same unit with no common value. `similarity` is the embedder's cosine of the two texts, or null.
 *
 * @example conflictV2(claimOf(v1, lexicon), claimOf(v2, lexicon), lexicon, thresholds, null)
 * // → { hit: true, reason: 'conflicting quantities "ONE reviewer" vs "TWO independent reviewers" (subject overlap 0.60)' }
 */
function oldConflictV2(
  a: Claim,
  b: Claim,
  lexicon: LoadedLexicon,
  thresholds: SubjectThresholds,
  similarity: number | null,
): ConflictV2Outcome {
  const subject = oldSubjectOf(a, b, thresholds, similarity);
  if (subject === null) return NO_CONFLICT;
  const terms = oldOpposingTerms(a, b, lexicon);
  if (terms) return { hit: true, reason: `opposing terms "${terms[0]}"/"${terms[1]}" (${subject})` };
  const verb = oldFlippedVerb(a, b);
  if (verb) return { hit: true, reason: `"${verb}" asserted and negated (${subject})` };
  if (
    (a.permits && !a.prohibits && b.prohibits && !b.permits) ||
    (b.permits && !b.prohibits && a.prohibits && !a.permits)
  )
    return { hit: true, reason: `permission against prohibition (${subject})` };
  const quantities = oldConflictingQuantities(a, b);
  if (quantities)
    return {
      hit: true,
      reason: `conflicting quantities "${quantities[0].text}" vs "${quantities[1].text}" (${subject})`,
    };
  return NO_CONFLICT;
}

function oldApplyGuardV2(
  records: readonly GuardInput[],
  config: Partial<GuardV2Config> = {},
  now: Date = new Date(),
  similarity: SubjectSimilarity = () => null,
): GuardResult {
  const settings = resolveGuardV2Config(config);
  const lexicon = shippedLexicon();
  const withheld: WithheldRecord[] = [];
  const notes: string[] = [];
  const survivors: { index: number; record: GuardInput; time: number | null; claim: Claim }[] = [];
  records.forEach((record, index) => {
    const marked = settings.trustExplicitFields ? explicitRevocation(record, now) : null;
    if (marked) withheld.push({ index, text: textOf(record), reason: `backend marked ${marked}`, stage: 'explicit' });
    else survivors.push({ index, record, time: timestampOf(record), claim: claimOf(textOf(record), lexicon) });
  });
  const order = [...survivors].sort((a, b) => {
    if (a.time === null || b.time === null) return (a.time === null ? 1 : 0) - (b.time === null ? 1 : 0);
    return b.time - a.time;
  });
  const maxWithheld = Math.trunc(records.length * settings.maxWithheldRatio);
  const kept: typeof survivors = [];
  for (const candidate of order) {
    let superseding: { reason: string; text: string } | null = null;
    for (const keeper of kept) {
      const outcome = oldConflictV2(
        candidate.claim,
        keeper.claim,
        lexicon,
        settings,
        similarity(candidate.index, keeper.index),
      );
      if (!outcome.hit) continue;
      if (candidate.time !== null && keeper.time !== null && candidate.time < keeper.time)
        superseding = { reason: outcome.reason, text: textOf(keeper.record) };
      else notes.push(unresolvedConflictNote(outcome.reason));
      break;
    }
    if (superseding && withheld.length < maxWithheld) {
      const text = textOf(candidate.record);
      withheld.push({
        index: candidate.index,
        text,
        reason: `superseded: ${superseding.reason}`,
        stage: 'conflict',
        supersededBy: superseding.text,
      });
    } else kept.push(candidate);
  }
  const keptInOrder = kept.sort((a, b) => a.index - b.index).map(({ index, record }) => ({ index, record }));
  if (settings.annotate && withheld.length > 0)
    notes.push(
      `${withheld.length} of ${records.length} retrieved facts withheld as superseded or revoked; they remain in the store and are listed in \`withheld\`.`,
    );
  return { kept: keptInOrder, withheld, notes, texts: keptInOrder.map(({ record }) => textOf(record)) };
}

// ---- Generated retrievals. ----

/** mulberry32, seeded: the same retrievals on every run. */
function seeded(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

const SUBJECTS = [
  'nightly snapshots of the billing ledger',
  'payroll exports',
  'vendor onboarding tickets',
  'contractor laptops',
  'the staging cluster credentials',
  'parental leave requests',
  'compassionate leave requests',
  'outbound wire payments',
  'guest wifi sessions',
  'firmware rollouts to kiosks',
  'PRINTER QUEUE LOGS',
  'customer loyalty points',
  'the balances',
  'the leave balances',
  'the payroll balances',
  'all backups',
  'all nightly backups',
  'all offsite backups',
  'the old payroll exports',
];
const PREDICATES = [
  'must be purged after {n} days',
  'must never be purged',
  'are retained for {n} years',
  'are kept for {n} months',
  'may be shared with auditors',
  'are not permitted to leave the region',
  'are prohibited from export',
  'require dual sign-off',
  'require a single sign-off',
  'can be approved automatically',
  'need manual approval first',
  'are denied to interns',
  'are granted to interns',
  'should be encrypted at rest',
  'are never encrypted',
  'are visible to everyone',
  'are hidden from everyone',
  'cost DOLLARS per seat each month',
  'are capped at {n} per week',
  'open at {n} am on weekdays',
  'are allowed without review',
  'nobody may touch them on Fridays',
  'are accepted when late',
  'are rejected when late',
];
const TAILS = [
  '',
  ' immediately',
  ' during the freeze',
  ' unless legal objects',
  ' for every region',
  ' (see the wiki)',
];

function sentence(random: () => number): string {
  const pick = <T>(list: readonly T[]): T => list[Math.floor(random() * list.length)]!;
  const n = String(pick([1, 2, 3, 5, 7, 10, 12, 30, 90, 365, 1000, 10000]));
  let text = `${pick(SUBJECTS)} ${pick(PREDICATES)
    .replace('{n}', n)
    .replace('DOLLARS', () => `$${n}`)}${pick(TAILS)}.`;
  text = text[0]!.toUpperCase() + text.slice(1);
  if (random() < 0.15)
    text = `${text} ${pick(SUBJECTS)} ${pick(PREDICATES)
      .replace('{n}', n)
      .replace('DOLLARS', () => `$${n}`)}.`;
  if (random() < 0.05) text = `{'content': '${text}'}`;
  return text;
}

const NOW = new Date('2026-03-01T12:00:00Z');

function record(text: string, random: () => number): GuardInput {
  const roll = random();
  if (roll < 0.08) return text;
  const when = new Date(NOW.getTime() - Math.floor(random() * 400) * 86_400_000).toISOString();
  const fields: Record<string, unknown> = { fact: text };
  if (roll < 0.3) fields.created_at = when;
  else if (roll < 0.5) fields.valid_at = when.replace('Z', '+00:00');
  else if (roll < 0.65) fields.updated_at = when.slice(0, 10);
  else if (roll < 0.72) fields.timestamp = 'not a time';
  else if (roll < 0.8) fields.created_at = '2025-06-01T00:00:00Z';
  if (random() < 0.06) fields.expired_at = when;
  if (random() < 0.04) fields.expiration_date = random() < 0.5 ? '2099-01-01' : '2025-01-01';
  return fields;
}

function retrievals(seed: number, count: number): GuardInput[][] {
  const random = seeded(seed);
  return Array.from({ length: count }, () => {
    const size = 2 + Math.floor(random() * 10);
    const texts = Array.from({ length: size }, () => sentence(random));
    // Repeats as stores return them: the same text twice in one read.
    if (random() < 0.2) texts[size - 1] = texts[0]!;
    return texts.map((text) => record(text, random));
  });
}

describe('guard-v2 after issue #32 item 1 against guard-v2 before it', () => {
  const configs: Partial<GuardV2Config>[] = [
    {},
    { subjectOverlap: 0.2, maxWithheldRatio: 1 },
    { subjectOverlap: 0.6, trustExplicitFields: false, annotate: false },
  ];
  it('returns the same verdict on 3,000 generated retrievals under three configurations', () => {
    let withheld = 0;
    let notes = 0;
    const reasons = new Set<string>();
    for (const [at, config] of configs.entries())
      for (const input of retrievals(20260305 + at, 1000)) {
        const ours = applyGuardV2(input, Object.freeze({ ...config }), NOW);
        expect(ours, JSON.stringify(input)).toEqual(oldApplyGuardV2(input, config, NOW));
        withheld += ours.withheld.length;
        notes += ours.notes.length;
        for (const w of ours.withheld) reasons.add(w.reason.replace(/[" ].*$/, ''));
      }
    // The inputs reach every branch: conflicts withheld and conflicts left unresolved, for several reasons.
    expect(withheld).toBeGreaterThan(300);
    expect(notes).toBeGreaterThan(300);
    expect(reasons.size).toBeGreaterThan(1);
  });

  it("returns the same verdict with an embedder's similarity (the subject test's second door)", () => {
    const random = seeded(7);
    for (const input of retrievals(99, 300)) {
      const table = input.map(() => input.map(() => (random() < 0.3 ? null : random())));
      const similarity: SubjectSimilarity = (i, j) => table[i]![j]!;
      expect(applyGuardV2(input, {}, NOW, similarity)).toEqual(oldApplyGuardV2(input, {}, NOW, similarity));
    }
  });

  it('gives the same outcome on every ordered pair of generated texts, with and without a similarity', () => {
    const lexicon = shippedLexicon();
    const thresholds: SubjectThresholds = { subjectOverlap: 0.3, embeddingSimilarity: 0.8 };
    const random = seeded(11);
    const texts = Array.from({ length: 120 }, () => sentence(random));
    let hits = 0;
    for (const a of texts)
      for (const b of texts) {
        const [claimA, claimB] = [claimOf(a, lexicon), claimOf(b, lexicon)];
        for (const similarity of [null, 0.9]) {
          const ours = conflictV2(claimA, claimB, lexicon, thresholds, similarity);
          expect(ours, `${a} | ${b}`).toEqual(oldConflictV2(claimA, claimB, lexicon, thresholds, similarity));
          if (ours.hit) hits += 1;
        }
      }
    expect(hits).toBeGreaterThan(300);
  });
});
