// Bench rows for the stale-retrieval guard, run as the pipeline runs it (the registry's `guard` screen on the records
// a read returned): µs per k=10 retrieval on the fixed corpus, and one 10k-record array.
import type { MemoryRecord } from '../../backends/memory-backend.js';
import type { GuardInput } from '../../guard/guard-record.js';
import { screenOf } from '../defences/index.js';
import { GUARD_CORPUS_NOW } from './guard-corpus.js';

/** Milliseconds since `start` (a `process.hrtime.bigint()` value). */
export const msSince = (start: bigint): number => Number(process.hrtime.bigint() - start) / 1e6;

/** The guard rows. */
export interface GuardBench {
  /** Retrievals in the corpus and records in each. */
  retrievals: number;
  k: number;
  /** µs per retrieval on the first pass over the corpus (every text and time string new to the process). */
  firstPassMicrosPerRetrieval: number;
  /** µs per retrieval, minimum over 3 repeats of `passes` passes (texts and time strings seen before, as in a grid). */
  microsPerRetrieval: number;
  /** µs per retrieval with every text new to the process (see `RetrievalTiming`). */
  freshTextsMicrosPerRetrieval: number | null;
  passes: number;
  /** Records in the one large array, distinct texts among them, and the guard's wall time on it. */
  array: { records: number; distinctTexts: number; ms: number; withheld: number };
}

/**
 * The large array: the corpus's records repeated until `size`, as a store returns the same facts again under new
 * ids: each copy's text is made distinct by a tag of two-letter words (`[qx-ab]`: no content word, digit or cue, so
 * the conflict test reads it as the original), so the guard tokenises `size` distinct texts.
 */
export function largeGuardArray(corpus: readonly GuardInput[][], size: number): GuardInput[] {
  const records = corpus.flat();
  return Array.from({ length: size }, (_, index) => tagged(records[index % records.length]!, index));
}

/** The record with ` [ab-cd]` (tag `n` in base 26) after its text: a new text the conflict test reads as the original. */
function tagged(record: GuardInput, n: number): GuardInput {
  let tag = '';
  for (let rest = n; tag.length < 4; rest = Math.floor(rest / 26)) tag += String.fromCharCode(97 + (rest % 26));
  const suffix = ` [${tag.slice(0, 2)}-${tag.slice(2)}]`;
  return typeof record === 'string' ? record + suffix : { ...record, fact: `${String(record.fact)}${suffix}` };
}

/** Tags the large array (0 … size − 1) does not use: fresh texts for each pass of `timeRetrievals` (26⁴ in all). */
let nextFreshTag = 200_000;

/** Corpus records as a store's read returns them: `{fact, ...fields}` → text `fact` plus the fields; a string → text. */
function asMemoryRecords(records: readonly GuardInput[]): MemoryRecord[] {
  return records.map((record, index) => {
    if (typeof record === 'string') return { id: `r${index}`, text: record, fields: {} };
    const { fact, ...fields } = record;
    return { id: `r${index}`, text: String(fact), fields: fields as MemoryRecord['fields'] };
  });
}

/** One defence's screen per k=10 retrieval on the corpus: the first pass, then the best of 3 repeats. */
export interface RetrievalTiming {
  /** The registered defence measured (`guard`, `guard-v2`). */
  defence: string;
  firstPassMicrosPerRetrieval: number;
  microsPerRetrieval: number;
  /**
   * µs per retrieval when every text is new to the process (each pass's texts tagged afresh, the code already warm):
   * the cost without the per-text feature cache's hits, best of 3 repeats of `passes` passes. Null when not
   * measured (guard-v2 reads the two-letter tags as words, so its verdicts would change).
   */
  freshTextsMicrosPerRetrieval: number | null;
  passes: number;
  /** Records the screen withheld over one pass of the corpus. */
  withheldPerPass: number;
}

/** Times a registered defence's screen over the corpus retrievals, as the grid calls it. */
export function timeRetrievals(
  defence: string,
  inputs: readonly GuardInput[][],
  passes: number,
  options: { freshTexts?: boolean } = {},
): RetrievalTiming {
  const screen = screenOf(defence);
  const now = new Date(GUARD_CORPUS_NOW);
  const corpus = inputs.map(asMemoryRecords);
  let withheldPerPass = 0;
  const first = process.hrtime.bigint();
  for (const records of corpus) withheldPerPass += screen({ records, now }).withheld.length;
  const firstPassMicrosPerRetrieval = (msSince(first) * 1000) / corpus.length;
  let best = Number.POSITIVE_INFINITY;
  for (let repeat = 0; repeat < 3; repeat += 1) {
    const start = process.hrtime.bigint();
    for (let pass = 0; pass < passes; pass += 1) for (const records of corpus) screen({ records, now });
    best = Math.min(best, (msSince(start) * 1000) / (passes * corpus.length));
  }
  let fresh = Number.POSITIVE_INFINITY;
  for (let repeat = 0; options.freshTexts && repeat < 3; repeat += 1) {
    const renamed = Array.from({ length: passes }, () => {
      const tag = nextFreshTag++;
      return inputs.map((records) => asMemoryRecords(records.map((record) => tagged(record, tag))));
    });
    let withheld = 0;
    const start = process.hrtime.bigint();
    for (const pass of renamed) for (const records of pass) withheld += screen({ records, now }).withheld.length;
    fresh = Math.min(fresh, (msSince(start) * 1000) / (passes * corpus.length));
    // The tags must leave every verdict as it was, or this row would time other work.
    if (withheld !== withheldPerPass * passes)
      throw new Error(`bench ${defence}: tagged texts withheld ${withheld}, expected ${withheldPerPass * passes}`);
  }
  return {
    defence,
    firstPassMicrosPerRetrieval,
    microsPerRetrieval: best,
    freshTextsMicrosPerRetrieval: options.freshTexts ? fresh : null,
    passes,
    withheldPerPass,
  };
}

/** Runs the guard rows (the array has 10,000 records, or 2,000 with `quick`). */
export function benchGuard(inputs: readonly GuardInput[][], quick: boolean): GuardBench {
  const screen = screenOf('guard');
  const now = new Date(GUARD_CORPUS_NOW);
  const k = inputs[0]?.length ?? 0;
  const {
    firstPassMicrosPerRetrieval,
    microsPerRetrieval: best,
    freshTextsMicrosPerRetrieval,
    passes,
  } = timeRetrievals('guard', inputs, quick ? 2 : 20, { freshTexts: true });
  const array = asMemoryRecords(largeGuardArray(inputs, quick ? 2_000 : 10_000));
  const start = process.hrtime.bigint();
  const verdict = screen({ records: array, now });
  const ms = msSince(start);
  return {
    retrievals: inputs.length,
    k,
    firstPassMicrosPerRetrieval,
    microsPerRetrieval: best,
    freshTextsMicrosPerRetrieval,
    passes,
    array: {
      records: array.length,
      distinctTexts: new Set(array.map((r) => r.text)).size,
      ms,
      withheld: verdict.withheld.length,
    },
  };
}
