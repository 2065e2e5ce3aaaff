// `sim-extractor-v3`: the offline, deterministic extraction model for natural mode. It is a simulator:
// natural-mode numbers that used it are simulated and say so. Rules are documented so results can be read.
import { textsConflictV2 } from '../guard/conflict-v2.js';
import type { Consolidation, ExistingMemory, ExtractedEdge, ExtractionModel } from './extraction-model.js';

/** Sentences of a text; a leading "… it states:" preamble is dropped from the sentence it opens. */
export function splitFacts(text: string): string[] {
  return text
    .split(/(?<=[.!?])\s+(?=[A-Z0-9"'`])/)
    .map((sentence) => sentence.replace(/^.*?\bit states:\s*/i, '').trim())
    .filter((sentence) => /[A-Za-z]/.test(sentence));
}

const STOP = new Set(
  'the a an and or of to for in on at by is are be may must can this that with from any all per only its it as not no never'.split(
    ' ',
  ),
);
const words = (text: string) => text.toLowerCase().match(/[a-z0-9$]+/g) ?? [];
const content = (text: string) => new Set(words(text).filter((w) => w.length > 2 && !STOP.has(w)));

// Opposing word pairs, on whole words (the paper's guard list, §10.7, used here only as an extractor heuristic).
const OPPOSITES: [string, string][] = [
  ['never', 'may'],
  ['never', 'permitted'],
  ['never', 'allowed'],
  ['prohibited', 'permitted'],
  ['denied', 'granted'],
  ['deny', 'grant'],
  ['delete', 'retain'],
  ['delete', 'keep'],
  ['immediately', 'first'],
  ['automatically', 'approval'],
  ['waived', 'required'],
  ['waivers', 'requires'],
  ['single', 'dual'],
  ['one', 'two'],
  ['without', 'requires'],
  ['exported', 'never'],
  ['leave', 'internal'],
  ['rolled', 'never'],
  ['all', 'default'],
];
const NEGATIONS = ['never', 'not', 'no', 'without', 'cannot', 'forbidden', 'denied'];

/** v2's rule: at least two shared content words and an opposing word pair, different numbers or negation counts. */
function wordListContradicts(a: string, b: string): boolean {
  const shared = [...content(a)].filter((w) => content(b).has(w)).length;
  if (shared < 2) return false;
  const wa = new Set(words(a));
  const wb = new Set(words(b));
  // A pair opposes only when each side uses its own term and not the other's.
  const opposes = (u: string, v: string) => wa.has(u) && !wb.has(u) && wb.has(v) && !wa.has(v);
  if (OPPOSITES.some(([u, v]) => opposes(u, v) || opposes(v, u))) return true;
  const numbers = (text: string) => (text.match(/\$?\d[\d,]*/g) ?? []).map((n) => n.replace(/,+$/, ''));
  const na = numbers(a);
  const nb = numbers(b);
  if (na.length > 0 && nb.length > 0 && !na.some((n) => nb.includes(n))) return true;
  const negations = (w: string[]) => w.filter((x) => NEGATIONS.includes(x)).length;
  return negations(words(a)) !== negations(words(b));
}

/**
 * The simulator's contradiction judgement (v3): v2's fixed word list (the paper's §10.7 pairs, different numbers,
 * different negation counts, on two shared content words), or guard-v2's conflict test (`guard/conflict-v2.ts`: the
 * same wink-nlp lemmas, negation scope and WordNet-based lexicon) so that it also judges wording the list does not
 * name (issue #29 item 4). The word list stays so that every pair v2 superseded is still superseded.
 */
export function simContradicts(a: string, b: string): boolean {
  return wordListContradicts(a, b) || textsConflictV2(a, b).hit;
}

// The natural-mode episode templates (stale-retrieval.md §5) name a document and a governed system.
const ISSUED = /^(?<doc>.+?), issued in \d{4}, governs (?<subject>.+?)\. (?<body>It states: [\s\S]*)$/;
const REVISED =
  /^(?<doc>.+?) has been revised and now supersedes the \d{4} issue\. For (?<subject>.+?) it states: (?<body>[\s\S]*)$/;

// A write-back decision journal (stale-retrieval.md §12): "Decision record: for {subject}, the approved action is {ACTION}. Rationale: ...".
const JOURNAL = /\bDecision record: for (?<subject>.+?), the approved action is (?<action>[^.\s]+)\. Rationale: /;

function edgesOf(episode: string, referenceTime: Date): ExtractedEdge[] {
  const journal = JOURNAL.exec(episode)?.groups;
  // The agent's log names two entities, the agent's decision and the subject: one edge, the rationale dropped.
  if (journal)
    return [
      {
        source: 'Agent decision log',
        target: journal.subject!,
        relation: 'APPROVED_ACTION',
        fact: `The approved action for ${journal.subject} is ${journal.action}.`,
        validAt: referenceTime,
        invalidAt: null,
      },
    ];
  const match = ISSUED.exec(episode) ?? REVISED.exec(episode);
  // Like Graphiti, a text that names no two distinct entities yields no edge.
  if (!match?.groups) return [];
  const { doc, subject, body } = match.groups as { doc: string; subject: string; body: string };
  return splitFacts(body).map((fact) => ({
    source: doc,
    target: subject,
    relation: 'STATES_POLICY',
    fact,
    validAt: referenceTime,
    invalidAt: null,
  }));
}

function consolidate(existing: readonly ExistingMemory[], message: string): Consolidation {
  const updates: Consolidation['updates'] = [];
  const inserts: string[] = [];
  for (const fact of splitFacts(message)) {
    const target = existing.find(
      (memory) => simContradicts(memory.content, fact) && !updates.some((u) => u.id === memory.id),
    );
    if (target) updates.push({ id: target.id, content: fact });
    else inserts.push(fact);
  }
  return { updates, inserts };
}

/**
 * Creates the simulator's extractor. Facts are sentences; edges link the episode's document and subject (a
 * write-back journal gives one edge from the agent's decision log to its subject, v2 onwards);
 * a candidate is contradicted when `simContradicts` says so; consolidation rewrites a contradicted memory in
 * place and inserts the rest (langmem with deletes off).
 *
 * @example
 * const extraction = createSimExtractionModel();
 * await extraction.extractFacts('A. B.'); // ['A.', 'B.']
 */
export function createSimExtractionModel(): ExtractionModel {
  return {
    id: 'sim-extractor-v3',
    simulated: true,
    extractFacts: async (text) => splitFacts(text),
    extractEdges: async ({ episode, referenceTime }) => edgesOf(episode, referenceTime),
    resolveEdge: async ({ fact, duplicateCandidates, invalidationCandidates }) => {
      const same = (c: ExistingMemory) => c.content.trim().toLowerCase() === fact.trim().toLowerCase();
      return {
        duplicates: duplicateCandidates.filter(same).map((c) => c.id),
        // Like Graphiti's resolve_edge prompt, a contradiction may be flagged in either candidate list.
        contradicted: [...duplicateCandidates, ...invalidationCandidates]
          .filter((c) => !same(c) && simContradicts(c.content, fact))
          .map((c) => c.id),
      };
    },
    consolidate: async ({ existing, message }) => consolidate(existing, message),
  };
}
