// The guard's word table (stale-retrieval.md §10.6–10.7): each raw word of a text is looked up, not sliced, and
// carries its stem id and its share of the antonym terms and negation cues, so one scan of a text reads all of them.

/** What one maximal run of `[a-z0-9$]` contributes to the conflict test. */
interface RunInfo {
  /** The id of its stem (§10.6), or −1 when it is not a content word (length ≤ 2 or a stop word). */
  id: number;
  /** Bit p: the run contains the first term of antonym pair p (terms are letters, so never cross a run). */
  left: number;
  /** Bit p: the run contains the second term of antonym pair p. */
  right: number;
  /** Non-overlapping occurrences of the letter-only negation cues in it, summed over the cues. */
  negations: number;
}

/** How a table is built: the per-word reading, computed once per distinct raw word. */
export interface WordReader {
  /** The reading of one raw run (lowercase). */
  read(raw: string): Omit<RunInfo, 'id'> & { stem: string | null };
}

/** One text's reading: the sorted distinct stem ids, the antonym masks, N(x), and whether it has an ASCII digit. */
export interface TextReading {
  ids: number[];
  left: number;
  right: number;
  negations: number;
  /** False only when the text has no decimal digit at all (then Q(x) is empty). */
  digits: boolean;
}

/** Runs no longer than this are not content words and contain no term or letter cue (the shortest is 3 letters). */
const SHORT = 2;

/**
 * A table of raw words (open addressing on a hash computed while scanning; a known word costs no allocation).
 * Stem ids are never reused across `reset`, so two readings share a stem exactly when they share its id.
 */
export function createWordTable(reader: WordReader, limit: number) {
  let slots = new Int32Array(1 << 12).fill(-1);
  let words: string[] = [];
  let hashes: number[] = [];
  let infos: RunInfo[] = [];
  let stems = new Map<string, number>();
  let spelled: string[] = [];
  let idBase = 0;

  function grow(): void {
    slots = new Int32Array(slots.length * 2).fill(-1);
    const mask = slots.length - 1;
    for (let entry = 0; entry < words.length; entry += 1) {
      let slot = hashes[entry]! & mask;
      while (slots[slot] !== -1) slot = (slot + 1) & mask;
      slots[slot] = entry;
    }
  }

  /** The entry of the run `text[start, end)` (lowercased by `fold`) with hash `hash`; learns it on first sight. */
  function entryOf(text: string, start: number, end: number, sum: number, fold: boolean): RunInfo {
    const hash = mixed(sum);
    const mask = slots.length - 1;
    const length = end - start;
    let slot = hash & mask;
    for (let entry = slots[slot]!; entry !== -1; entry = slots[slot]!) {
      const word = words[entry]!;
      if (hashes[entry] === hash && word.length === length) {
        let at = 0;
        while (at < length && word.charCodeAt(at) === unitAt(text, start + at, fold)) at += 1;
        if (at === length) return infos[entry]!;
      }
      slot = (slot + 1) & mask;
    }
    const raw = fold ? text.slice(start, end).toLowerCase() : text.slice(start, end);
    const { stem, left, right, negations } = reader.read(raw);
    let id = -1;
    if (stem !== null) {
      id = stems.get(stem) ?? -1;
      if (id === -1) {
        id = idBase + spelled.length;
        spelled.push(stem);
        stems.set(stem, id);
      }
    }
    const info: RunInfo = { id, left, right, negations };
    slots[slot] = words.length;
    words.push(raw);
    hashes.push(hash);
    infos.push(info);
    if (words.length * 2 > slots.length) grow();
    return info;
  }

  return {
    /** Reads a text in one scan, or null when it has a non-ASCII character and `fold` is set (lowercase it first). */
    read(text: string, fold: boolean): TextReading | null {
      const ids: number[] = [];
      let left = 0;
      let right = 0;
      let negations = 0;
      let digits = !fold;
      let start = -1;
      let hash = 0;
      const length = text.length;
      for (let at = 0; at <= length; at += 1) {
        let unit = at < length ? text.charCodeAt(at) : -1;
        if (fold) {
          if (unit >= 128) return null;
          if (unit >= 65 && unit <= 90) unit += 32;
        }
        if ((unit >= 97 && unit <= 122) || (unit >= 48 && unit <= 57) || unit === 36) {
          if (start < 0) {
            start = at;
            hash = 0;
          }
          if (unit <= 57 && unit >= 48) digits = true;
          hash = (Math.imul(hash, 31) + unit) | 0;
          continue;
        }
        if (start < 0) continue;
        // The cues that end a run and go on past it: `no ` and `must not` / `may not` (one space, then `not`).
        if (unit === 32 && at - start >= 2 && endsWith(text, at, 'no', fold)) negations += 1;
        if (unit === 32 && startsWith(text, at + 1, 'not', fold)) {
          if (at - start >= 4 && endsWith(text, at, 'must', fold)) negations += 1;
          if (at - start >= 3 && endsWith(text, at, 'may', fold)) negations += 1;
        }
        if (at - start > SHORT) {
          const info = entryOf(text, start, at, hash, fold);
          left |= info.left;
          right |= info.right;
          negations += info.negations;
          if (info.id >= 0) insertSorted(ids, info.id);
        }
        start = -1;
      }
      return { ids, left, right, negations, digits };
    },
    /** The stem spelled by an id of the current table. */
    stemOf(id: number): string {
      return spelled[id - idBase]!;
    },
    /** Distinct raw words known. */
    get size(): number {
      return words.length;
    },
    /** Forgets every word once past the limit; ids issued later never equal earlier ones. Returns whether it did. */
    resetIfFull(): boolean {
      if (words.length < limit) return false;
      idBase += spelled.length;
      slots = new Int32Array(1 << 12).fill(-1);
      words = [];
      hashes = [];
      infos = [];
      stems = new Map();
      spelled = [];
      return true;
    },
  };
}

/** A running hash's bits spread (murmur3's finaliser), so that slots of similar words do not cluster. */
function mixed(sum: number): number {
  let hash = sum ^ (sum >>> 16);
  hash = Math.imul(hash, 0x85ebca6b);
  hash ^= hash >>> 13;
  hash = Math.imul(hash, 0xc2b2ae35);
  return hash ^ (hash >>> 16);
}

/** The code unit at `at`, with A–Z folded to a–z when `fold` (the text is then ASCII). */
function unitAt(text: string, at: number, fold: boolean): number {
  const unit = text.charCodeAt(at);
  return fold && unit >= 65 && unit <= 90 ? unit + 32 : unit;
}

/** Whether `text[end − word.length, end)` spells `word` (lowercase ASCII). */
function endsWith(text: string, end: number, word: string, fold: boolean): boolean {
  for (let k = 1; k <= word.length; k += 1)
    if (unitAt(text, end - k, fold) !== word.charCodeAt(word.length - k)) return false;
  return true;
}

/** Whether `text` spells `word` (lowercase ASCII) from `at`. */
function startsWith(text: string, at: number, word: string, fold: boolean): boolean {
  if (at + word.length > text.length) return false;
  for (let k = 0; k < word.length; k += 1) if (unitAt(text, at + k, fold) !== word.charCodeAt(k)) return false;
  return true;
}

/** Inserts `id` into the ascending array `ids` unless present. */
function insertSorted(ids: number[], id: number): void {
  let place = ids.length;
  while (place > 0 && ids[place - 1]! > id) place -= 1;
  if (place > 0 && ids[place - 1] === id) return;
  ids.splice(place, 0, id);
}
