// Every lemma wink-nlp can give a content word cut from one chunk of text, read from its own lexicon, lemmatiser and tagger.
import { CONTENT_POS } from './claim.js';
import { reachableTags, type TagMoves, tagMovesOf } from './wink-pos-bounds.js';
import { sharedWinkParts, type WinkCache } from './wink-reader.js';

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
 * The parser's own lexicon cache (wink-reader.ts), only read here: the lexicon's words read as they always do, and a
 * word outside it reads as wink-nlp reads it whether or not a parse has added it yet (its normal is its lower case,
 * mapped spelling applied; it has no single lemma; no contraction), which `lemmasOfValue` follows.
 */
function winkReader(): Reader {
  if (!reader) {
    const { theModel, core, cache } = sharedWinkParts();
    reader = {
      cache,
      lexemes: core.features.lexeme.hash,
      lemmatize: theModel.addons.lemmatize,
      moves: tagMovesOf(theModel.pos().machines),
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
 * `word`, in tokenizer.js and recursive-tokenizer.js): a short form (`u.s.`, `e.g`, its rgxShortForm); one letter and
 * a period (`é.`, a two-character word with a right period); or letters and digits joined by single `-–'’&`, perhaps
 * led by one (its word pattern's matches, cut at periods unless a lexeme or short form, then at hyphens unless kept
 * whole). Any other value is a word token only if the model's lexicon holds it.
 */
const SHORT_FORM = /^(?:[A-Z]\.)+[a-z]?$/i;
const LETTERS = 'a-z\\u00C0-\\u00D6\\u00D8-\\u00F6\\u00F8-\\u00FF\\u0300-\\u036f\\u2060';
const LETTER_DOT = new RegExp(`^[${LETTERS}]\\.$`, 'i');
const ALNUM = `${LETTERS}0-9`;
const WORD_SHAPED = new RegExp(`^[\\-\\u2013'\\u2019&]?[${ALNUM}]+(?:[\\-\\u2013'\\u2019&][${ALNUM}]+)*$`, 'i');

/**
 * Every lemma wink-nlp can give a content token whose value is `value`: the expansions' lemmas of a contraction,
 * else (as `its.lemma`) the single lemma of its mapped spelling, or `lemmatize(normal, pos)` for each content tag it
 * can take (any tag out of the lexicon).
 */
function lemmasOfValue(value: string, into: string[]): void {
  const { cache, lexemes, lemmatize } = winkReader();
  const index = lexemes[value];
  const intrinsic = index !== undefined && index < cache.intrinsicSize();
  if (!intrinsic && !SHORT_FORM.test(value) && !LETTER_DOT.test(value) && !WORD_SHAPED.test(value)) return;
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
 * Every lemma (lower-cased, as claim.ts reads it) wink-nlp can give a content word it cuts from `chunk` (a run of text
 * between its splitter's separators), or null when the chunk is too long to enumerate.
 */
export function chunkLemmas(chunk: string): string[] | null {
  const values = valuesOfChunk(chunk);
  if (values === null) return null;
  const all: string[] = [];
  for (const value of values) lemmasOfValue(value, all);
  return [...new Set(all.map((lemma) => lemma.toLowerCase()))];
}
