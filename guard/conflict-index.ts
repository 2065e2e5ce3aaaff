// The kept records of stage 2 (stale-retrieval.md §10.8), indexed by content word so that a candidate is tested only
// against kept records it could conflict with, in the same order as a scan of every kept record.
import { conflictBetween, type ConflictOutcome, type ConflictSettings } from './conflict.js';
import type { ConflictFeatures } from './conflict-features.js';

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
 * candidate against every kept record in that order and stopping at the first hit returns. With α > 0 a pair that
 * shares no content word has containment 0 < α and cannot conflict, so only kept records sharing a word (found
 * through a word → positions index) are tested, in ascending position. With α ≤ 0 (or NaN) every kept record is.
 */
export function createConflictIndex<T>(settings: ConflictSettings) {
  const keepers: { keeper: T; features: ConflictFeatures }[] = [];
  const postings = new Map<string, number[]>();
  const everyPair = !(settings.subjectOverlap > 0);

  /** Positions that share a word with the candidate, ascending, without repeats (a merge of the posting lists). */
  function* sharingPositions(features: ConflictFeatures): Generator<number> {
    const lists: number[][] = [];
    for (const word of features.words) {
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
    /** Adds a kept record at the end of the order. */
    add(keeper: T, features: ConflictFeatures): void {
      const position = keepers.length;
      keepers.push({ keeper, features });
      for (const word of features.words) {
        const list = postings.get(word);
        if (list) list.push(position);
        else postings.set(word, [position]);
      }
    },
    /** The first kept record (in kept order) that conflicts with the candidate, or null. */
    firstConflict(candidate: ConflictFeatures): FirstConflict<T> | null {
      if (candidate.words.size === 0) return null;
      // A short list is cheaper to scan whole; a pair without a shared word fails its containment test either way.
      const positions = everyPair || keepers.length <= SCAN_ALL_BELOW ? keepers.keys() : sharingPositions(candidate);
      for (const position of positions) {
        const { keeper, features } = keepers[position]!;
        const outcome = conflictBetween(candidate, features, settings);
        if (outcome.hit) return { keeper, outcome };
      }
      return null;
    },
  };
}
