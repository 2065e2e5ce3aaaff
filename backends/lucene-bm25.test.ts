import { describe, expect, it } from 'vitest';
import {
  bm25Idf,
  bm25TermFrequency,
  fieldStatistics,
  fulltextQueryTerms,
  luceneFieldLength,
  luceneSanitize,
  MAX_QUERY_LENGTH,
  standardAnalyze,
} from './lucene-bm25.js';

describe('luceneSanitize', () => {
  it('escapes what graphiti_core/helpers.py lucene_sanitize escapes, including the capitals of AND/OR/NOT', () => {
    expect(luceneSanitize('a+b AND (c) || d:e/f "g"*')).toBe('a\\+b \\A\\N\\D \\(c\\) \\|\\| d\\:e\\/f \\"g\\"\\*');
    expect(luceneSanitize('and or not')).toBe('and or not');
    expect(luceneSanitize('back\\slash')).toBe('back\\\\slash');
  });
});

describe('standardAnalyze', () => {
  it('segments like Lucene StandardTokenizer and lower-cases, keeping stop words', () => {
    expect(standardAnalyze("Don't roll back $10,000 in eu-west; the U.S. 24h a_b log-retention / cleanup.")).toEqual([
      "don't",
      'roll',
      'back',
      '10,000',
      'in',
      'eu',
      'west',
      'the',
      'u.s',
      '24h',
      'a_b',
      'log',
      'retention',
      'cleanup',
    ]);
    expect(standardAnalyze('"allow all" pre-2025 rule: 1.5x, 2,3 e.g. sign-off')).toEqual([
      'allow',
      'all',
      'pre',
      '2025',
      'rule',
      '1.5x',
      '2,3',
      'e.g',
      'sign',
      'off',
    ]);
    expect(standardAnalyze('--- ?? ...')).toEqual([]);
  });
});

describe('fulltextQueryTerms', () => {
  it('turns a sanitised query into its analysed, OR-ed terms (duplicates kept)', () => {
    expect(fulltextQueryTerms('What was our historical log-retention / cleanup policy? AND policy', 1)).toEqual([
      'what',
      'was',
      'our',
      'historical',
      'log',
      'retention',
      'cleanup',
      'policy',
      'and',
      'policy',
    ]);
  });

  it('drops the branch when words + group ids reach MAX_QUERY_LENGTH (128), as Graphiti does', () => {
    expect(MAX_QUERY_LENGTH).toBe(128);
    const words = (count: number) => Array.from({ length: count }, (_, index) => `w${index}`).join(' ');
    expect(fulltextQueryTerms(words(126), 1)).toHaveLength(126);
    expect(fulltextQueryTerms(words(127), 1)).toBeNull();
    expect(fulltextQueryTerms(words(126), 2)).toBeNull();
    // Python's str.split(' ') counts the empty strings between repeated spaces; so does ours.
    expect(fulltextQueryTerms(`${words(63)}${' '.repeat(65)}x`, 0)).toBeNull();
  });
});

describe('BM25 pieces', () => {
  it('quantises field lengths like SmallFloat.intToByte4: exact below 40, rounded down above', () => {
    expect([1, 23, 24, 39, 40, 41, 47, 48, 100].map(luceneFieldLength)).toEqual([1, 23, 24, 39, 40, 40, 46, 48, 96]);
  });

  it('computes Lucene idf and the term-frequency part with k1 = 1.2, b = 0.75', () => {
    const statistics = fieldStatistics([['a', 'b'], ['a'], []]);
    expect(statistics).toMatchObject({ docCount: 2, averageLength: 1.5 });
    expect(bm25Idf(statistics, 'a')).toBeCloseTo(Math.log(1 + 0.5 / 2.5), 12);
    expect(bm25Idf(statistics, 'b')).toBeCloseTo(Math.log(1 + 1.5 / 1.5), 12);
    expect(bm25TermFrequency(1, 2, statistics)).toBeCloseTo(1 / (1 + 1.2 * (0.25 + 0.75 * (2 / 1.5))), 12);
  });
});
