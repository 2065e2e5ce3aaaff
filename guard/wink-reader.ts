// wink-nlp's readDoc for the claim's pipes, run from its own parts without building the document API (issue #32 item 1).
import { createRequire } from 'node:module';

/** One token as claim.ts reads it: wink-nlp's value, lemma, part of speech, type and negation flag. */
export interface WinkToken {
  value: string;
  /** `its.lemma`, or undefined where it gives none (claim.ts then reads the value). */
  lemma: string | undefined;
  pos: string;
  type: string;
  negated: boolean;
}

/** The read-only part of wink-nlp's lexicon cache (wink-nlp/src/cache.js) that `its.*` and the lemmatiser use. */
export interface WinkCache {
  lookup(text: string): number[] | null;
  value(index: number): string;
  normal(index: number): number;
  mappedSpelling(index: number): number;
  property(index: number, name: string): unknown;
  intrinsicSize(): number;
  posOf(index: number): number;
  isMemberPOS(index: number, tag: number): boolean;
}

/** The English lite model, its core (lexicon, tokeniser patterns, tags) and a lexicon cache built on that core. */
export interface WinkParts {
  theModel: {
    core(): WinkParts['core'];
    sbd(): PipeModel;
    negation(): PipeModel;
    pos(): PipeModel & { updater: (...args: unknown[]) => void };
    featureFn: unknown;
    addons: { lemmatize: (value: string, pos: string, cache: WinkCache) => string };
  };
  core: {
    trex: unknown;
    tcat: { hash: unknown };
    preserve: unknown;
    features: { lexeme: { hash: Record<string, number | undefined> } };
    pos: { list: string[] };
  };
  /** wink-nlp's cache: the reader adds the words outside the lexicon it meets, as readDoc does. */
  cache: WinkCache;
}

function loadWinkParts(): WinkParts {
  const require = createRequire(import.meta.url);
  const theModel = require('wink-eng-lite-web-model') as WinkParts['theModel'];
  const core = theModel.core();
  const createCache = require('wink-nlp/src/cache.js') as (core: unknown, featureFn: unknown) => WinkCache;
  return { theModel, core, cache: createCache(core, theModel.featureFn) };
}

let shared: WinkParts | undefined;

/**
 * The parts claim.ts's reader parses with, loaded on first use (never at import: the model is several MB). The parse
 * skip (wink-chunk-lemmas.ts) reads the same lexicon cache rather than a second copy of the model (7 MB of heap).
 */
export function sharedWinkParts(): WinkParts {
  shared ??= loadWinkParts();
  return shared;
}

/** wink-nlp's constants.posMask: a token's tag bits. */
const POS_MASK = 0x3f00000;

/** A raw document (wink-nlp's `rdd`): what the pipes fill and what `its.*` read. */
type Rdd = Record<string, unknown> & { tokens: number[]; numOfTokens: number; sentences: unknown[] };
type Its = (index: number, rdd: Rdd, addons?: unknown) => unknown;
type Machine = {
  recognize(tokens: unknown, transformer?: unknown, param?: unknown): unknown;
  setPatternSwap(x: unknown): void;
};
type PipeModel = { machines: string[]; transformers: unknown[]; setter: (...args: unknown[]) => void };

/**
 * Reads `text` with the `sbd`, `negation` and `pos` pipes exactly as `readDoc` does (wink-nlp/src/wink-nlp.js 2.4.0:
 * the same tokeniser, machines, setters and order, on a cache of its own), then reads each token with the same `its`
 * functions `tokens().out()` calls. What it leaves out: the `Doc` API object and the five arrays of `out()`, a third
 * of the cost of a text. wink-reader.test.ts compares it with `readDoc` on every text the guard's tests use.
 */
export function createWinkReader(parts: WinkParts = loadWinkParts()): (text: string) => WinkToken[] {
  const require = createRequire(import.meta.url);
  const source = (file: string) => require(`wink-nlp/src/${file}`) as never;
  const { theModel, core, cache } = parts;
  const trex = (source('compile-trex.js') as (t: unknown) => unknown)(core.trex);
  const tokenize = (source('tokenizer.js') as (...a: unknown[]) => (doc: unknown, text: string) => void)(
    trex,
    core.tcat.hash,
    core.preserve,
  );
  const fsm = source('automaton.js') as (cache: unknown, ignore?: unknown) => Machine & { importJSON(j: string): void };
  const machines = (model: PipeModel, ignore?: unknown) =>
    model.machines.map((json) => {
      const machine = ignore === undefined ? fsm(cache) : fsm(cache, ignore);
      machine.importJSON(json);
      return machine;
    });
  const sbd = theModel.sbd();
  const sbdMachines = machines(sbd);
  const negation = theModel.negation();
  const [negationMachine] = machines(negation);
  const pos = theModel.pos();
  const posMachines = machines(pos, cache.value(0));
  const wrap = source('dd-wrapper.js') as (rdd: Rdd) => { clean(): void };
  const mappers = source('tokens-mappers.js') as Record<string, (rdd: Rdd) => unknown[]>;
  const constants = source('constants.js') as { tkSize: number; bits4lemma: number };
  const search = source('search.js');
  const its = source('its.js') as Record<'value' | 'lemma' | 'pos' | 'type' | 'negationFlag', Its>;
  const currPipe = { sbd: true, negation: true, pos: true };
  const addons = theModel.addons;
  // `its.lemma` of a token that is no contraction's expansion is a function of its lexeme and tag alone (the mapped
  // spelling, single lemma and normal of a lexeme never change once it is in the cache; lemmatize reads only the
  // model's own lexicon), so it is kept by both.
  const lemmas = new Map<number, string | undefined>();
  const LEMMA_LIMIT = 1 << 16;

  return (text) => {
    const rdd = {
      cache,
      wordVectors: null,
      tokens: [],
      sentences: [],
      markings: [],
      currPipe,
      nonBreakingSpaces: Object.create(null),
    } as unknown as Rdd;
    const wrapped = wrap(rdd);
    tokenize(wrapped, text);
    rdd.numOfTokens = rdd.tokens.length / constants.tkSize;
    rdd.document = [0, rdd.numOfTokens - 1, 0, 0];
    const tokens4Automata = mappers.mapRawTokens2UIdOfNormal!(rdd);
    let px: unknown = null;
    sbdMachines.forEach((machine, i) => {
      machine.setPatternSwap(px);
      px = machine.recognize(tokens4Automata, sbd.transformers[i], rdd.tokens);
    });
    sbd.setter(px, rdd);
    rdd.numOfSentences = rdd.sentences.length;
    rdd.entities = [];
    negation.setter(negationMachine!.recognize(tokens4Automata), rdd, constants, search);
    const posTags = mappers.mapRawTokens2UIdOfDefaultPOS!(rdd);
    for (const machine of posMachines)
      pos.updater(machine.recognize(posTags, pos.transformers[0], rdd.tokens), cache, posTags, tokens4Automata);
    pos.setter(rdd, posTags, constants.tkSize, constants.bits4lemma);
    rdd.customEntities = [];
    wrapped.clean();
    const read: WinkToken[] = new Array(rdd.numOfTokens);
    const raw = rdd.tokens;
    if (lemmas.size > LEMMA_LIMIT) lemmas.clear();
    for (let i = 0; i < rdd.numOfTokens; i += 1) {
      let lemma: string | undefined;
      if (raw[i * 4 + 1]! > 65535) lemma = its.lemma(i, rdd, addons) as string | undefined;
      else {
        const key = raw[i * 4]! * 64 + ((raw[i * 4 + 2]! & POS_MASK) >>> constants.bits4lemma);
        lemma = lemmas.get(key);
        if (lemma === undefined && !lemmas.has(key)) {
          lemma = its.lemma(i, rdd, addons) as string | undefined;
          lemmas.set(key, lemma);
        }
      }
      read[i] = {
        value: its.value(i, rdd) as string,
        lemma,
        pos: its.pos(i, rdd) as string,
        type: its.type(i, rdd) as string,
        negated: its.negationFlag(i, rdd) as boolean,
      };
    }
    return read;
  };
}
