// The conflict test's view of one text (stale-retrieval.md §10.6–10.7), computed once per text: W(x), Q(x), N(x), terms.

/** §10.6 stop set, tested on the raw (unstemmed) word. */
const STOP_WORDS: ReadonlySet<string> = new Set(
  (
    'this that with from they have been were which their there when what shall will into over under than then ' +
    'only also must may can are is the and for any all per policy standard procedure runbook states state ' +
    'approved current issued requires require required governs'
  ).split(' '),
);

/** §10.7 antonym pairs, in the order they are tried; matched as raw substrings of the lowercased texts. */
export const OPPOSING_TERMS: readonly (readonly [string, string])[] = [
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

/** Every distinct term of `OPPOSING_TERMS`, and each pair as two indexes into it. */
const TERMS: readonly string[] = [...new Set(OPPOSING_TERMS.flat())];
export const TERM_PAIRS: readonly (readonly [number, number])[] = OPPOSING_TERMS.map(
  ([u, w]) => [TERMS.indexOf(u), TERMS.indexOf(w)] as const,
);

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

const SUFFIXES = ['ies', 'ing', 'ed', 'es', 's'] as const;
/** §10.7.4.2 quantities: `\d` is any Unicode decimal digit, as in Python's `re`; compiled once. */
const QUANTITY = /\$?\p{Nd}[\p{Nd},]*/gu;

/** §10.6.3: strips the first matching suffix of a word longer than 4 (`ies` → `y`); at most one. */
export function stem(word: string): string {
  for (const suffix of SUFFIXES) {
    if (word.length > 4 && word.endsWith(suffix)) return word.slice(0, -suffix.length) + (suffix === 'ies' ? 'y' : '');
  }
  return word;
}

/** Whether a UTF-16 code unit is one of `[a-z0-9$]`. */
const isWordUnit = (unit: number): boolean => (unit >= 97 && unit <= 122) || (unit >= 48 && unit <= 57) || unit === 36;

/** W(x) of an already lowercased text: the runs of `[a-z0-9$]` (what `WORD` matches), scanned without a regex. */
function wordsOfLower(lower: string): Set<string> {
  const words = new Set<string>();
  let start = -1;
  for (let at = 0; at <= lower.length; at += 1) {
    if (at < lower.length && isWordUnit(lower.charCodeAt(at))) {
      if (start < 0) start = at;
      continue;
    }
    if (start >= 0 && at - start > 2) {
      const word = lower.slice(start, at);
      if (!STOP_WORDS.has(word)) words.add(stem(word));
    }
    start = -1;
  }
  return words;
}

/** §10.6 W(x): lowercase, `[a-z0-9$]+`, keep raw length > 2 and raw word not a stop word, then stem. */
export function contentWords(text: string): Set<string> {
  return wordsOfLower(text.toLowerCase());
}

/** §10.7.4.2 Q(x): every `\$?\d[\d,]*` in the lowercased text (years and trailing commas kept: `$1,000,000,`). */
export function quantities(text: string): Set<string> {
  return new Set(text.toLowerCase().match(QUANTITY) ?? []);
}

/** Non-overlapping occurrences of `cue` in `text`, left to right (what `text.split(cue).length - 1` counts). */
function countOf(text: string, cue: string): number {
  let count = 0;
  for (let at = text.indexOf(cue); at >= 0; at = text.indexOf(cue, at + cue.length)) count += 1;
  return count;
}

/** §10.7.4.3 N(x): summed non-overlapping substring counts of the cues (`cannot` also counts as `not`). */
export function negationCount(text: string): number {
  const lower = text.toLowerCase();
  return NEGATION_CUES.reduce((sum, cue) => sum + lower.split(cue).length - 1, 0);
}

/**
 * One text as the conflict test reads it. W(x) is computed at once; the opposition signals (terms, Q(x), N(x)) only
 * when a pair first passes the same-subject test, then kept, so each text is tokenised at most once (and not again
 * while it stays in the cache, across retrievals).
 */
export interface ConflictFeatures {
  /** The text itself. */
  readonly text: string;
  /** The lowercased text. */
  readonly lower: string;
  /** W(x), the stemmed content words. */
  readonly words: ReadonlySet<string>;
  /** Opposition signals, filled on first use by `oppositionOf`. */
  opposition: Opposition | null;
  /** Everything the conflict test reads, as one string, filled on first use by `signatureOf`. */
  signature: string | null;
}

/** The opposition signals of one text. */
interface Opposition {
  /** 1 where the term of the same index occurs in the lowercased text. */
  terms: Uint8Array;
  /** Q(x). */
  quantities: ReadonlySet<string>;
  /** N(x). */
  negations: number;
}

/** Features by text: a pure function of the text, so the records a store returns again are not tokenised again. */
const FEATURES = new Map<string, ConflictFeatures>();
/** The cache is emptied when it reaches this many texts (about 1 KB each). */
const FEATURES_MAX = 20_000;

/** The features of one text (W(x) now, the rest when needed); the same object for the same text while cached. */
export function conflictFeatures(text: string): ConflictFeatures {
  const known = FEATURES.get(text);
  if (known) return known;
  const lower = text.toLowerCase();
  const features: ConflictFeatures = { text, lower, words: wordsOfLower(lower), opposition: null, signature: null };
  if (FEATURES.size >= FEATURES_MAX) FEATURES.clear();
  FEATURES.set(text, features);
  return features;
}

/** The text's opposition signals, computed on first call and kept on `features`. */
export function oppositionOf(features: ConflictFeatures): Opposition {
  if (features.opposition) return features.opposition;
  const { lower } = features;
  const terms = new Uint8Array(TERMS.length);
  for (let index = 0; index < TERMS.length; index += 1) if (lower.includes(TERMS[index]!)) terms[index] = 1;
  let negations = 0;
  for (const cue of NEGATION_CUES) negations += countOf(lower, cue);
  features.opposition = { terms, quantities: new Set(lower.match(QUANTITY) ?? []), negations };
  return features.opposition;
}

/** Everything the conflict test reads of a text, as one string: equal signatures, equal outcomes against any text. */
export function signatureOf(features: ConflictFeatures): string {
  if (features.signature !== null) return features.signature;
  const { terms, quantities, negations } = oppositionOf(features);
  const parts = [[...features.words].sort().join(' '), terms.join(''), [...quantities].sort().join(' '), negations];
  features.signature = parts.join('\n');
  return features.signature;
}
