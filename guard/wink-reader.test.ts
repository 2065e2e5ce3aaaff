// wink-reader.ts against wink-nlp's own readDoc (issue #32 item 1): the same tokens, lemmas, tags, types, negation.
import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import type { Model } from 'wink-nlp';
import { CLAIM_PIPE, winkInput } from './claim.js';
import { allTexts } from './guard-v2-test-texts.js';
import { createWinkReader } from './wink-reader.js';

const require = createRequire(import.meta.url);
const winkNLP = require('wink-nlp') as typeof import('wink-nlp').default;

describe('createWinkReader', () => {
  it('reads every text as readDoc(text).tokens().out(…) does, then again from its caches', () => {
    const nlp = winkNLP(require('wink-eng-lite-web-model') as Model, CLAIM_PIPE);
    const its = nlp.its;
    const read = createWinkReader();
    const texts = allTexts().flatMap((text) => [text, winkInput(text)]);
    expect(texts.length).toBeGreaterThan(3000);
    for (const pass of [1, 2])
      for (const text of pass === 1 ? texts : texts.slice(0, 1000)) {
        const tokens = nlp.readDoc(text).tokens();
        const fields = [its.value, its.lemma, its.pos, its.type, its.negationFlag].map((field) =>
          tokens.out(field as never),
        ) as unknown[][];
        const expected = fields[0]!.map((value, i) => ({
          value,
          lemma: fields[1]![i],
          pos: fields[2]![i],
          type: fields[3]![i],
          negated: fields[4]![i],
        }));
        expect(read(text), `pass ${pass}: ${text}`).toEqual(expected);
      }
  });
});
