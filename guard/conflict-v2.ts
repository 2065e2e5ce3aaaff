// guard-v2's conflict test: same subject (lemmas, head noun phrase, optional embedding), then an opposition signal.
import { claimOf, type Claim, type Quantity } from './claim.js';
import { shippedLexicon, type LoadedLexicon } from './conflict-lexicon.js';
import { stem } from './conflict.js';
import { DEFAULT_GUARD_V2_CONFIG } from './guard-v2-config.js';

/** The thresholds of the subject test. */
export interface SubjectThresholds {
  /** Minimum containment of content lemmas, |A∩B| / min(|A|, |B|). */
  subjectOverlap: number;
  /** With an embedder: cosine similarity that stands in for `subjectOverlap` when containment falls short. */
  embeddingSimilarity: number;
}

/** The verdict on one pair, with the reason in words on a hit. */
export interface ConflictV2Outcome {
  /** Whether the two claims conflict. */
  hit: boolean;
  /** Why (`''` when they do not). */
  reason: string;
}

const NO_CONFLICT: ConflictV2Outcome = Object.freeze({ hit: false, reason: '' });
const fixed = (value: number) => value.toFixed(2);

/** Same subject: ≥ 2 shared content lemmas, one head noun found in the other text, no clashing modifiers. */
function subjectOf(a: Claim, b: Claim, thresholds: SubjectThresholds, similarity: number | null): string | null {
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
function opposingTerms(a: Claim, b: Claim, lexicon: LoadedLexicon): [string, string] | null {
  for (const u of [...a.affirmed].sort()) {
    if (b.affirmed.has(u)) continue;
    for (const w of [...(lexicon.antonyms.get(u) ?? [])].sort()) {
      if (b.affirmed.has(w) && !a.affirmed.has(w)) return [u, w];
    }
  }
  return null;
}

/** A verb one side asserts and the other negates, on a shared noun (`rolled back` vs `never roll back`). */
function flippedVerb(a: Claim, b: Claim): string | null {
  const flips = (yes: Claim, no: Claim) =>
    [...yes.affirmedVerbs].filter(([verb, nouns]) => {
      const negated = no.negatedVerbs.get(verb);
      return negated !== undefined && !no.affirmedVerbs.has(verb) && [...nouns].some((noun) => negated.has(noun));
    });
  return [...flips(a, b), ...flips(b, a)].map(([verb]) => verb).sort()[0] ?? null;
}

/** A unit both state with no value in common (`$1,000,000` vs `$10,000`; `24 hours` vs `1 year`). */
function conflictingQuantities(a: Claim, b: Claim): [Quantity, Quantity] | null {
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
export function conflictV2(
  a: Claim,
  b: Claim,
  lexicon: LoadedLexicon,
  thresholds: SubjectThresholds,
  similarity: number | null,
): ConflictV2Outcome {
  const subject = subjectOf(a, b, thresholds, similarity);
  if (subject === null) return NO_CONFLICT;
  const terms = opposingTerms(a, b, lexicon);
  if (terms) return { hit: true, reason: `opposing terms "${terms[0]}"/"${terms[1]}" (${subject})` };
  const verb = flippedVerb(a, b);
  if (verb) return { hit: true, reason: `"${verb}" asserted and negated (${subject})` };
  if (
    (a.permits && !a.prohibits && b.prohibits && !b.permits) ||
    (b.permits && !b.prohibits && a.prohibits && !a.permits)
  )
    return { hit: true, reason: `permission against prohibition (${subject})` };
  const quantities = conflictingQuantities(a, b);
  if (quantities)
    return {
      hit: true,
      reason: `conflicting quantities "${quantities[0].text}" vs "${quantities[1].text}" (${subject})`,
    };
  return NO_CONFLICT;
}

/**
 * guard-v2's conflict test on two texts, as the guard runs it by default: the shipped lexicon, the default subject
 * thresholds, no embedder. The offline extraction simulator judges contradictions with it (issue #29 item 4).
 *
 * @example textsConflictV2('Chat logs are kept for 1 year.', 'Chat logs are deleted after 30 days.').hit
 */
export function textsConflictV2(a: string, b: string): ConflictV2Outcome {
  const lexicon = shippedLexicon();
  return conflictV2(claimOf(a, lexicon), claimOf(b, lexicon), lexicon, DEFAULT_GUARD_V2_CONFIG, null);
}
