// Reads one policy sentence into a claim for guard-v2's conflict stage: lemmas, negation scope, modality, quantities.
import type { LoadedLexicon } from './conflict-lexicon.js';
import { createWinkReader, sharedWinkParts, type WinkToken } from './wink-reader.js';

/** A number with what it counts: `$` for money, `duration` (value in seconds), a noun lemma, or a rate `day/week`. */
export interface Quantity {
  /** The value (durations in seconds). */
  value: number;
  /** What it counts; only equal units compare. */
  unit: string;
  /** The words it came from, for the reason (`24 hours`). */
  text: string;
}

/** What guard-v2 knows about one record's text. */
export interface Claim {
  /** Lemmas that carry the subject: nouns, verbs, adjectives and adverbs that are not boilerplate or cues. */
  content: ReadonlySet<string>;
  /** Every word lemma outside a negation scope, cues included (antonyms are looked up here). */
  affirmed: ReadonlySet<string>;
  /** Verb lemma → the head nouns it acts on, for verbs outside a negation scope. */
  affirmedVerbs: ReadonlyMap<string, ReadonlySet<string>>;
  /** Verb lemma → its head nouns, for verbs inside a negation scope (`never delete backups` → delete: {backup}). */
  negatedVerbs: ReadonlyMap<string, ReadonlySet<string>>;
  /** It grants a permission (`may`, `permitted`, `allowance`) that is not negated. */
  permits: boolean;
  /** It forbids (`prohibited`, `denied`, a negated verb, a negated permission). */
  prohibits: boolean;
  /** Counted things. */
  quantities: readonly Quantity[];
  /** The first noun phrase: its head lemma and its modifiers (`sick leave` → leave, {sick}). */
  head: { noun: string; modifiers: ReadonlySet<string> } | null;
}

/** The parts of speech of a content word. */
export const CONTENT_POS: ReadonlySet<string> = new Set(['NOUN', 'PROPN', 'VERB', 'ADJ', 'ADV']);
const NOUN_POS = new Set(['NOUN', 'PROPN']);
const YEAR = /^(19|20)\d\d$/;

let read: ((text: string) => WinkToken[]) | undefined;

/**
 * The wink-nlp pipes a claim reads: sentence boundaries, negation scope (`negationFlag`) and part of speech (lemmas
 * follow from it). The default set also runs sentiment, named entities and custom entities, which no claim reads and
 * which leave the tokens, lemmas, tags and negation flags as they are (claim.test.ts compares both sets).
 */
export const CLAIM_PIPE = ['sbd', 'negation', 'pos'];

/**
 * wink-nlp with its English lite model and CLAIM_PIPE, loaded on first use (never at import: the model is several
 * MB), read through wink-reader.ts: the same tokens as `readDoc(text).tokens().out(…)` without the document API.
 */
function winkRead(text: string): WinkToken[] {
  read ??= createWinkReader(sharedWinkParts());
  return read(text);
}

interface Token {
  value: string;
  lemma: string;
  pos: string;
  type: string;
  negated: boolean;
}

/** Shouting is not a proper noun: `DELETE ALL BACKUPS` is read as `delete all backups` (acronyms keep their lemma). */
const shoutedWord = /\b[A-Z]{2,}\b/g;

/** The text wink-nlp reads for a record's text: unwrapped (`WRAPPED_TEXT`), shouted words lower-cased. */
export function winkInput(text: string): string {
  return (WRAPPED_TEXT.exec(text.trim())?.[1] ?? text).replace(shoutedWord, lowerCased);
}

function lowerCased(word: string): string {
  return word.toLowerCase();
}

/** wink-nlp's tokens of `text` as claim.ts reads it (after `winkInput`), fresh objects (claim-differential.test.ts). */
export function winkTokensOf(text: string): WinkToken[] {
  return winkRead(winkInput(text));
}

function tokensOf(input: string): Token[] {
  // The reader's own objects, completed in place (a missing lemma reads as the value, as before).
  const tokens = winkRead(input) as unknown as Token[];
  for (const token of tokens) {
    token.lemma = (token.lemma ?? token.value).toLowerCase();
    token.pos ??= 'X';
    token.type ??= 'word';
    token.negated = token.negated === true;
  }
  return negativeSubjectScope(tokens);
}

/** Negative quantifiers that negate the clause they open as its subject (`Nobody may push a release`). */
const NEGATIVE_SUBJECTS = new Set(['nobody', 'nothing', 'none', 'neither']);

/**
 * wink-nlp scopes `not` and `never` but not a negative subject: `Nobody may push a release on Friday` reads as a
 * permission. A clause opened by `nobody`, `no one`, `nothing`, `none` or `neither` is negated to its end.
 */
function negativeSubjectScope(tokens: Token[]): Token[] {
  let clauseStart = true;
  let scoped = false;
  for (let i = 0; i < tokens.length; i += 1) {
    const token = tokens[i]!;
    if (CLAUSE_END.has(token.pos)) {
      clauseStart = true;
      scoped = false;
      continue;
    }
    const noOne = token.lemma === 'no' && tokens[i + 1]?.lemma === 'one';
    if (clauseStart && (NEGATIVE_SUBJECTS.has(token.lemma) || noOne)) scoped = true;
    else if (scoped) token.negated = true;
    clauseStart = false;
  }
  return tokens;
}

/** The number a token states, or null (years and identifiers are not quantities). */
function numberOf(token: Token, lexicon: LoadedLexicon): number | null {
  if (token.type === 'number' && !YEAR.test(token.value)) {
    const value = Number(token.value.replaceAll(',', ''));
    return Number.isFinite(value) ? value : null;
  }
  return token.pos === 'NUM' ? (lexicon.numberWords.get(token.lemma) ?? null) : null;
}

/** The quantity starting at token `i`: currency before it, else the noun it counts, plus a rate (`per year`). */
function quantityAt(tokens: readonly Token[], i: number, value: number, lexicon: LoadedLexicon): Quantity | null {
  const previous = tokens[i - 1];
  if (previous?.type === 'currency')
    return { value, unit: previous.value, text: `${previous.value}${tokens[i]!.value}` };
  let at = i + 1;
  while (at < i + 3 && tokens[at] && ['ADJ', 'VERB', 'ADV'].includes(tokens[at]!.pos)) at += 1;
  let end = at;
  while (tokens[end] && tokens[end]!.pos === 'NOUN') end += 1;
  if (end === at) return null;
  const noun = tokens[end - 1]!.lemma;
  const seconds = lexicon.durationSeconds.get(noun);
  let unit = seconds === undefined ? noun : 'duration';
  const text = tokens
    .slice(i, end)
    .map((t) => t.value)
    .join(' ');
  for (let k = end; k < end + 5 && tokens[k] && tokens[k]!.pos !== 'PUNCT'; k += 1) {
    const per = tokens[k + 1];
    if (lexicon.rateMarkers.has(tokens[k]!.lemma) && per && lexicon.durationSeconds.has(per.lemma)) {
      unit = `${noun}/${per.lemma}`;
      return { value, unit, text: `${text} per ${per.lemma}` };
    }
  }
  return { value: seconds === undefined ? value : value * seconds, unit, text };
}

/** The first run of nouns (with the adjectives and nouns before the last noun as modifiers); hyphens join. */
function firstNounPhrase(tokens: readonly Token[]): Claim['head'] {
  for (let i = 0; i < tokens.length; i += 1) {
    if (!NOUN_POS.has(tokens[i]!.pos)) continue;
    let start = i;
    while (start > 0 && ['ADJ', 'NOUN', 'PROPN', 'VERB'].includes(tokens[start - 1]!.pos)) start -= 1;
    let end = i;
    while (tokens[end + 1] && (NOUN_POS.has(tokens[end + 1]!.pos) || tokens[end + 1]!.value === '-')) end += 1;
    // The words of start..end but hyphens; the last is the head, the others its modifiers in order.
    let last = end;
    while (last >= start && tokens[last]!.value === '-') last -= 1;
    // A noun whose phrase is only hyphens: read as before, which fails (no head).
    if (last < start) return firstNounPhraseBefore(tokens);
    const modifiers = new Set<string>();
    for (let k = start; k < last; k += 1) if (tokens[k]!.value !== '-') modifiers.add(tokens[k]!.lemma);
    return { noun: tokens[last]!.lemma, modifiers };
  }
  return null;
}

/** firstNounPhrase as it was written first (claim-differential.test.ts), for the case above only. */
function firstNounPhraseBefore(tokens: readonly Token[]): Claim['head'] {
  for (let i = 0; i < tokens.length; i += 1) {
    if (!NOUN_POS.has(tokens[i]!.pos)) continue;
    let start = i;
    while (start > 0 && ['ADJ', 'NOUN', 'PROPN', 'VERB'].includes(tokens[start - 1]!.pos)) start -= 1;
    let end = i;
    while (tokens[end + 1] && (NOUN_POS.has(tokens[end + 1]!.pos) || tokens[end + 1]!.value === '-')) end += 1;
    const words = tokens.slice(start, end + 1).filter((t) => t.value !== '-');
    const head = words[words.length - 1]!;
    return { noun: head.lemma, modifiers: new Set(words.slice(0, -1).map((t) => t.lemma)) };
  }
  return null;
}

const CLAUSE_END = new Set(['PUNCT', 'CCONJ', 'SCONJ']);
const SKIP_BEFORE_OBJECT = new Set(['DET', 'ADJ', 'ADV', 'PART', 'NUM']);

/** The head (last noun) of the noun run starting at `at` (hyphens join), and where the run ends. */
function nounRunAt(tokens: readonly Token[], at: number): { head: string; end: number } | null {
  let end = at;
  let head: string | null = null;
  while (tokens[end] && (NOUN_POS.has(tokens[end]!.pos) || (end > at && tokens[end]!.value === '-'))) {
    if (tokens[end]!.value !== '-') head = tokens[end]!.lemma;
    end += 1;
  }
  return head === null ? null : { head, end };
}

/**
 * The head nouns a verb at `i` acts on: the noun run before it in its clause (its subject) and the runs right after
 * it (its objects, `user and audit logs` both). None found: the sentence's first noun phrase, modifiers included.
 */
function argumentsOf(tokens: readonly Token[], i: number, fallback: Claim['head']): Set<string> {
  const found = new Set<string>();
  let before = i - 1;
  while (before >= 0 && !CLAUSE_END.has(tokens[before]!.pos) && !NOUN_POS.has(tokens[before]!.pos)) before -= 1;
  if (before >= 0 && NOUN_POS.has(tokens[before]!.pos)) found.add(tokens[before]!.lemma);
  let after = i + 1;
  for (;;) {
    while (tokens[after] && SKIP_BEFORE_OBJECT.has(tokens[after]!.pos)) after += 1;
    const run = tokens[after] ? nounRunAt(tokens, after) : null;
    if (!run) break;
    found.add(run.head);
    if (tokens[run.end]?.pos !== 'CCONJ') break;
    after = run.end + 1;
  }
  if (found.size === 0 && fallback) return new Set([fallback.noun, ...fallback.modifiers]);
  return found;
}

/** A text field printed as a one-key map (langmem's natural-mode `{'content': '…'}` values): the words are inside. */
const WRAPPED_TEXT = /^\{\s*['"](?:content|text|fact|memory)['"]\s*:\s*['"]([\s\S]*)['"]\s*\}$/;

/** A modality or negation cue of the lexicon. */
function isCue(lemma: string, lexicon: LoadedLexicon): boolean {
  return (
    lexicon.negationCues.has(lemma) ||
    lexicon.permission.has(lemma) ||
    lexicon.obligation.has(lemma) ||
    lexicon.prohibition.has(lemma)
  );
}

/** A word that carries the subject. Units of time measure a rule, they are not its subject (`5 leave days`). */
function isSubjectWord(t: Token, lexicon: LoadedLexicon): boolean {
  return CONTENT_POS.has(t.pos) && isSubjectLemma(t.lemma, lexicon);
}

/** What `isSubjectWord` asks of the lemma alone (claim-candidates.ts filters its candidates with it). */
export function isSubjectLemma(lemma: string, lexicon: LoadedLexicon): boolean {
  return (
    lemma.length > 1 && !lexicon.boilerplate.has(lemma) && !lexicon.durationSeconds.has(lemma) && !isCue(lemma, lexicon)
  );
}

/** Verb lemma → the head nouns it acts on, for the verbs whose negation flag is `negated`. */
function verbArguments(
  tokens: readonly Token[],
  negated: boolean,
  head: Claim['head'],
  lexicon: LoadedLexicon,
): Map<string, Set<string>> {
  const map = new Map<string, Set<string>>();
  for (let i = 0; i < tokens.length; i += 1) {
    const t = tokens[i]!;
    if (t.pos !== 'VERB' || t.negated !== negated || lexicon.boilerplate.has(t.lemma) || isCue(t.lemma, lexicon))
      continue;
    const heads = argumentsOf(tokens, i, head);
    const known = map.get(t.lemma);
    // The earlier heads first, then the new ones (argumentsOf's set is new, so it can be kept as it is).
    if (known === undefined) map.set(t.lemma, heads);
    else for (const noun of heads) known.add(noun);
  }
  return map;
}

/**
 * Reads `text` into a claim with `lexicon` (wink-nlp lemmas, part of speech and negation scope). Its helpers are
 * module functions, not closures made per text (tsx's `keepNames` names each closure bound to a variable, per call).
 */
function readClaim(text: string, lexicon: LoadedLexicon): Claim {
  const tokens = tokensOf(winkInput(text));
  // One pass over the words, in order: content and affirmed lemmas, permission and prohibition.
  const content = new Set<string>();
  const affirmed = new Set<string>();
  let permits = false;
  let prohibits = false;
  for (const t of tokens) {
    if (t.type !== 'word') continue;
    if (isSubjectWord(t, lexicon)) content.add(t.lemma);
    if (!t.negated) affirmed.add(t.lemma);
    const permission = lexicon.permission.has(t.lemma);
    if (permission && !t.negated) permits = true;
    if (
      (lexicon.prohibition.has(t.lemma) && !t.negated) ||
      (permission && t.negated) ||
      (t.pos === 'VERB' && t.negated)
    )
      prohibits = true;
  }
  const head = firstNounPhrase(tokens);
  const quantities: Quantity[] = [];
  for (let i = 0; i < tokens.length; i += 1) {
    const value = numberOf(tokens[i]!, lexicon);
    const quantity = value === null ? null : quantityAt(tokens, i, value, lexicon);
    if (quantity) quantities.push(quantity);
  }
  return {
    content,
    affirmed,
    affirmedVerbs: verbArguments(tokens, false, head, lexicon),
    negatedVerbs: verbArguments(tokens, true, head, lexicon),
    permits,
    prohibits,
    quantities,
    head,
  };
}

/** Claims by lexicon version, then by text (no key built per call: a text's hash is kept on the string). */
const claimCache = new Map<string, Map<string, Claim>>();
let cachedClaims = 0;
const CLAIM_CACHE_LIMIT = 4096;

/** The claim of `text`, memoised per lexicon version (a run screens, and the simulator compares, the same texts often). */
export function claimOf(text: string, lexicon: LoadedLexicon): Claim {
  let byText = claimCache.get(lexicon.version);
  let claim = byText?.get(text);
  if (!claim) {
    if (cachedClaims >= CLAIM_CACHE_LIMIT) {
      claimCache.clear();
      cachedClaims = 0;
      byText = undefined;
    }
    claim = readClaim(text, lexicon);
    if (!byText) {
      byText = new Map();
      claimCache.set(lexicon.version, byText);
    }
    byText.set(text, claim);
    cachedClaims += 1;
  }
  return claim;
}
