// The kept records of stage 2 (stale-retrieval.md §10.8), indexed by content word so that a candidate is tested only
// against kept records it could conflict with, in the same order as a scan of every kept record.
import { conflictBetween, type ConflictOutcome, type ConflictSettings } from './conflict.js';
import { signatureOf, type ConflictFeatures } from './conflict-features.js';

/** Up to this many kept records, `firstConflict` tests them all rather than merging posting lists. */
const SCAN_ALL_BELOW = 32;

/** The first kept record that conflicts with a candidate, and the outcome of that test. */
export interface FirstConflict<T> {
  /** The kept record. */
  keeper: T;
  /** The test's outcome (always a hit). */
  outcome: ConflictOutcome;
}

/**
 * Kept records in the order they were kept, with their features. `firstConflict` returns exactly what testing the
 * candidate against every kept record in that order and stopping at the first hit returns, with two shortcuts that
 * cannot change it: (1) kept records whose conflict-relevant features are equal (same W(x), antonym terms, Q(x) and
 * N(x)) give the same outcome against any candidate, so only the first of each such class is tested; (2) with α > 0
 * a pair that shares no content word has containment 0 < α and cannot conflict, so only classes sharing a word
 * (found through a word → classes index) are tested, in ascending order. With α ≤ 0 (or NaN) every class is.
 */
export function createConflictIndex<T>(settings: ConflictSettings) {
  /** One class per distinct signature, in the order of its first kept record (which represents it). */
  const classes: { keeper: T; features: ConflictFeatures }[] = [];
  /** Signatures of the classes, kept once there are more than `SCAN_ALL_BELOW` (below, repeats are simply scanned). */
  let bySignature: Set<string> | null = null;
  const postings = new Map<number, number[]>();
  const everyPair = !(settings.subjectOverlap > 0);

  let indexed = 0;
  /** Adds the classes not yet in the word index. */
  function indexUpTo(count: number): void {
    for (; indexed < count; indexed += 1) {
      for (const word of classes[indexed]!.features.ids) {
        const list = postings.get(word);
        if (list) list.push(indexed);
        else postings.set(word, [indexed]);
      }
    }
  }

  /** Classes that share a word with the candidate, ascending, without repeats (a merge of the posting lists). */
  function* sharingClasses(features: ConflictFeatures): Generator<number> {
    const lists: number[][] = [];
    for (const word of features.ids) {
      const list = postings.get(word);
      if (list) lists.push(list);
    }
    if (lists.length === 0) return;
    const heads = new Array<number>(lists.length).fill(0);
    let last = -1;
    for (;;) {
      let best = -1;
      let bestList = -1;
      for (let list = 0; list < lists.length; list += 1) {
        const at = heads[list]!;
        const positions = lists[list]!;
        if (at < positions.length && (best < 0 || positions[at]! < best)) {
          best = positions[at]!;
          bestList = list;
        }
      }
      if (bestList < 0) return;
      heads[bestList]! += 1;
      if (best !== last) yield best;
      last = best;
    }
  }

  return {
    /** Adds a kept record at the end of the order (a new class only if no earlier kept record has its signature). */
    add(keeper: T, features: ConflictFeatures): void {
      if (classes.length < SCAN_ALL_BELOW) {
        // A short list is scanned whole: a repeated signature costs one more test, not a signature per record.
        classes.push({ keeper, features });
        return;
      }
      if (!bySignature) bySignature = new Set(classes.map((known) => signatureOf(known.features)));
      const signature = signatureOf(features);
      if (bySignature.has(signature)) return;
      bySignature.add(signature);
      classes.push({ keeper, features });
      indexUpTo(classes.length);
    },
    /** The first kept record (in kept order) that conflicts with the candidate, or null. */
    firstConflict(candidate: ConflictFeatures): FirstConflict<T> | null {
      if (candidate.ids.length === 0) return null;
      // A short list is cheaper to scan whole; a pair without a shared word fails its containment test either way.
      const ids = everyPair || classes.length <= SCAN_ALL_BELOW ? classes.keys() : sharingClasses(candidate);
      for (const id of ids) {
        const { keeper, features } = classes[id]!;
        const outcome = conflictBetween(candidate, features, settings);
        if (outcome.hit) return { keeper, outcome };
      }
      return null;
    },
  };
}
