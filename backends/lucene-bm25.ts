// Lucene pieces the embedded graph store needs to score like Neo4j's fulltext index: Graphiti's query
// sanitiser and word cap, the standard analyser (no stop words), norm quantisation and BM25.

/**
 * Graphiti skips the BM25 branch when `len(lucene_query.split(' ')) + len(group_ids) >= MAX_QUERY_LENGTH`
 * (graphiti-core 0.31.2, graphiti_core/search/search_utils.py `fulltext_query`: MAX_QUERY_LENGTH = 128).
 */
export const MAX_QUERY_LENGTH = 128;

/** Lucene's BM25Similarity defaults, used by Neo4j's fulltext indexes. */
const BM25_K1 = 1.2;
const BM25_B = 0.75;

// graphiti_core/helpers.py `lucene_sanitize`: the query-syntax characters, plus the capitals of AND/OR/NOT.
const ESCAPED = new Set('+-&|!(){}[]^"~*?:\\/ORNTAD');

/** Graphiti's `lucene_sanitize`: backslash-escapes every character Lucene's query parser would interpret. */
export function luceneSanitize(query: string): string {
  let sanitized = '';
  for (const character of query) sanitized += ESCAPED.has(character) ? `\\${character}` : character;
  return sanitized;
}

/**
 * The analysed query terms Lucene ORs together for `(<sanitised query>)`, or `null` when Graphiti's word cap
 * drops the fulltext branch. After sanitising, the classic parser sees no operators, so each escaped
 * character is a literal and the analyser decides token boundaries. Duplicated terms are kept (Lucene sums
 * duplicate SHOULD clauses).
 */
export function fulltextQueryTerms(query: string, groupCount: number): string[] | null {
  const sanitized = luceneSanitize(query);
  if (sanitized.split(' ').length + groupCount >= MAX_QUERY_LENGTH) return null;
  return standardAnalyze(sanitized.replace(/\\(.)/gsu, '$1'));
}

const WORD = /[\p{L}\p{N}\p{M}\p{Pc}]/u;
const LETTER = /\p{L}/u;
const DIGIT = /\p{N}/u;
const IDEOGRAPH = /[\p{Script=Han}\p{Script=Hiragana}]/u;
// UAX #29 word-boundary classes that join letters (MidLetter), digits (MidNum) or both (MidNumLet).
const MID_LETTER = new Set([':', '\u00B7', '\u0387', '\u05F4', '\u2027', '\uFE13', '\uFE55', '\uFF1A']);
const MID_NUM = new Set([
  ',',
  ';',
  '\u037E',
  '\u0589',
  '\u060C',
  '\u060D',
  '\u066C',
  '\u07F8',
  '\u2044',
  '\uFE10',
  '\uFE14',
  '\uFE50',
  '\uFE54',
  '\uFF0C',
  '\uFF1B',
]);
const MID_NUM_LET = new Set(['.', "'", '\u2018', '\u2019', '\u2024', '\uFE52', '\uFF07', '\uFF0E']);

/**
 * Lucene's StandardAnalyzer with an empty stop set (Neo4j's default `standard-no-stop-words`): UAX #29 word
 * segmentation (`don't`, `10,000`, `u.s`, `a_b` stay whole; `eu-west` splits), lower-cased. Simplified to the
 * rules English text exercises: Han and Hiragana characters become one-character tokens, other scripts are
 * treated like Latin, and the 255-character token limit is not applied.
 */
export function standardAnalyze(text: string): string[] {
  const characters = [...text];
  const tokens: string[] = [];
  let current = '';
  for (let index = 0; index < characters.length; index += 1) {
    const character = characters[index] ?? '';
    if (IDEOGRAPH.test(character)) {
      if (current) tokens.push(current);
      tokens.push(character);
      current = '';
    } else if (WORD.test(character)) {
      current += character;
    } else if (current && joins(characters[index - 1] ?? '', character, characters[index + 1] ?? '')) {
      current += character;
    } else if (current) {
      tokens.push(current);
      current = '';
    }
  }
  if (current) tokens.push(current);
  return tokens.map((token) => token.toLowerCase());
}

function joins(before: string, middle: string, after: string): boolean {
  if (IDEOGRAPH.test(after)) return false;
  const letters = LETTER.test(before) && LETTER.test(after);
  const digits = DIGIT.test(before) && DIGIT.test(after);
  if (MID_LETTER.has(middle)) return letters;
  if (MID_NUM.has(middle)) return digits;
  if (MID_NUM_LET.has(middle)) return letters || digits;
  return false;
}

/**
 * The document length BM25 sees: Lucene stores field lengths in one byte (`SmallFloat.intToByte4`), exact
 * below 40 tokens and rounded down above.
 */
export function luceneFieldLength(length: number): number {
  const free = 24;
  if (length < free) return length;
  const value = length - free;
  const bits = 32 - Math.clz32(value);
  if (bits < 4) return length;
  const shift = bits - 4;
  return free + (((value >>> shift) & 0x07) | 0x08) * 2 ** shift;
}

/** Per-field collection statistics over the scored document set. */
export interface FieldStatistics {
  /** Documents with at least one token in the field. */
  docCount: number;
  /** Mean token count over those documents (`sumTotalTermFreq / docCount`). */
  averageLength: number;
  /** Documents containing each term. */
  docFreq: Map<string, number>;
}

/** Collects `FieldStatistics` from each document's token list for one field. */
export function fieldStatistics(tokenLists: readonly (readonly string[])[]): FieldStatistics {
  const docFreq = new Map<string, number>();
  let docCount = 0;
  let totalLength = 0;
  for (const tokens of tokenLists) {
    if (tokens.length === 0) continue;
    docCount += 1;
    totalLength += tokens.length;
    for (const term of new Set(tokens)) docFreq.set(term, (docFreq.get(term) ?? 0) + 1);
  }
  return { docCount, averageLength: docCount === 0 ? 0 : totalLength / docCount, docFreq };
}

/** Lucene BM25 idf: ln(1 + (N − n + 0.5) / (n + 0.5)). */
export function bm25Idf(statistics: FieldStatistics, term: string): number {
  const n = statistics.docFreq.get(term) ?? 0;
  return Math.log(1 + (statistics.docCount - n + 0.5) / (n + 0.5));
}

/** Lucene BM25 term-frequency part: f / (f + k1 · (1 − b + b · dl / avgdl)), dl quantised as Lucene does. */
export function bm25TermFrequency(freq: number, length: number, statistics: FieldStatistics): number {
  const lengthRatio = luceneFieldLength(length) / statistics.averageLength;
  return freq / (freq + BM25_K1 * (1 - BM25_B + BM25_B * lengthRatio));
}
