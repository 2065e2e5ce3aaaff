// The guard's conflict test (stale-retrieval.md §10.6–10.7): containment of stemmed words plus an opposition signal.
import { formatFixed, pythonSortedListRepr } from '#python-compat/index.js';
import {
  conflictFeatures,
  opposingPair,
  quantitiesOf,
  trimConflictCaches,
  type ConflictFeatures,
} from './conflict-features.js';

export { contentWords, negationCount, quantities, stem } from './conflict-features.js';

/** The negation branch's threshold. Hard-coded in [C]; it does not follow `subjectOverlap` (§10.11.4). */
const NEGATION_OVERLAP = 0.45;

/** What the conflict test decided and, on a hit, the reason in the reference's exact wording. */
export interface ConflictOutcome {
  /** Whether the two texts conflict. */
  hit: boolean;
  /** The reason (`''` when there is no conflict). */
  reason: string;
}

/** The settings the conflict test reads. */
export interface ConflictSettings {
  /** α, the minimum containment for "same subject". */
  subjectOverlap: number;
  /** When false, same subject alone is a conflict. */
  requireOpposition: boolean;
}

const EMPTY: ReadonlySet<string> = new Set();
const NO_CONFLICT: ConflictOutcome = Object.freeze({ hit: false, reason: '' });

/**
 * §10.7 conflict(a, b): same subject (containment ≥ α), then the first opposition signal that fires:
 * antonym pair, disjoint quantities, or a negation-count difference (with the hard-coded 0.45).
 *
 * @example conflict('Deployment approval requires only one reviewer.', 'Deployment approval requires two independent reviewers.', { subjectOverlap: 0.45, requireOpposition: true })
 * // → { hit: true, reason: 'opposing terms "one"/"two" (subject overlap 0.75)' }
 */
export function conflict(a: string, b: string, config: ConflictSettings): ConflictOutcome {
  trimConflictCaches();
  return conflictBetween(conflictFeatures(a), conflictFeatures(b), config);
}

/** |A ∩ B| of two sorted arrays of distinct ids (a merge). */
function sharedCount(a: readonly number[], b: readonly number[]): number {
  let shared = 0;
  let i = 0;
  let j = 0;
  while (i < a.length && j < b.length) {
    const x = a[i]!;
    const y = b[j]!;
    if (x === y) {
      shared += 1;
      i += 1;
      j += 1;
    } else if (x < y) i += 1;
    else j += 1;
  }
  return shared;
}

/** `conflict` on texts already read by `conflictFeatures` (the guard reads each record's text once per retrieval). */
export function conflictBetween(a: ConflictFeatures, b: ConflictFeatures, config: ConflictSettings): ConflictOutcome {
  const idsA = a.ids;
  const idsB = b.ids;
  if (idsA.length === 0 || idsB.length === 0) return NO_CONFLICT;
  // Texts whose word summaries share no bit share no word (containment 0), without a merge.
  const shared = (a.words & b.words) === 0 ? 0 : sharedCount(idsA, idsB);
  const containment = shared / Math.min(idsA.length, idsB.length);
  if (containment < config.subjectOverlap) return NO_CONFLICT;
  if (!config.requireOpposition) return { hit: true, reason: `same subject (overlap ${formatFixed(containment, 2)})` };
  // The first pair, in order, with one term in each text: the lowest bit of either crossing.
  const opposed = (a.left & b.right) | (a.right & b.left);
  if (opposed !== 0) {
    const [termU, termW] = opposingPair(opposed & -opposed);
    return {
      hit: true,
      reason: `opposing terms "${termU}"/"${termW}" (subject overlap ${formatFixed(containment, 2)})`,
    };
  }
  const quantitiesA = a.digits ? quantitiesOf(a) : EMPTY;
  const quantitiesB = b.digits && quantitiesA.size > 0 ? quantitiesOf(b) : EMPTY;
  if (quantitiesA.size > 0 && quantitiesB.size > 0 && !sharesAny(quantitiesA, quantitiesB)) {
    return {
      hit: true,
      reason: `conflicting quantities ${pythonSortedListRepr(quantitiesA)} vs ${pythonSortedListRepr(quantitiesB)}`,
    };
  }
  if (Math.abs(a.negations - b.negations) >= 1 && containment >= NEGATION_OVERLAP) {
    return { hit: true, reason: `polarity mismatch (subject overlap ${formatFixed(containment, 2)})` };
  }
  return NO_CONFLICT;
}

/** Whether two sets have a member in common. */
function sharesAny(a: ReadonlySet<string>, b: ReadonlySet<string>): boolean {
  for (const item of a) if (b.has(item)) return true;
  return false;
}
