// The guard's conflict test (stale-retrieval.md §10.6–10.7): containment of stemmed words plus an opposition signal.
import { formatFixed, pythonSortedListRepr } from '../pipeline/python-compat/index.js';
import {
  conflictFeatures,
  OPPOSING_TERMS,
  oppositionOf,
  TERM_PAIRS,
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

const NO_CONFLICT: ConflictOutcome = Object.freeze({ hit: false, reason: '' });

/**
 * §10.7 conflict(a, b): same subject (containment ≥ α), then the first opposition signal that fires:
 * antonym pair, disjoint quantities, or a negation-count difference (with the hard-coded 0.45).
 *
 * @example conflict('Deployment approval requires only one reviewer.', 'Deployment approval requires two independent reviewers.', { subjectOverlap: 0.45, requireOpposition: true })
 * // → { hit: true, reason: 'opposing terms "one"/"two" (subject overlap 0.75)' }
 */
export function conflict(a: string, b: string, config: ConflictSettings): ConflictOutcome {
  return conflictBetween(conflictFeatures(a), conflictFeatures(b), config);
}

/** `conflict` on texts already read by `conflictFeatures` (the guard reads each record's text once per retrieval). */
export function conflictBetween(a: ConflictFeatures, b: ConflictFeatures, config: ConflictSettings): ConflictOutcome {
  const wordsA = a.words;
  const wordsB = b.words;
  if (wordsA.size === 0 || wordsB.size === 0) return NO_CONFLICT;
  let shared = 0;
  for (const word of wordsA) if (wordsB.has(word)) shared += 1;
  const containment = shared / Math.min(wordsA.size, wordsB.size);
  if (containment < config.subjectOverlap) return NO_CONFLICT;
  const overlap = formatFixed(containment, 2);
  if (!config.requireOpposition) return { hit: true, reason: `same subject (overlap ${overlap})` };
  const signalsA = oppositionOf(a);
  const signalsB = oppositionOf(b);
  for (const [pair, [u, w]] of TERM_PAIRS.entries()) {
    if ((signalsA.terms[u] && signalsB.terms[w]) || (signalsA.terms[w] && signalsB.terms[u])) {
      const [termU, termW] = OPPOSING_TERMS[pair]!;
      return { hit: true, reason: `opposing terms "${termU}"/"${termW}" (subject overlap ${overlap})` };
    }
  }
  const quantitiesA = signalsA.quantities;
  const quantitiesB = signalsB.quantities;
  if (quantitiesA.size > 0 && quantitiesB.size > 0 && ![...quantitiesA].some((q) => quantitiesB.has(q))) {
    return {
      hit: true,
      reason: `conflicting quantities ${pythonSortedListRepr(quantitiesA)} vs ${pythonSortedListRepr(quantitiesB)}`,
    };
  }
  if (Math.abs(signalsA.negations - signalsB.negations) >= 1 && containment >= NEGATION_OVERLAP) {
    return { hit: true, reason: `polarity mismatch (subject overlap ${overlap})` };
  }
  return NO_CONFLICT;
}
