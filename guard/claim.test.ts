// guard-v2's claims read wink-nlp through a smaller pipe set (CLAIM_PIPE): the same tokens as the default set.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Model } from 'wink-nlp';
import { CLAIM_PIPE } from './claim.js';

const require = createRequire(import.meta.url);
const winkNLP = require('wink-nlp') as typeof import('wink-nlp').default;
const model = require('wink-eng-lite-web-model') as Model;
const root = join(import.meta.dirname, '..');

/** Every text of the bench corpus and every quoted sentence of guard-v2's tests. */
function texts(): string[] {
  const corpus = JSON.parse(readFileSync(join(root, 'data', 'bench', 'guard-retrievals.json'), 'utf8')) as unknown[][];
  const found = new Set<string>();
  for (const record of corpus.flat())
    found.add(typeof record === 'string' ? record : String((record as { fact: unknown }).fact));
  const tests = readFileSync(join(root, 'guard', 'stale-retrieval-guard-v2.test.ts'), 'utf8');
  for (const [, text] of tests.matchAll(/'([^'\\]{12,})'/g)) found.add(text!);
  return [...found];
}

describe('CLAIM_PIPE', () => {
  it('reads the same values, lemmas, tags, types and negation flags as the default pipe set', () => {
    const full = winkNLP(model);
    const small = winkNLP(model, CLAIM_PIPE);
    const read = (nlp: typeof full, text: string) => {
      const tokens = nlp.readDoc(text).tokens();
      const its = nlp.its;
      return [its.value, its.lemma, its.pos, its.type, its.negationFlag].map((field) => tokens.out(field as never));
    };
    const all = texts();
    expect(all.length).toBeGreaterThan(50);
    for (const text of all) expect(read(small, text), text).toEqual(read(full, text));
  });
});
