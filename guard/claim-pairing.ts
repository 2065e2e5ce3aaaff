// Which texts of one retrieval guard-v2 must parse: those whose candidate lemmas may meet another text's twice.
import { candidateIdsOf, grown, lemmaCount } from './claim-candidates.js';
import type { LoadedLexicon } from './conflict-lexicon.js';

/** Per lemma id: a bit per text of the retrieval that may hold it (cleared after each call). */
let marks = new Int32Array(1024);
const MAX_MARKED = 31;

/**
 * The texts among `texts` whose claim guard-v2 may need: those whose candidates (claim-candidates.ts) may share two
 * content lemmas with another distinct text's. Every other text passes no subject test (`subjectOf` needs two shared
 * content lemmas, and equal texts never conflict), so no conflict test on it can hit, and its parse is skipped.
 */
export function textsThatMayPair(texts: readonly string[], lexicon: LoadedLexicon): Set<string> {
  const distinct = [...new Set(texts)];
  const needed = new Set<string>();
  if (distinct.length < 2) return needed;
  const ids = candidateIdsOf(distinct, lexicon);
  if (distinct.length > MAX_MARKED) return pairedBySets(distinct, ids, needed);
  if (marks.length < lemmaCount()) marks = grown(marks, lemmaCount());
  const touched: number[] = [];
  ids.forEach((own, text) => {
    if (own === null) return;
    for (const id of own) {
      if (marks[id] === 0) touched.push(id);
      marks[id] = marks[id]! | (1 << text);
    }
  });
  // Shared lemmas per pair of texts, counted from the lemmas two or more texts may hold.
  const count = distinct.length;
  const shared = new Uint8Array(count * count);
  for (const id of touched) {
    const held = marks[id]!;
    marks[id] = 0;
    if ((held & (held - 1)) === 0) continue;
    for (let i = 0; i < count; i += 1) {
      if ((held & (1 << i)) === 0) continue;
      for (let j = i + 1; j < count; j += 1) {
        if ((held & (1 << j)) === 0) continue;
        const pair = i * count + j;
        shared[pair] = shared[pair]! + 1;
        if (shared[pair] === 2) {
          needed.add(distinct[i]!);
          needed.add(distinct[j]!);
        }
      }
    }
  }
  // A text whose candidates are not bounded may pair with any other.
  if (ids.includes(null)) for (const text of distinct) needed.add(text);
  return needed;
}

/** The same test pair by pair, for retrievals of more distinct texts than an int has bits. */
function pairedBySets(distinct: string[], ids: (Int32Array | null)[], needed: Set<string>): Set<string> {
  const sets = ids.map((own) => (own === null ? null : new Set(own)));
  for (let i = 0; i < distinct.length; i += 1)
    for (let j = i + 1; j < distinct.length; j += 1) {
      const a = sets[i]!;
      const b = sets[j]!;
      let common = 0;
      if (a !== null && b !== null) for (const id of a) if (b.has(id)) common += 1;
      if (a === null || b === null || common >= 2) {
        needed.add(distinct[i]!);
        needed.add(distinct[j]!);
      }
    }
  return needed;
}
