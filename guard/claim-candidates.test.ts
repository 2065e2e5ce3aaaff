// guard-v2's parse skip (issue #32 item 1): the candidates must hold every content lemma the parse finds, on any text.
import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import type { Model } from 'wink-nlp';
import { CLAIM_PIPE, claimOf, winkInput } from './claim.js';
import { contentCandidates } from './claim-candidates.js';
import { textsThatMayPair } from './claim-pairing.js';
import { shippedLexicon } from './conflict-lexicon.js';
import { ADVERSARIAL, allTexts, corpusTexts, generatedTexts } from './guard-v2-test-texts.js';
import { reachableTags, tagMovesOf } from './wink-pos-bounds.js';

const lexicon = shippedLexicon();

describe('contentCandidates', () => {
  it('holds every content lemma of the parse (or is unbounded), on every text', () => {
    const texts = allTexts();
    expect(texts.length).toBeGreaterThan(2500);
    let bounded = 0;
    for (const text of texts) {
      const candidates = contentCandidates(text, lexicon);
      if (candidates === null) continue;
      bounded += 1;
      const missing = [...claimOf(text, lexicon).content].filter((lemma) => !candidates.has(lemma));
      expect(missing, text).toEqual([]);
    }
    expect(bounded).toBeGreaterThan(texts.length * 0.9);
  });

  it('holds a word the parser first met in another text (wink-nlp adds `12345` as a word after `x.12345`)', () => {
    const later = '12345 backups and 98765 logs are kept.';
    claimOf('x.12345 backups x.98765 logs', lexicon);
    const candidates = contentCandidates(later, lexicon);
    const missing = [...claimOf(later, lexicon).content].filter((lemma) => !candidates?.has(lemma));
    expect(missing).toEqual([]);
  });

  it('skips runs of tabs and line breaks rightly: wink-nlp makes no word of one, in its lexicon or not', () => {
    const require = createRequire(import.meta.url);
    const winkNLP = require('wink-nlp') as typeof import('wink-nlp').default;
    const model = require('wink-eng-lite-web-model') as Model & {
      core(): { features: { lexeme: { list: unknown[] } } };
    };
    const nlp = winkNLP(model, CLAIM_PIPE);
    const inLexicon = model.core().features.lexeme.list.filter((v) => typeof v === 'string' && /^[\t\r\n]+$/.test(v));
    for (const run of [...(inLexicon as string[]), '\t', '\t\t\t', '\r\n\r\n', '\n\t\r']) {
      const tokens = nlp.readDoc(`alpha${run}beta`).tokens();
      const types = tokens.out(nlp.its.type) as string[];
      const words = (tokens.out(nlp.its.value) as string[]).filter((_, i) => types[i] === 'word');
      expect(words, JSON.stringify(run)).toEqual(['alpha', 'beta']);
    }
  });
});

describe('the tagger bound (wink-pos-bounds.ts)', () => {
  const require = createRequire(import.meta.url);
  const winkNLP = require('wink-nlp') as typeof import('wink-nlp').default;
  type Core = { features: { lexeme: { hash: Record<string, number>; list: unknown[] } }; xpansions: Uint32Array };
  const model = require('wink-eng-lite-web-model') as Model & { core(): Core; pos(): { machines: string[] } };
  const core = model.core();
  const cache = require('wink-nlp/src/cache.js')(core, (model as unknown as { featureFn: unknown }).featureFn) as {
    lookup(text: string): number[] | null;
    normal(index: number): number;
    mappedSpelling(index: number): number;
    posOf(index: number): number;
    property(index: number, name: string): unknown;
    isMemberPOS(index: number, tag: number): boolean;
    intrinsicSize(): number;
  };
  const moves = tagMovesOf(model.pos().machines);

  it('holds the tag wink-nlp gives every token of a lexicon word, on every text', () => {
    const nlp = winkNLP(model, CLAIM_PIPE);
    const tagIds = new Map(
      [
        'UNK',
        'ADJ',
        'ADP',
        'ADV',
        'AUX',
        'CCONJ',
        'DET',
        'INTJ',
        'NOUN',
        'NUM',
        'PART',
        'PRON',
        'PROPN',
        'PUNCT',
        'SPACE',
        'SYM',
        'VERB',
        'X',
        'SCONJ',
      ].map((name, id) => [name, id]),
    );
    let checked = 0;
    for (const text of allTexts()) {
      const tokens = nlp.readDoc(winkInput(text)).tokens();
      const values = tokens.out(nlp.its.value) as string[];
      const tags = tokens.out(nlp.its.pos) as string[];
      const contracted = tokens.out(nlp.its.contractionFlag) as unknown as boolean[];
      values.forEach((value, i) => {
        const index = core.features.lexeme.hash[value];
        if (contracted[i] || index === undefined || index >= cache.intrinsicSize()) return;
        const normal = cache.normal(index);
        const start = cache.posOf(cache.mappedSpelling(index)) || 8;
        const hint = Number(cache.property(index, 'posHint')) || 0;
        const reachable = reachableTags(start, hint, (tag) => cache.isMemberPOS(normal, tag), moves);
        expect(reachable.has(tagIds.get(tags[i]!)!), `${value} as ${tags[i]} in ${text}`).toBe(true);
        checked += 1;
      });
    }
    expect(checked).toBeGreaterThan(10_000);
  });

  it('rests on a model where no expansion has tag 0 (a 0 tag is skipped by the machines, shifting marked tokens)', () => {
    let contractions = 0;
    for (const [value, index] of Object.entries(core.features.lexeme.hash)) {
      if (index >= cache.intrinsicSize()) continue;
      const found = cache.lookup(value);
      if (found === null || found.length === 1) continue;
      contractions += 1;
      for (let k = 3; k < found.length; k += 4) expect(found[k], value).not.toBe(0);
    }
    expect(contractions).toBeGreaterThan(100);
  });

  it('reads a shorter pattern reached only by an `otherwise` edge, and the symbol at each mark', () => {
    type Fsm = { learn(patterns: object[]): number; exportJSON(): string };
    // With a cache, as the model's machines were built: `otherwise` is the number 2070003.
    const fsm = (require('wink-nlp/src/automaton.js') as (cache: unknown) => Fsm)(cache);
    // The longer pattern is learned first; the shorter one, a prefix of it, becomes an `otherwise` fallback.
    fsm.learn([
      { name: '-8', pattern: [5, 7, 9], mark: [1, 1] },
      { name: '-16', pattern: [5, 7], mark: [0, 0] },
      { name: '3', pattern: [4, 6] },
    ]);
    const read = tagMovesOf([fsm.exportJSON()]);
    expect([...read.forced].map(([symbol, tags]) => [symbol, [...tags]]).sort()).toEqual([
      [5, [16]],
      [7, [8]],
    ]);
    expect([...read.allowed].map(([symbol, tags]) => [symbol, [...tags]])).toEqual([[4, [3]]]);
  });

  it('finds no pattern whose marked token its path leaves open, and keeps `the` out of every content tag', () => {
    expect([...moves.anyToken]).toEqual([]);
    const the = core.features.lexeme.hash.the!;
    const normal = cache.normal(the);
    const tags = reachableTags(cache.posOf(the) || 8, 0, (tag) => cache.isMemberPOS(normal, tag), moves);
    expect([...tags]).toEqual([6]);
  });
});

describe('textsThatMayPair', () => {
  it('leaves out only texts that share fewer than two content lemmas with every other text', () => {
    const retrievals = [...corpusTexts(), ADVERSARIAL, generatedTexts(300).slice(0, 60), generatedTexts(300).slice(60)];
    let skipped = 0;
    for (const texts of retrievals) {
      const mayPair = textsThatMayPair(texts, lexicon);
      const distinct = [...new Set(texts)];
      for (const a of distinct) {
        if (mayPair.has(a)) continue;
        skipped += 1;
        const content = claimOf(a, lexicon).content;
        for (const b of distinct) {
          if (b === a) continue;
          const shared = [...claimOf(b, lexicon).content].filter((lemma) => content.has(lemma));
          expect(shared.length, `${a} | ${b}`).toBeLessThan(2);
        }
      }
    }
    expect(skipped).toBeGreaterThan(100);
  });
});
