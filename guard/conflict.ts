// The guard's conflict test (stale-retrieval.md §10.6–10.7): containment of stemmed words plus an opposition signal.
import { formatFixed, pythonSortedListRepr } from '../pipeline/python-compat/index.js';

/** §10.6 stop set, tested on the raw (unstemmed) word. */
const STOP_WORDS: ReadonlySet<string> = new Set(
  (
    'this that with from they have been were which their there when what shall will into over under than then ' +
    'only also must may can are is the and for any all per policy standard procedure runbook states state ' +
    'approved current issued requires require required governs'
  ).split(' '),
);

/** §10.7 antonym pairs, in the order they are tried; matched as raw substrings of the lowercased texts. */
const OPPOSING_TERMS: readonly (readonly [string, string])[] = [
  ['never', 'may'],
  ['never', 'permitted'],
  ['never', 'allowed'],
  ['never', 'can'],
  ['must', 'never'],
  ['prohibited', 'permitted'],
  ['prohibited', 'allowed'],
  ['denied', 'granted'],
  ['deny', 'grant'],
  ['denied', 'allowed'],
  ['block', 'monitor'],
  ['blocked', 'monitored'],
  ['blocked', 'allowed'],
  ['delete', 'retain'],
  ['deleted', 'retained'],
  ['delete', 'keep'],
  ['immediately', 'first'],
  ['automatically', 'approval'],
  ['waived', 'required'],
  ['waiver', 'required'],
  ['skip', 'required'],
  ['single', 'dual'],
  ['one', 'two'],
  ['without', 'requires'],
  ['disclose', 'refuse'],
  ['export', 'internal'],
  ['rollback', 'investigate'],
];

/** §10.7 negation cues, counted as non-overlapping substrings (`no ` keeps its trailing space). */
const NEGATION_CUES: readonly string[] = [
  'never',
  'not',
  'no ',
  'without',
  'prohibit',
  'forbid',
  'must not',
  'may not',
  'cannot',
];

/** The negation branch's threshold. Hard-coded in [C]; it does not follow `subjectOverlap` (§10.11.4). */
const NEGATION_OVERLAP = 0.45;

const SUFFIXES = ['ies', 'ing', 'ed', 'es', 's'] as const;

/** §10.6.3: strips the first matching suffix of a word longer than 4 (`ies` → `y`); at most one. */
export function stem(word: string): string {
  for (const suffix of SUFFIXES) {
    if (word.length > 4 && word.endsWith(suffix)) return word.slice(0, -suffix.length) + (suffix === 'ies' ? 'y' : '');
  }
  return word;
}

/** §10.6 W(x): lowercase, `[a-z0-9$]+`, keep raw length > 2 and raw word not a stop word, then stem. */
export function contentWords(text: string): Set<string> {
  const words = text.toLowerCase().match(/[a-z0-9$]+/g) ?? [];
  return new Set(words.filter((word) => word.length > 2 && !STOP_WORDS.has(word)).map(stem));
}

/**
 * §10.7.4.2 Q(x): every `\$?\d[\d,]*` in the lowercased text. `\d` is any Unicode decimal digit, as in
 * Python's `re`; years and trailing commas are kept (`$1,000,000,`).
 */
export function quantities(text: string): Set<string> {
  return new Set(text.toLowerCase().match(/\$?\p{Nd}[\p{Nd},]*/gu) ?? []);
}

/** §10.7.4.3 N(x): summed non-overlapping substring counts of the cues (`cannot` also counts as `not`). */
export function negationCount(text: string): number {
  const lower = text.toLowerCase();
  return NEGATION_CUES.reduce((sum, cue) => sum + lower.split(cue).length - 1, 0);
}

/** What the conflict test decided and, on a hit, the reason in the reference's exact wording. */
export interface ConflictOutcome {
  /** Whether the two texts conflict. */
  hit: boolean;
  /** The reason (`''` when there is no conflict). */
  reason: string;
}

const NO_CONFLICT: ConflictOutcome = Object.freeze({ hit: false, reason: '' });

/**
 * §10.7 conflict(a, b): same subject (containment ≥ α), then the first opposition signal that fires:
 * antonym pair, disjoint quantities, or a negation-count difference (with the hard-coded 0.45).
 *
 * @example conflict('Deployment approval requires only one reviewer.', 'Deployment approval requires two independent reviewers.', { subjectOverlap: 0.45, requireOpposition: true })
 * // → { hit: true, reason: 'opposing terms "one"/"two" (subject overlap 0.75)' }
 */
export function conflict(
  a: string,
  b: string,
  config: { subjectOverlap: number; requireOpposition: boolean },
): ConflictOutcome {
  const wordsA = contentWords(a);
  const wordsB = contentWords(b);
  if (wordsA.size === 0 || wordsB.size === 0) return NO_CONFLICT;
  let shared = 0;
  for (const word of wordsA) if (wordsB.has(word)) shared += 1;
  const containment = shared / Math.min(wordsA.size, wordsB.size);
  if (containment < config.subjectOverlap) return NO_CONFLICT;
  const overlap = formatFixed(containment, 2);
  if (!config.requireOpposition) return { hit: true, reason: `same subject (overlap ${overlap})` };
  const lowerA = a.toLowerCase();
  const lowerB = b.toLowerCase();
  for (const [u, w] of OPPOSING_TERMS) {
    if ((lowerA.includes(u) && lowerB.includes(w)) || (lowerA.includes(w) && lowerB.includes(u))) {
      return { hit: true, reason: `opposing terms "${u}"/"${w}" (subject overlap ${overlap})` };
    }
  }
  const quantitiesA = quantities(a);
  const quantitiesB = quantities(b);
  if (quantitiesA.size > 0 && quantitiesB.size > 0 && ![...quantitiesA].some((q) => quantitiesB.has(q))) {
    return {
      hit: true,
      reason: `conflicting quantities ${pythonSortedListRepr(quantitiesA)} vs ${pythonSortedListRepr(quantitiesB)}`,
    };
  }
  if (Math.abs(negationCount(a) - negationCount(b)) >= 1 && containment >= NEGATION_OVERLAP) {
    return { hit: true, reason: `polarity mismatch (subject overlap ${overlap})` };
  }
  return NO_CONFLICT;
}
