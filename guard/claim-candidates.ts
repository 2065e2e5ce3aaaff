// A superset of a text's content lemmas (claim.ts) without wink-nlp's parse, so guard-v2 can skip texts that pair with nothing.
import { createRequire } from 'node:module';
import type { Model } from 'wink-nlp';
import type { LoadedLexicon } from './conflict-lexicon.js';
import { CONTENT_POS, isSubjectLemma, winkInput } from './claim.js';
import { reachableTags, type TagMoves, tagMovesOf } from './wink-pos-bounds.js';

/** The read-only part of wink-nlp's lexicon cache (wink-nlp/src/cache.js) that `its.lemma` uses. */
interface WinkCache {
  lookup(text: string): number[] | null;
  value(index: number): string;
  normal(index: number): number;
  mappedSpelling(index: number): number;
  property(index: number, name: string): unknown;
  intrinsicSize(): number;
  posOf(index: number): number;
  isMemberPOS(index: number, tag: number): boolean;
}

interface Reader {
  cache: WinkCache;
  /** The model's lexeme → index hash (the cache's own, read only). */
  lexemes: Record<string, number | undefined>;
  lemmatize: (value: string, pos: string, cache: WinkCache) => string;
  /** The tagger's moves (wink-pos-bounds.ts). */
  moves: TagMoves;
  /** Tag id → name (`NOUN`), from the model. */
  tagNames: readonly string[];
}

let reader: Reader | undefined;

/**
 * A private copy of the model's lexicon cache, never added to: texts the parser has not read leave it unchanged, and
 * an out-of-vocabulary word reads here exactly as wink-nlp reads it once added (its normal is its lower case, mapped
 * spelling applied; it has no single lemma), which `lemmasOfValue` follows.
 */
function winkReader(): Reader {
  if (!reader) {
    const require = createRequire(import.meta.url);
    const model = require('wink-eng-lite-web-model') as Model & {
      core(): {
        features: { lexeme: { hash: Record<string, number> } };
        pos: { list: string[] };
      };
      pos(): { machines: string[] };
      featureFn: unknown;
      addons: { lemmatize: Reader['lemmatize'] };
    };
    const core = model.core();
    const createCache = require('wink-nlp/src/cache.js') as (core: unknown, featureFn: unknown) => WinkCache;
    reader = {
      cache: createCache(core, model.featureFn),
      lexemes: core.features.lexeme.hash,
      lemmatize: model.addons.lemmatize,
      moves: tagMovesOf(model.pos().machines),
      tagNames: core.pos.list,
    };
  }
  return reader;
}

const POS_WITH_RULES = ['ADJ', 'NOUN', 'VERB'];
const NOUN = 8;

/** The content tags (claim.ts's CONTENT_POS) the tagger can give a token of intrinsic lexeme `index`, by name. */
function contentTagsOf(index: number): string[] {
  const { cache, moves, tagNames } = winkReader();
  // As wink-nlp's tagger: the default tag of the mapped spelling (NOUN when none), the hint of the lexeme itself,
  // the cluster of its normal.
  const normal = cache.normal(index);
  const tags = reachableTags(
    cache.posOf(cache.mappedSpelling(index)) || NOUN,
    Number(cache.property(index, 'posHint')) || 0,
    (tag) => cache.isMemberPOS(normal, tag),
    moves,
  );
  return [...tags].map((tag) => tagNames[tag]!).filter((name) => CONTENT_POS.has(name));
}

/**
 * The shapes of a word token wink-nlp's tokeniser can make of a text outside its lexicon (what it adds with category
 * `word`): a short form (`u.s.`, `e.g`, as its rgxShortForm), or letters and digits joined by single inner `.-–'’&`
 * with no period (its word pattern's matches, split at periods unless a lexeme or short form, and at hyphens). Any
 * other value is a word token only if the model's lexicon holds it.
 */
const SHORT_FORM = /^(?:[A-Z]\.)+[a-z]?$/i;
const ALNUM = 'a-z0-9\\u00C0-\\u00D6\\u00D8-\\u00F6\\u00F8-\\u00FF\\u0300-\\u036f\\u2060';
const WORD_SHAPED = new RegExp(`^[${ALNUM}]+(?:[\\-\\u2013'\\u2019&][${ALNUM}]+)*$`, 'i');

/**
 * Every lemma wink-nlp can give a content token whose value is `value`: the expansions' lemmas of a contraction,
 * else (as `its.lemma`) the single lemma of its mapped spelling, or `lemmatize(normal, pos)` for each content tag it
 * can take (any tag out of the lexicon).
 */
function lemmasOfValue(value: string, into: string[]): void {
  const { cache, lexemes, lemmatize } = winkReader();
  const index = lexemes[value];
  const intrinsic = index !== undefined && index < cache.intrinsicSize();
  if (!intrinsic && !SHORT_FORM.test(value) && !WORD_SHAPED.test(value)) return;
  const found = cache.lookup(value);
  // claim.ts reads a missing lemma as the token's value.
  if (found !== null && found.length > 1)
    for (let k = 0; k < found.length; k += 4) into.push(cache.value(found[k + 2]!) ?? cache.value(found[k]!));
  let normal: string;
  if (intrinsic) {
    // A lexicon word is a content word only under a tag the tagger can give it (`the` never is).
    const tags = contentTagsOf(index);
    if (tags.length === 0) return;
    const mapped = cache.mappedSpelling(index);
    if (cache.property(mapped, 'isSLemma') === 1) {
      into.push(cache.value(cache.property(mapped, 'lemma') as number) ?? value);
      return;
    }
    normal = cache.value(cache.normal(index));
    for (const tag of tags) into.push(lemmatize(normal, tag, cache));
    return;
  } else {
    const lower = value.toLowerCase();
    const lowerIndex = lexemes[lower];
    normal =
      lowerIndex !== undefined && lowerIndex < cache.intrinsicSize()
        ? cache.value(cache.mappedSpelling(lowerIndex))
        : lower;
  }
  into.push(normal);
  for (const pos of POS_WITH_RULES) into.push(lemmatize(normal, pos, cache));
}

/**
 * Plain: ASCII letters and punctuation that no pattern of wink's tokeniser splits inside a run of letters (a `:` or `;`
 * only last, where no emoticon can take the letter after it; no digit, `/`, `@`, `#`: times, ordinals, URLs).
 */
const PLAIN = /^[A-Za-z\-.,!?'"()&]+[;:]?$/;
const SPLITS_LETTERS = /USD|AUD|INR|GBP/;
const LETTER = /[A-Za-z]/;
/** Longer non-plain chunks are not enumerated: their text is parsed. */
const MAX_ENUMERATED = 24;

/**
 * The token values wink-nlp can cut from one chunk (a run between spaces): every substring of a plain chunk that
 * starts and ends where a letter meets a non-letter (or at an end), since its tokeniser splits plain chunks only
 * there; every substring of any other chunk up to MAX_ENUMERATED characters; null beyond.
 */
function valuesOfChunk(chunk: string): string[] | null {
  const plain = PLAIN.test(chunk) && !SPLITS_LETTERS.test(chunk);
  if (!plain && chunk.length > MAX_ENUMERATED) return null;
  const cuts: number[] = [];
  for (let at = 0; at <= chunk.length; at += 1) {
    if (!plain || at === 0 || at === chunk.length) cuts.push(at);
    else if (!LETTER.test(chunk[at - 1]!) || !LETTER.test(chunk[at]!)) cuts.push(at);
  }
  const values: string[] = [];
  for (let i = 0; i < cuts.length; i += 1)
    for (let j = i + 1; j < cuts.length; j += 1) values.push(chunk.slice(cuts[i], cuts[j]));
  return values;
}

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

/** Per lexicon version: chunk → the ids of its candidate content lemmas, and text → the ids of its own (null: not bounded). */
const chunkCache = new Map<string, Map<string, Int32Array | null>>();
const textCache = new Map<string, Map<string, Int32Array | null>>();
let cachedChunks = 0;
let cachedTexts = 0;
/** Chunks are bounded by the vocabulary; texts, new on every retrieval of a fresh store, by a smaller limit. */
const CHUNK_LIMIT = 65_536;
const TEXT_LIMIT = 4_096;

function cacheFor(caches: Map<string, Map<string, Int32Array | null>>, version: string) {
  let byKey = caches.get(version);
  if (!byKey) {
    byKey = new Map();
    caches.set(version, byKey);
  }
  return byKey;
}

/** Past a limit a cache is dropped (lemma ids with the chunks): only between calls, as no id is held across calls. */
function trimCaches(): void {
  if (cachedTexts > TEXT_LIMIT || cachedChunks > CHUNK_LIMIT) {
    textCache.clear();
    cachedTexts = 0;
  }
  if (cachedChunks > CHUNK_LIMIT) {
    chunkCache.clear();
    lemmaIds.clear();
    lemmaNames.length = 0;
    cachedChunks = 0;
  }
}

function candidatesOfChunk(chunk: string, lexicon: LoadedLexicon): Int32Array | null {
  const found = chunkCache.get(lexicon.version)?.get(chunk);
  if (found !== undefined) return found;
  const values = valuesOfChunk(chunk);
  let ids: Int32Array | null = null;
  if (values !== null) {
    const all: string[] = [];
    for (const value of values) lemmasOfValue(value, all);
    const lemmas = new Set(all.map((lemma) => lemma.toLowerCase()));
    ids = Int32Array.from([...lemmas].filter((lemma) => isSubjectLemma(lemma, lexicon)).map(idOf));
  }
  cachedChunks += 1;
  cacheFor(chunkCache, lexicon.version).set(chunk, ids);
  return ids;
}

/**
 * wink's splitter (`[ \u00a0\u2002-\u2005\u2009\u200a\u202f\u205f]+|[\n\r\t]+`): runs of spaces, which its
 * tokeniser skips, and of tabs and line breaks, one token of type `tabCRLF` and never a word (the lexicon holds no
 * such lexeme of type word; claim-candidates.test.ts checks it). The chunks between are what it tokenises.
 */
function isSeparator(code: number): boolean {
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

/** Per call: ids already taken for the text being read. */
let stamps = new Int32Array(1024);
let stamp = 0;

/**
 * The ids (see `lemmaCount`) of a superset of `claimOf(text, lexicon).content`, or null when it is not bounded (a long chunk of digits or
 * symbols). The text is cut into chunks as wink-nlp's tokeniser cuts it (after claim.ts's unwrapping and lower-casing
 * of shouted words); each chunk's candidates are kept by chunk, so a new text of known words costs a scan and a few
 * lookups, not a parse. claim-candidates.test.ts checks the superset against the parse.
 */
function candidateIds(text: string, lexicon: LoadedLexicon): Int32Array | null {
  const known = textCache.get(lexicon.version)?.get(text);
  if (known !== undefined) return known;
  const input = winkInput(text);
  const ids: number[] = [];
  stamp += 1;
  let bounded = true;
  let start = -1;
  for (let at = 0; at <= input.length; at += 1) {
    const separator = at === input.length || isSeparator(input.charCodeAt(at));
    if (!separator) {
      if (start < 0) start = at;
      continue;
    }
    if (start < 0) continue;
    const chunk = candidatesOfChunk(input.slice(start, at), lexicon);
    start = -1;
    if (chunk === null) {
      bounded = false;
      break;
    }
    if (stamps.length < lemmaNames.length) stamps = grown(stamps, lemmaNames.length);
    for (const id of chunk)
      if (stamps[id] !== stamp) {
        stamps[id] = stamp;
        ids.push(id);
      }
  }
  const result = bounded ? Int32Array.from(ids) : null;
  cachedTexts += 1;
  cacheFor(textCache, lexicon.version).set(text, result);
  return result;
}

/** `candidateIds` of each text (ids valid until the next call). */
export function candidateIdsOf(texts: readonly string[], lexicon: LoadedLexicon): (Int32Array | null)[] {
  trimCaches();
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
