// A superset of a text's content lemmas (claim.ts) without wink-nlp's parse, so guard-v2 can skip texts that pair with nothing.
import { isSubjectLemma, winkInput } from './claim.js';
import type { LoadedLexicon } from './conflict-lexicon.js';
import { chunkLemmas } from './wink-chunk-lemmas.js';

/** Interned candidate lemmas: a lemma's id is its index here (ids index claim-pairing.ts's per-lemma marks). */
const lemmaIds = new Map<string, number>();
const lemmaNames: string[] = [];

function idOf(lemma: string): number {
  let id = lemmaIds.get(lemma);
  if (id === undefined) {
    id = lemmaNames.push(lemma) - 1;
    lemmaIds.set(lemma, id);
  }
  return id;
}

/** How many lemmas have an id (claim-pairing.ts sizes its marks by it). */
export function lemmaCount(): number {
  return lemmaNames.length;
}

/** A chunk and the ids of its candidate content lemmas (null: not bounded), chained by hash. */
interface ChunkEntry {
  chunk: string;
  ids: Int32Array | null;
  next: ChunkEntry | undefined;
}

/**
 * The caches, for one lexicon version (another version clears them): chunks by a hash of their characters (found
 * without cutting the chunk out of its text), texts by text. Chunks are bounded by the vocabulary; texts, new on
 * every retrieval of a fresh store, by a smaller limit.
 */
let version = '';
const chunks = new Map<number, ChunkEntry>();
const textCache = new Map<string, Int32Array | null>();
const CHUNK_LIMIT = 32_768;
const TEXT_LIMIT = 4_096;

/** Past a limit a cache is dropped (lemma ids with the chunks): only between calls, as no id is held across calls. */
function trimCaches(lexicon: LoadedLexicon): void {
  const stale = lexicon.version !== version || chunks.size > CHUNK_LIMIT;
  if (stale || textCache.size > TEXT_LIMIT) textCache.clear();
  if (!stale) return;
  chunks.clear();
  lemmaIds.clear();
  lemmaNames.length = 0;
  version = lexicon.version;
}

/** The ids of `input.slice(start, end)`'s candidates, whose characters hash to `hash`. */
function candidatesOfChunk(input: string, start: number, end: number, hash: number, lexicon: LoadedLexicon) {
  const first = chunks.get(hash);
  for (let entry = first; entry !== undefined; entry = entry.next)
    if (entry.chunk.length === end - start && input.startsWith(entry.chunk, start)) return entry.ids;
  const chunk = input.slice(start, end);
  const lemmas = chunkLemmas(chunk);
  const ids = lemmas === null ? null : Int32Array.from(lemmas.filter((l) => isSubjectLemma(l, lexicon)).map(idOf));
  chunks.set(hash, { chunk, ids, next: first });
  return ids;
}

/**
 * wink's splitter (`[ \u00a0\u2002-\u2005\u2009\u200a\u202f\u205f]+|[\n\r\t]+`): runs of spaces, which its
 * tokeniser skips, and of tabs and line breaks, one token of type `tabCRLF` and never a word (the lexicon holds no
 * such lexeme of type word; claim-candidates.test.ts checks it). The chunks between are what it tokenises.
 */
function isSeparator(code: number): boolean {
  if (code > 32 && code < 0xa0) return false;
  return (
    code === 32 ||
    code === 9 ||
    code === 10 ||
    code === 13 ||
    code === 0xa0 ||
    (code >= 0x2002 && code <= 0x2005) ||
    code === 0x2009 ||
    code === 0x200a ||
    code === 0x202f ||
    code === 0x205f
  );
}

/** Per text read: ids already taken for it, and the ids in the order taken. */
let stamps = new Int32Array(1024);
let stamp = 0;
let taken = new Int32Array(256);

/**
 * The ids (see `lemmaCount`) of a superset of `claimOf(text, lexicon).content`, or null when it is not bounded (a long
 * chunk of digits or symbols). The text is cut into chunks as wink-nlp's tokeniser cuts it (after claim.ts's
 * unwrapping and lower-casing of shouted words); each chunk's candidates are kept, so a new text of known words costs
 * a scan and a few lookups, not a parse. claim-candidates.test.ts checks the superset against the parse.
 */
function candidateIds(text: string, lexicon: LoadedLexicon): Int32Array | null {
  const known = textCache.get(text);
  if (known !== undefined) return known;
  const input = winkInput(text);
  let count = 0;
  stamp += 1;
  let bounded = true;
  let start = -1;
  let hash = 0;
  for (let at = 0; at <= input.length; at += 1) {
    const code = at === input.length ? 32 : input.charCodeAt(at);
    if (!isSeparator(code)) {
      if (start < 0) {
        start = at;
        hash = 0x811c9dc5;
      }
      hash = Math.imul(hash ^ code, 0x01000193);
      continue;
    }
    if (start < 0) continue;
    const chunk = candidatesOfChunk(input, start, at, hash, lexicon);
    start = -1;
    if (chunk === null) {
      bounded = false;
      break;
    }
    if (stamps.length < lemmaNames.length) stamps = grown(stamps, lemmaNames.length);
    if (taken.length < count + chunk.length) taken = grown(taken, count + chunk.length);
    for (const id of chunk)
      if (stamps[id] !== stamp) {
        stamps[id] = stamp;
        taken[count++] = id;
      }
  }
  const result = bounded ? taken.slice(0, count) : null;
  textCache.set(text, result);
  return result;
}

/** `candidateIds` of each text (ids valid until the next call). */
export function candidateIdsOf(texts: readonly string[], lexicon: LoadedLexicon): (Int32Array | null)[] {
  trimCaches(lexicon);
  return texts.map((text) => candidateIds(text, lexicon));
}

/** `array` copied into one at least `size` long. */
export function grown(array: Int32Array<ArrayBuffer>, size: number): Int32Array<ArrayBuffer> {
  const next = new Int32Array(Math.max(size, array.length * 2));
  next.set(array);
  return next;
}

/** The candidate content lemmas of `text` (`candidateIds` as words), or null when not bounded. */
export function contentCandidates(text: string, lexicon: LoadedLexicon): ReadonlySet<string> | null {
  const ids = candidateIdsOf([text], lexicon)[0]!;
  return ids === null ? null : new Set([...ids].map((id) => lemmaNames[id]!));
}
