// Bench rows for the stale-retrieval guard, run as the pipeline runs it (the registry's `guard` screen on the records
// a read returned): µs per k=10 retrieval on the fixed corpus, and one 10k-record array.
import { loadavg } from 'node:os';
import type { MemoryRecord } from '../../backends/memory-backend.js';
import type { GuardInput } from '../../guard/guard-record.js';
import type { ScreenVerdict } from '../defences/defence-v1.js';
import { screenOf } from '../defences/index.js';
import { runSpecGuard, type FreshRun, type SpecGuardRun } from './bench-guard-python.js';
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
  freshTextsMicrosPerRetrieval: number;
  /** CPU µs per retrieval with every text new to the process (see `RetrievalTiming`). */
  freshTextsCpuMicrosPerRetrieval: number;
  /** The spec's guard in Python (pipeline/bench/guard_spec.py) on the same fresh retrievals, in a child process. */
  python: SpecGuardRun;
  /** os.loadavg() right after the guard rows were measured (1, 5, 15 minutes). */
  loadAverage: number[];
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

/**
 * Record `record` with its text made new to the process by a prefix of whitespace spelling `n` in binary (a tab for
 * 1, a space for 0, after a leading tab): neither guard reads leading whitespace (no word, digit or cue; guard-v2's
 * tokeniser skips it), so every verdict stays, which `timeRetrievals` checks on every retrieval.
 */
function freshlyPrefixed(record: GuardInput, n: number): GuardInput {
  const prefix = `\t${n.toString(2).replaceAll('1', '\t').replaceAll('0', ' ')}`;
  return typeof record === 'string' ? prefix + record : { ...record, fact: `${prefix}${String(record.fact)}` };
}

/** Prefix numbers not used yet in this process, so no text of a fresh pass was ever seen before. */
let nextFreshTag = 1;

/** Corpus records as a store's read returns them: `{fact, ...fields}` → text `fact` plus the fields; a string → text. */
export function asMemoryRecords(records: readonly GuardInput[]): MemoryRecord[] {
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
  /** µs per retrieval over texts seen before, best of 3 repeats of `seenPasses` passes. */
  microsPerRetrieval: number;
  /**
   * µs per retrieval when every text is new to the process (every retrieval of every pass given texts never seen
   * before, the code already warm): the cost without any per-text cache hit, best of 3 repeats of `passes` passes.
   */
  freshTextsMicrosPerRetrieval: number;
  /**
   * CPU µs per retrieval with every text new (`process.cpuUsage` around the same timed passes, best of the 3
   * repeats): every thread of the process, so Node's concurrent GC and compiler threads count; less sensitive to load.
   */
  freshTextsCpuMicrosPerRetrieval: number;
  /** Passes per repeat with every text new. */
  passes: number;
  /** Passes per repeat over texts seen before (as many as the guard's row, so both are timed as warm). */
  seenPasses: number;
  /** Records the screen withheld over one pass of the corpus. */
  withheldPerPass: number;
  /** os.loadavg() right after this row was measured (1, 5, 15 minutes). */
  loadAverage: number[];
}

/** What a verdict says apart from the texts (which the fresh prefix changes): kept, withheld by reason, notes. */
const verdictShape = (verdict: ScreenVerdict): string =>
  JSON.stringify([verdict.kept, verdict.withheld.map((w) => [w.index, w.reason, w.stage]), verdict.notes]);

/** Times a registered defence's screen over the corpus retrievals, as the grid calls it. */
export function timeRetrievals(
  defence: string,
  inputs: readonly GuardInput[][],
  passes: number,
  fresh?: FreshRun,
  seenPasses = passes,
): RetrievalTiming {
  const screen = screenOf(defence);
  const now = new Date(GUARD_CORPUS_NOW);
  const corpus = inputs.map(asMemoryRecords);
  let withheldPerPass = 0;
  const shapes: string[] = [];
  const first = process.hrtime.bigint();
  for (const records of corpus) {
    const verdict = screen({ records, now });
    withheldPerPass += verdict.withheld.length;
    shapes.push(verdictShape(verdict));
  }
  const firstPassMicrosPerRetrieval = (msSince(first) * 1000) / corpus.length;
  let best = Number.POSITIVE_INFINITY;
  for (let repeat = 0; repeat < 3; repeat += 1) {
    const start = process.hrtime.bigint();
    for (let pass = 0; pass < seenPasses; pass += 1) for (const records of corpus) screen({ records, now });
    best = Math.min(best, (msSince(start) * 1000) / (seenPasses * corpus.length));
  }
  let freshBest = Number.POSITIVE_INFINITY;
  let freshCpuBest = Number.POSITIVE_INFINITY;
  for (let repeat = 0; repeat < 3; repeat += 1) {
    const passTexts: string[] = [];
    const verdictTexts: string[] = [];
    let nanoseconds = 0n;
    let cpuMicros = 0;
    let timed = 0;
    // One pass of fresh retrievals at a time, timed and summed: each pass's records were just built, as a retrieval
    // just parsed is (a batch of every pass built ahead would time its own cache misses and young-generation copies).
    for (let pass = 0; pass < passes; pass += 1) {
      const retrievals = inputs.map((records) => {
        const tag = nextFreshTag++;
        return records.map((record) => freshlyPrefixed(record, tag));
      });
      // Through JSON, as retrievals arrive: each text a flat string, not the concatenation a prefix made (a rope that
      // the first read of a character would flatten inside the timed loop, which no parsed retrieval ever costs).
      const renamed = JSON.parse(JSON.stringify(retrievals.map(asMemoryRecords))) as MemoryRecord[][];
      const verdicts = new Array<ScreenVerdict>(renamed.length);
      const cpuStart = process.cpuUsage();
      const start = process.hrtime.bigint();
      for (let at = 0; at < renamed.length; at += 1) verdicts[at] = screen({ records: renamed[at]!, now });
      nanoseconds += process.hrtime.bigint() - start;
      const cpu = process.cpuUsage(cpuStart);
      cpuMicros += cpu.user + cpu.system;
      timed += renamed.length;
      // The prefixes must leave every verdict as it was, or this row would time other work.
      verdicts.forEach((verdict, at) => {
        if (verdictShape(verdict) !== shapes[at])
          throw new Error(`bench ${defence}: the fresh copy of retrieval ${at} changed its verdict`);
      });
      // Kept for the Python row as text: retained objects would make the next passes' collections slower.
      if (fresh) {
        passTexts.push(JSON.stringify(retrievals));
        verdictTexts.push(JSON.stringify(verdicts));
      }
    }
    freshBest = Math.min(freshBest, Number(nanoseconds) / 1000 / timed);
    freshCpuBest = Math.min(freshCpuBest, cpuMicros / timed);
    fresh?.groups.push(passTexts);
    fresh?.verdicts.push(verdictTexts);
  }
  return {
    defence,
    firstPassMicrosPerRetrieval,
    microsPerRetrieval: best,
    freshTextsMicrosPerRetrieval: freshBest,
    freshTextsCpuMicrosPerRetrieval: freshCpuBest,
    passes,
    seenPasses,
    withheldPerPass,
    loadAverage: loadavg(),
  };
}

/** Runs the guard rows (the array has 10,000 records, or 2,000 with `quick`) and the spec's guard in Python. */
export function benchGuard(root: string, inputs: readonly GuardInput[][], quick: boolean): GuardBench {
  const screen = screenOf('guard');
  const now = new Date(GUARD_CORPUS_NOW);
  const k = inputs[0]?.length ?? 0;
  const fresh: FreshRun = { groups: [], verdicts: [] };
  const {
    firstPassMicrosPerRetrieval,
    microsPerRetrieval: best,
    freshTextsMicrosPerRetrieval,
    freshTextsCpuMicrosPerRetrieval,
    passes,
    loadAverage,
  } = timeRetrievals('guard', inputs, quick ? 2 : 20, fresh);
  const python = runSpecGuard(
    root,
    fresh,
    GUARD_CORPUS_NOW,
    freshTextsMicrosPerRetrieval,
    freshTextsCpuMicrosPerRetrieval,
  );
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
    freshTextsCpuMicrosPerRetrieval,
    passes,
    python,
    loadAverage,
    array: {
      records: array.length,
      distinctTexts: new Set(array.map((r) => r.text)).size,
      ms,
      withheld: verdict.withheld.length,
    },
  };
}
