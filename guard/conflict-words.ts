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

/**
 * One text's reading: the text read, the sorted distinct stem ids, a one-word summary of them, the antonym masks,
 * N(x), whether it has a digit, and two fields its reader fills later (null here).
 */
export interface TextReading {
  text: string;
  ids: number[];
  /** Bit `id & 31` for each id: two readings whose `words` share no bit share no id. */
  words: number;
  left: number;
  right: number;
  negations: number;
  /** False only when the text has no decimal digit at all (then Q(x) is empty). */
  digits: boolean;
  quantities: null;
  signature: null;
}

/** `BYTES` of a byte ≥ 128 (part of a non-ASCII character: never part of a run). */
const NON_ASCII = 255;
/** Per UTF-8 byte: its lowercase form when it belongs to a run (`[a-z0-9$]` after folding A–Z), else 0. */
const BYTES = new Uint8Array(256).fill(NON_ASCII);
for (let unit = 0; unit < 128; unit += 1) {
  const lower = unit >= 65 && unit <= 90 ? unit + 32 : unit;
  BYTES[unit] = (lower >= 97 && lower <= 122) || (lower >= 48 && lower <= 57) || lower === 36 ? lower : 0;
}
const ENCODER = new TextEncoder();

/** Letters of a word packed into `heads` and `tails` (four each: a letter is < 128, so the top byte stays positive). */
const PACKED = 8;

/** Runs no longer than this are not content words and contain no term or letter cue (the shortest is 3 letters). */
const SHORT = 2;

/** A typed array twice as long holding the same values. */
function doubled(values: Int32Array<ArrayBuffer>): Int32Array<ArrayBuffer> {
  const larger = new Int32Array(values.length * 2);
  larger.set(values);
  return larger;
}

/**
 * A table of raw words (open addressing on a hash computed while scanning; a known word costs no allocation). Every
 * entry lives in typed arrays: its hash, where its letters start in `letters`, its length and its reading. Stem ids
 * are never reused across `resetIfFull`, so two readings share a stem exactly when they share its id.
 */
class WordTable {
  private slots = new Int32Array(1 << 12).fill(-1);
  private count = 0;
  private hashes = new Int32Array(1 << 11);
  private starts = new Int32Array(1 << 11);
  private lengths = new Int32Array(1 << 11);
  private ids = new Int32Array(1 << 11);
  private lefts = new Int32Array(1 << 11);
  private rights = new Int32Array(1 << 11);
  private cues = new Int32Array(1 << 11);
  /** An entry's first four letters, packed (the first in the low byte), and its next four. */
  private heads = new Int32Array(1 << 11);
  private tails = new Int32Array(1 << 11);
  /** The letters of every entry, back to back. */
  private letters = new Uint8Array(1 << 14);
  private used = 0;
  private stems = new Map<string, number>();
  private spelled: string[] = [];
  private idBase = 0;
  /** The current text's run units (lowercase), by position; grown to the longest text read. */
  private units = new Uint8Array(1 << 10);
  /** The stem ids one scan found, before sorting. */
  private found = new Int32Array(64);

  constructor(
    private readonly reader: WordReader,
    private readonly limit: number,
  ) {}

  /** Doubles the slots and re-inserts every entry. */
  private grow(): void {
    this.slots = new Int32Array(this.slots.length * 2).fill(-1);
    const mask = this.slots.length - 1;
    for (let entry = 0; entry < this.count; entry += 1) {
      let slot = this.hashes[entry]! & mask;
      while (this.slots[slot] !== -1) slot = (slot + 1) & mask;
      this.slots[slot] = entry;
    }
  }

  /**
   * The entry of the run `units[start, end)` whose running hash is `sum` and whose first eight letters pack into
   * `head` and `tail` (see `heads`); learns it on first sight. Letters past the eighth are compared one by one.
   */
  private entryOf(start: number, end: number, sum: number, head: number, tail: number): number {
    const hash = mixed(sum);
    const units = this.units;
    const letters = this.letters;
    const mask = this.slots.length - 1;
    const length = end - start;
    let slot = hash & mask;
    for (let entry = this.slots[slot]!; entry !== -1; entry = this.slots[slot]!) {
      if (
        this.hashes[entry] === hash &&
        this.lengths[entry] === length &&
        this.heads[entry] === head &&
        this.tails[entry] === tail
      ) {
        const from = this.starts[entry]!;
        let at = PACKED;
        while (at < length && letters[from + at] === units[start + at]) at += 1;
        if (at >= length) return entry;
      }
      slot = (slot + 1) & mask;
    }
    return this.learn(start, length, hash, slot, head, tail);
  }

  /** Adds the run `units[start, start + length)` as a new entry in free slot `slot`. */
  private learn(start: number, length: number, hash: number, slot: number, head: number, tail: number): number {
    const raw = String.fromCharCode(...this.units.subarray(start, start + length));
    const { stem, left, right, negations } = this.reader.read(raw);
    let id = -1;
    if (stem !== null) {
      id = this.stems.get(stem) ?? -1;
      if (id === -1) {
        id = this.idBase + this.spelled.length;
        this.spelled.push(stem);
        this.stems.set(stem, id);
      }
    }
    const entry = this.count;
    if (entry === this.hashes.length) {
      this.hashes = doubled(this.hashes);
      this.starts = doubled(this.starts);
      this.lengths = doubled(this.lengths);
      this.ids = doubled(this.ids);
      this.lefts = doubled(this.lefts);
      this.rights = doubled(this.rights);
      this.cues = doubled(this.cues);
      this.heads = doubled(this.heads);
      this.tails = doubled(this.tails);
    }
    while (this.used + length > this.letters.length) {
      const larger = new Uint8Array(this.letters.length * 2);
      larger.set(this.letters);
      this.letters = larger;
    }
    this.letters.set(this.units.subarray(start, start + length), this.used);
    this.hashes[entry] = hash;
    this.starts[entry] = this.used;
    this.lengths[entry] = length;
    this.ids[entry] = id;
    this.lefts[entry] = left;
    this.rights[entry] = right;
    this.cues[entry] = negations;
    this.heads[entry] = head;
    this.tails[entry] = tail;
    this.used += length;
    this.count += 1;
    this.slots[slot] = entry;
    if (this.count * 2 > this.slots.length) this.grow();
    return entry;
  }

  /**
   * Reads a text in one scan, or null when it has a non-ASCII character and `fold` is set (lowercase it first). The
   * text is first encoded to UTF-8 in one native call: an ASCII text is its own bytes, and every byte of a non-ASCII
   * character is ≥ 128, so it separates runs exactly as its UTF-16 code units did (a lone surrogate becomes U+FFFD,
   * also ≥ 128). Each run's bytes are folded to lowercase in place, where `entryOf` compares them.
   */
  read(text: string, fold: boolean): TextReading | null {
    const length = text.length;
    if (length * 3 > this.units.length) this.units = new Uint8Array(Math.max(length * 3, this.units.length * 2));
    const units = this.units;
    const size = ENCODER.encodeInto(text, units).written;
    // UTF-8 of a UTF-16 string is as long as the string exactly when every code unit is ASCII.
    if (fold && size !== length) return null;
    let found = 0;
    let words = 0;
    let left = 0;
    let right = 0;
    let negations = 0;
    let digits = !fold;
    let at = 0;
    for (;;) {
      // Up to the next run: `unit` is 0 on a separator, NON_ASCII on a byte ≥ 128 (a separator too).
      let unit = 0;
      while (at < size) {
        unit = BYTES[units[at]!]!;
        if (unit !== 0 && unit !== NON_ASCII) break;
        at += 1;
      }
      if (at === size) break;
      const start = at;
      let hash = 0;
      let head = 0;
      let tail = 0;
      for (;;) {
        if (unit <= 57) digits ||= unit >= 48;
        hash = (Math.imul(hash, 31) + unit) | 0;
        const offset = at - start;
        if (offset < 4) head |= unit << (offset << 3);
        else if (offset < PACKED) tail |= unit << ((offset - 4) << 3);
        units[at] = unit;
        at += 1;
        if (at === size) break;
        unit = BYTES[units[at]!]!;
        if (unit === 0 || unit === NON_ASCII) break;
      }
      // The cues that end a run and go on past it: `no ` and `must not` / `may not` (one space, then `not`). The
      // run's own bytes are folded already; the three after the space are folded through BYTES (`n` is 110 only there).
      if (at < size && units[at] === 32) {
        const last = units[at - 1]!;
        if (last === 111 && at - start >= 2 && units[at - 2] === 110) negations += 1;
        else if (
          (last === 116 || last === 121) &&
          at + 3 < size &&
          BYTES[units[at + 1]!] === 110 &&
          BYTES[units[at + 2]!] === 111 &&
          BYTES[units[at + 3]!] === 116
        ) {
          if (
            last === 116 &&
            at - start >= 4 &&
            units[at - 4] === 109 &&
            units[at - 3] === 117 &&
            units[at - 2] === 115
          )
            negations += 1;
          if (last === 121 && at - start >= 3 && units[at - 3] === 109 && units[at - 2] === 97) negations += 1;
        }
      }
      if (at - start > SHORT) {
        const entry = this.entryOf(start, at, hash, head, tail);
        left |= this.lefts[entry]!;
        right |= this.rights[entry]!;
        negations += this.cues[entry]!;
        const id = this.ids[entry]!;
        if (id >= 0) {
          if (found === this.found.length) this.found = doubled(this.found);
          this.found[found] = id;
          found += 1;
          words |= 1 << (id & 31);
        }
      }
    }
    const ids = sortedDistinct(this.found, found);
    return { text, ids, words, left, right, negations, digits, quantities: null, signature: null };
  }

  /** The first id of the current table: its ids are `base`, `base + 1`, … (one per stem, in the order learnt). */
  get base(): number {
    return this.idBase;
  }

  /** The stem spelled by an id of the current table. */
  stemOf(id: number): string {
    return this.spelled[id - this.idBase]!;
  }

  /** Distinct raw words known. */
  get size(): number {
    return this.count;
  }

  /** Forgets every word once past the limit; ids issued later never equal earlier ones. Returns whether it did. */
  resetIfFull(): boolean {
    if (this.count < this.limit) return false;
    this.idBase += this.spelled.length;
    this.slots = new Int32Array(1 << 12).fill(-1);
    this.count = 0;
    this.used = 0;
    this.stems = new Map();
    this.spelled = [];
    return true;
  }
}

/**
 * A table of raw words read through `reader`, emptied by `resetIfFull` once it knows `limit` words.
 *
 * @example createWordTable(reader, 100_000).read('Logins are blocked.', true) // { ids: [...], left, right, ... }
 */
export function createWordTable(reader: WordReader, limit: number): WordTable {
  return new WordTable(reader, limit);
}

/** A running hash's bits spread (murmur3's finaliser), so that slots of similar words do not cluster. */
function mixed(sum: number): number {
  let hash = sum ^ (sum >>> 16);
  hash = Math.imul(hash, 0x85ebca6b);
  hash ^= hash >>> 13;
  hash = Math.imul(hash, 0xc2b2ae35);
  return hash ^ (hash >>> 16);
}

/** `ids[0, count)` sorted ascending without repeats (an insertion sort in place: a text has a few dozen words). */
function sortedDistinct(ids: Int32Array, count: number): number[] {
  for (let at = 1; at < count; at += 1) {
    const id = ids[at]!;
    let place = at;
    while (place > 0 && ids[place - 1]! > id) {
      ids[place] = ids[place - 1]!;
      place -= 1;
    }
    ids[place] = id;
  }
  const distinct: number[] = [];
  for (let at = 0; at < count; at += 1) if (at === 0 || ids[at] !== ids[at - 1]) distinct.push(ids[at]!);
  return distinct;
}
