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
  splitter: RegExp;
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
        trex: { helpers: { splitter: string[] } };
        pos: { list: string[] };
      };
      pos(): { machines: string[] };
      featureFn: unknown;
      addons: { lemmatize: Reader['lemmatize'] };
    };
    const core = model.core();
    const createCache = require('wink-nlp/src/cache.js') as (core: unknown, featureFn: unknown) => WinkCache;
    const [source, flags] = core.trex.helpers.splitter as [string, string];
    reader = {
      cache: createCache(core, model.featureFn),
      lexemes: core.features.lexeme.hash,
      lemmatize: model.addons.lemmatize,
      splitter: new RegExp(source, flags),
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

/**
 * What wink's splitter cuts out: runs of spaces (skipped by its tokeniser) and of tabs and line breaks (one token of
 * type `tabCRLF`, never a word: the lexicon holds no such lexeme of type word, which the test checks).
 */
const SPACES = /^(?:[ \u00a0\u2002-\u2005\u2009\u200a\u202f\u205f]+|[\t\r\n]+)$/;

/** Per lexicon version: chunk → its candidate content lemmas, or null when not enumerated. */
const chunkCache = new Map<string, Map<string, readonly string[] | null>>();
let cachedChunks = 0;
const CHUNK_CACHE_LIMIT = 16_384;

function candidatesOfChunk(chunk: string, lexicon: LoadedLexicon): readonly string[] | null {
  let byChunk = chunkCache.get(lexicon.version);
  const cached = byChunk?.get(chunk);
  if (cached !== undefined) return cached;
  const values = valuesOfChunk(chunk);
  let lemmas: string[] | null = null;
  if (values !== null) {
    const all: string[] = [];
    for (const value of values) lemmasOfValue(value, all);
    lemmas = [...new Set(all.map((lemma) => lemma.toLowerCase()))].filter((lemma) => isSubjectLemma(lemma, lexicon));
  }
  if (cachedChunks >= CHUNK_CACHE_LIMIT) {
    chunkCache.clear();
    cachedChunks = 0;
    byChunk = undefined;
  }
  if (!byChunk) {
    byChunk = new Map();
    chunkCache.set(lexicon.version, byChunk);
  }
  byChunk.set(chunk, lemmas);
  cachedChunks += 1;
  return lemmas;
}

/**
 * A superset of `claimOf(text, lexicon).content`, or null when it is not bounded (a long chunk of digits or symbols).
 * The text is cut into chunks as wink-nlp's tokeniser cuts it (its own splitter, after claim.ts's unwrapping and
 * lower-casing of shouted words); each chunk's candidates are kept by chunk, so a new text of known words costs a split
 * and a few lookups, not a parse. `claim-candidates.test.ts` checks the superset against the parse.
 */
export function contentCandidates(text: string, lexicon: LoadedLexicon): ReadonlySet<string> | null {
  const { splitter } = winkReader();
  const candidates = new Set<string>();
  for (const chunk of winkInput(text).split(splitter)) {
    if (chunk === '' || SPACES.test(chunk)) continue;
    const lemmas = candidatesOfChunk(chunk, lexicon);
    if (lemmas === null) return null;
    for (const lemma of lemmas) candidates.add(lemma);
  }
  return candidates;
}

/** Whether two candidate sets (null: unbounded) may share the two content lemmas `subjectOf` needs. */
function mayShareTwo(a: ReadonlySet<string> | null, b: ReadonlySet<string> | null): boolean {
  if (a === null || b === null) return true;
  let shared = 0;
  for (const lemma of a) if (b.has(lemma) && ++shared >= 2) return true;
  return false;
}

/**
 * The texts among `texts` whose claim guard-v2 may need: those whose candidates may share two content lemmas with
 * another distinct text's. Every other text passes no subject test (`subjectOf` needs two shared content lemmas, and
 * equal texts never conflict), so no conflict test on it can hit, and its parse is skipped.
 */
export function textsThatMayPair(texts: readonly string[], lexicon: LoadedLexicon): Set<string> {
  const distinct = [...new Set(texts)];
  const candidates = distinct.map((text) => contentCandidates(text, lexicon));
  const needed = new Set<string>();
  for (let i = 0; i < distinct.length; i += 1)
    for (let j = i + 1; j < distinct.length; j += 1)
      if (mayShareTwo(candidates[i]!, candidates[j]!)) {
        needed.add(distinct[i]!);
        needed.add(distinct[j]!);
      }
  return needed;
}
