// The conflict test's view of one text (stale-retrieval.md §10.6–10.7), computed once per text: W(x), Q(x), N(x), terms.
import { createWordTable, type TextReading } from './conflict-words.js';

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

/**
 * Each antonym pair as one bit (pair p ↦ bit p, 27 pairs): a text's `left` mask has bit p when it contains the pair's
 * first term, `right` when it contains the second. The first pair (in order) that opposes a and b is then the lowest
 * bit of (leftA & rightB) | (rightA & leftB).
 */
const TERMS: readonly string[] = [...new Set(OPPOSING_TERMS.flat())];
const TERM_LEFT: readonly number[] = TERMS.map((term) => maskOf((u) => u === term, 0));
const TERM_RIGHT: readonly number[] = TERMS.map((term) => maskOf((w) => w === term, 1));
function maskOf(matches: (term: string) => boolean, side: 0 | 1): number {
  let mask = 0;
  OPPOSING_TERMS.forEach((pair, index) => {
    if (matches(pair[side])) mask |= 1 << index;
  });
  return mask;
}
if (OPPOSING_TERMS.length > 31) throw new RangeError('antonym pairs no longer fit one 32-bit mask');

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

/** §10.7 negation cues that are letters only (never crossing a run of `[a-z0-9$]`); the word table counts these. */
const LETTER_CUES = NEGATION_CUES.filter((cue) => /^[a-z]+$/.test(cue));

/** Non-overlapping occurrences of `cue` in `text`, left to right (what `text.split(cue).length - 1` counts). */
function countOf(text: string, cue: string): number {
  let count = 0;
  for (let at = text.indexOf(cue); at >= 0; at = text.indexOf(cue, at + cue.length)) count += 1;
  return count;
}

/** The word table: each raw word's stem (or none: a stop word), antonym-term bits and letter-cue count. */
const WORDS = createWordTable(
  {
    read(raw) {
      let left = 0;
      let right = 0;
      for (let index = 0; index < TERMS.length; index += 1) {
        if (raw.includes(TERMS[index]!)) {
          left |= TERM_LEFT[index]!;
          right |= TERM_RIGHT[index]!;
        }
      }
      let negations = 0;
      for (const cue of LETTER_CUES) negations += countOf(raw, cue);
      return { stem: STOP_WORDS.has(raw) ? null : stem(raw), left, right, negations };
    },
  },
  100_000,
);

/**
 * Bounds the word table between guard calls: past its limit it is emptied (ids issued after never equal earlier ones).
 * Called at the start of every guard run and `conflict`, never in the middle of one, so the features one run compares
 * always come from one table.
 */
export function trimConflictCaches(): void {
  WORDS.resetIfFull();
}

/**
 * The first word id of the current table: between two `trimConflictCaches` calls, every id of every reading is at
 * least this (ids of one table are consecutive from it), so `id - wordIdBase()` indexes an array by word.
 */
export function wordIdBase(): number {
  return WORDS.base;
}

/** One scan of a text: the fast path reads ASCII text as it is, anything else after `toLowerCase`. */
function readText(text: string): TextReading {
  return WORDS.read(text, true) ?? (WORDS.read(text.toLowerCase(), false) as TextReading);
}

/** §10.6 W(x): lowercase, `[a-z0-9$]+`, keep raw length > 2 and raw word not a stop word, then stem. */
export function contentWords(text: string): Set<string> {
  trimConflictCaches();
  return new Set(readText(text).ids.map((id) => WORDS.stemOf(id)));
}

/** §10.7.4.2 Q(x): every `\$?\d[\d,]*` in the lowercased text (years and trailing commas kept: `$1,000,000,`). */
export function quantities(text: string): Set<string> {
  return new Set(text.toLowerCase().match(QUANTITY) ?? []);
}

/** §10.7.4.3 N(x): summed non-overlapping substring counts of the cues (`cannot` also counts as `not`). */
export function negationCount(text: string): number {
  const lower = text.toLowerCase();
  return NEGATION_CUES.reduce((sum, cue) => sum + lower.split(cue).length - 1, 0);
}

/**
 * One text as the conflict test reads it, from one scan: W(x), the antonym terms it contains and N(x); Q(x) when a
 * pair first needs it. Not cached by text: a scan through the word table costs about what hashing the text for a
 * cache would, and a text new to the process would pay both.
 */
export interface ConflictFeatures {
  /** The text itself. */
  readonly text: string;
  /** W(x), as the sorted distinct ids of its stems (equal ids, equal stems: see `trimConflictCaches`). */
  readonly ids: readonly number[];
  /** Bit `id & 31` of each id: texts whose `words` share no bit share no content word. */
  readonly words: number;
  /** Bit p: the text contains the first term of antonym pair p. */
  readonly left: number;
  /** Bit p: the text contains the second term of antonym pair p. */
  readonly right: number;
  /** N(x). */
  readonly negations: number;
  /** False when the text has no decimal digit, so Q(x) is empty. */
  readonly digits: boolean;
  /** Q(x), filled on first use by `quantitiesOf`. */
  quantities: ReadonlySet<string> | null;
  /** Everything the conflict test reads, as one string, filled on first use by `signatureOf`. */
  signature: string | null;
}

/** The features of one text (one scan through the word table). */
export function conflictFeatures(text: string): ConflictFeatures {
  const reading: TextReading = readText(text);
  // A non-ASCII text was read lowercased; its features name the text itself.
  reading.text = text;
  return reading;
}

/** The two terms of the antonym pair whose bit is `bit` (one bit set), for the reason. */
export function opposingPair(bit: number): readonly [string, string] {
  return OPPOSING_TERMS[31 - Math.clz32(bit)]!;
}

const NO_QUANTITIES: ReadonlySet<string> = new Set();

/** Q(x) of the text, computed on first call and kept on `features`. */
export function quantitiesOf(features: ConflictFeatures): ReadonlySet<string> {
  features.quantities ??= features.digits ? quantities(features.text) : NO_QUANTITIES;
  return features.quantities;
}

/** Everything the conflict test reads of a text, as one string: equal signatures, equal outcomes against any text. */
export function signatureOf(features: ConflictFeatures): string {
  if (features.signature !== null) return features.signature;
  const { ids, left, right, negations } = features;
  const sortedQuantities = [...quantitiesOf(features)].sort().join(' ');
  features.signature = `${ids.join(' ')}\n${left} ${right}\n${sortedQuantities}\n${negations}`;
  return features.signature;
}
