// Differential test (issue #32 item 1): claim.ts's reading of wink-nlp's tokens after its speed-up, against a verbatim
// copy of it before (claim.ts at 492982e), on the same tokens of every text the guard's tests use: each claim equal,
// member order included (conflict-v2 reads quantities and verbs in order).
import { describe, expect, it } from 'vitest';
import { CONTENT_POS, type Claim, claimOf, type Quantity, winkTokensOf } from './claim.js';
import { type LoadedLexicon, shippedLexicon } from './conflict-lexicon.js';
import { allTexts } from './guard-v2-test-texts.js';

// ---- claim.ts's reading before the speed-up. Test-only. ----
const NOUN_POS = new Set(['NOUN', 'PROPN']);
const YEAR = /^(19|20)\d\d$/;

interface Token {
  value: string;
  lemma: string;
  pos: string;
  type: string;
  negated: boolean;
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
  tokens.forEach((token, i) => {
    if (CLAUSE_END.has(token.pos)) {
      clauseStart = true;
      scoped = false;
      return;
    }
    const noOne = token.lemma === 'no' && tokens[i + 1]?.lemma === 'one';
    if (clauseStart && (NEGATIVE_SUBJECTS.has(token.lemma) || noOne)) scoped = true;
    else if (scoped) token.negated = true;
    clauseStart = false;
  });
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
  while (tokens[end] && (NOUN_POS.has(tokens[end]!.pos) || (end > at && tokens[end]!.value === '-'))) end += 1;
  const run = tokens.slice(at, end).filter((t) => t.value !== '-');
  return run.length === 0 ? null : { head: run[run.length - 1]!.lemma, end };
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
function isSubjectLemma(lemma: string, lexicon: LoadedLexicon): boolean {
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
  tokens.forEach((t, i) => {
    if (t.pos !== 'VERB' || t.negated !== negated || lexicon.boilerplate.has(t.lemma) || isCue(t.lemma, lexicon))
      return;
    const heads = argumentsOf(tokens, i, head);
    map.set(t.lemma, new Set([...(map.get(t.lemma) ?? []), ...heads]));
  });
  return map;
}

/**
 * Reads `text` into a claim with `lexicon` (wink-nlp lemmas, part of speech and negation scope). Its helpers are
 * module functions, not closures made per text (tsx's `keepNames` names each closure bound to a variable, per call).
 */
function oldReadClaim(text: string, lexicon: LoadedLexicon): Claim {
  const tokens = oldTokensOf(text);
  const words = tokens.filter((t) => t.type === 'word');
  const content = new Set(words.filter((t) => isSubjectWord(t, lexicon)).map((t) => t.lemma));
  const head = firstNounPhrase(tokens);
  const permits = words.some((t) => lexicon.permission.has(t.lemma) && !t.negated);
  const prohibits = words.some(
    (t) =>
      (lexicon.prohibition.has(t.lemma) && !t.negated) ||
      (lexicon.permission.has(t.lemma) && t.negated) ||
      (t.pos === 'VERB' && t.negated),
  );
  const quantities: Quantity[] = [];
  tokens.forEach((token, i) => {
    const value = numberOf(token, lexicon);
    const quantity = value === null ? null : quantityAt(tokens, i, value, lexicon);
    if (quantity) quantities.push(quantity);
  });
  return {
    content,
    affirmed: new Set(words.filter((t) => !t.negated).map((t) => t.lemma)),
    affirmedVerbs: verbArguments(tokens, false, head, lexicon),
    negatedVerbs: verbArguments(tokens, true, head, lexicon),
    permits,
    prohibits,
    quantities,
    head,
  };
}

/** The tokens as claim.ts read them before: wink-nlp's, a missing lemma read as the value, lower-cased. */
function oldTokensOf(text: string): Token[] {
  const tokens = winkTokensOf(text) as unknown as Token[];
  for (const token of tokens) {
    token.lemma = (token.lemma ?? token.value).toLowerCase();
    token.pos ??= 'X';
    token.type ??= 'word';
    token.negated = token.negated === true;
  }
  return negativeSubjectScope(tokens);
}
// ---- end of the copy. ----

/** A claim as data, every set and map in its own order. */
function shape(claim: Claim): unknown {
  const verbs = (map: ReadonlyMap<string, ReadonlySet<string>>) => [...map].map(([verb, nouns]) => [verb, [...nouns]]);
  return {
    content: [...claim.content],
    affirmed: [...claim.affirmed],
    affirmedVerbs: verbs(claim.affirmedVerbs),
    negatedVerbs: verbs(claim.negatedVerbs),
    permits: claim.permits,
    prohibits: claim.prohibits,
    quantities: claim.quantities,
    head: claim.head && { noun: claim.head.noun, modifiers: [...claim.head.modifiers] },
  };
}

describe('claimOf', () => {
  it('reads every text as claim.ts did before its speed-up', () => {
    const lexicon = shippedLexicon();
    const texts = allTexts();
    expect(texts.length).toBeGreaterThan(2500);
    for (const text of texts) expect(shape(claimOf(text, lexicon)), text).toEqual(shape(oldReadClaim(text, lexicon)));
  });
});
