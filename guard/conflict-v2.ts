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

/**
 * What the pair tests read of one claim beyond its fields, derived on first need (most pairs never need them) and
 * kept per claim (and lexicon): the stemmed head modifiers, and the affirmed lemmas that have antonyms, sorted, each
 * with its antonyms sorted. A claim is immutable (claimOf caches it), so these are pure functions of it; kept in a
 * WeakMap, they live as long as the claim.
 */
interface PairView {
  lexicon: LoadedLexicon;
  /** `stem` of each head modifier (empty without a head), or null until first needed. */
  modifiers: ReadonlySet<string> | null;
  /** The affirmed lemmas with at least one antonym, in default sort order, or null until first needed. */
  opposable: readonly string[] | null;
  /** The antonyms of each of `opposable`, sorted. */
  antonyms: readonly (readonly string[])[];
}

const VIEWS = new WeakMap<Claim, PairView>();
/** Per lexicon: lemma → its antonyms in default sort order. */
const SORTED_ANTONYMS = new WeakMap<LoadedLexicon, Map<string, readonly string[]>>();

function sortedAntonyms(sorted: Map<string, readonly string[]>, lexicon: LoadedLexicon, lemma: string) {
  let list = sorted.get(lemma);
  if (list === undefined) {
    const set = lexicon.antonyms.get(lemma);
    if (set === undefined || set.size === 0) return undefined;
    list = [...set].sort();
    sorted.set(lemma, list);
  }
  return list;
}

function viewOf(claim: Claim, lexicon: LoadedLexicon): PairView {
  let view = VIEWS.get(claim);
  if (view === undefined || view.lexicon !== lexicon) {
    view = { lexicon, modifiers: null, opposable: null, antonyms: [] };
    VIEWS.set(claim, view);
  }
  return view;
}

/** The stemmed head modifiers of a claim. */
function modifiersOf(claim: Claim, lexicon: LoadedLexicon): ReadonlySet<string> {
  const view = viewOf(claim, lexicon);
  if (view.modifiers === null) {
    const modifiers = new Set<string>();
    if (claim.head) for (const modifier of claim.head.modifiers) modifiers.add(stem(modifier));
    view.modifiers = modifiers;
  }
  return view.modifiers;
}

/** The view with `opposable` and `antonyms` filled. */
function opposableOf(claim: Claim, lexicon: LoadedLexicon): PairView {
  const view = viewOf(claim, lexicon);
  if (view.opposable === null) {
    let sorted = SORTED_ANTONYMS.get(lexicon);
    if (!sorted) {
      sorted = new Map();
      SORTED_ANTONYMS.set(lexicon, sorted);
    }
    const opposable: string[] = [];
    const antonyms: (readonly string[])[] = [];
    for (const lemma of [...claim.affirmed].sort()) {
      const list = sortedAntonyms(sorted, lexicon, lemma);
      if (list === undefined) continue;
      opposable.push(lemma);
      antonyms.push(list);
    }
    view.opposable = opposable;
    view.antonyms = antonyms;
  }
  return view;
}

/** |A ∩ B| of two sets (the smaller one iterated). */
function sharedCount(a: ReadonlySet<string>, b: ReadonlySet<string>): number {
  const [small, large] = a.size <= b.size ? [a, b] : [b, a];
  let shared = 0;
  for (const item of small) if (large.has(item)) shared += 1;
  return shared;
}

/** Whether two sets have a member in common. */
function meets(a: ReadonlySet<string>, b: ReadonlySet<string>): boolean {
  for (const item of a) if (b.has(item)) return true;
  return false;
}

/** Same subject: ≥ 2 shared content lemmas, one head noun found in the other text, no clashing modifiers. */
function subjectOf(
  a: Claim,
  b: Claim,
  lexicon: LoadedLexicon,
  thresholds: SubjectThresholds,
  similarity: number | null,
): string | null {
  if (!a.head || !b.head) return null;
  if (!b.content.has(a.head.noun) && !a.content.has(b.head.noun)) return null;
  const shared = sharedCount(a.content, b.content);
  if (shared < 2) return null;
  // `sick leave` and `bereavement leave` share a head but name different things.
  // Stemmed, since the tagger may read `suspected breach` as an adjective once and a participle the next time.
  // (A set's stems are empty exactly when the set is.)
  if (
    a.head.noun === b.head.noun &&
    a.head.modifiers.size > 0 &&
    b.head.modifiers.size > 0 &&
    !meets(modifiersOf(a, lexicon), modifiersOf(b, lexicon))
  )
    return null;
  const containment = shared / Math.min(a.content.size, b.content.size);
  if (containment >= thresholds.subjectOverlap) return `subject overlap ${fixed(containment)}`;
  if (similarity !== null && similarity >= thresholds.embeddingSimilarity)
    return `subject similarity ${fixed(similarity)} by embedding`;
  return null;
}

/** An antonym pair where each side asserts its own term and not the other's (`delete` vs `retain`). */
function opposingTerms(a: Claim, b: Claim, lexicon: LoadedLexicon): [string, string] | null {
  const view = opposableOf(a, lexicon);
  const opposable = view.opposable!;
  const antonyms = view.antonyms;
  for (let at = 0; at < opposable.length; at += 1) {
    const u = opposable[at]!;
    if (b.affirmed.has(u)) continue;
    for (const w of antonyms[at]!) if (b.affirmed.has(w) && !a.affirmed.has(w)) return [u, w];
  }
  return null;
}

/** The least verb (default sort order) that `yes` asserts and `no` negates on a shared noun, or `best`. */
function leastFlip(yes: Claim, no: Claim, best: string | null): string | null {
  if (no.negatedVerbs.size === 0) return best;
  for (const [verb, nouns] of yes.affirmedVerbs) {
    if (best !== null && !(verb < best)) continue;
    const negated = no.negatedVerbs.get(verb);
    if (negated === undefined || no.affirmedVerbs.has(verb) || !meets(nouns, negated)) continue;
    best = verb;
  }
  return best;
}

/** A verb one side asserts and the other negates, on a shared noun (`rolled back` vs `never roll back`). */
function flippedVerb(a: Claim, b: Claim): string | null {
  return leastFlip(b, a, leastFlip(a, b, null));
}

/** A unit both state with no value in common (`$1,000,000` vs `$10,000`; `24 hours` vs `1 year`). */
function conflictingQuantities(a: Claim, b: Claim): [Quantity, Quantity] | null {
  if (a.quantities.length === 0 || b.quantities.length === 0) return null;
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
  const subject = subjectOf(a, b, lexicon, thresholds, similarity);
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
