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

/**
 * The simulator's contradiction judgement: guard-v2's conflict test (`guard/conflict-v2.ts`, the same wink-nlp lemmas,
 * negation scope and WordNet-based lexicon): the two facts share a subject and one of antonyms, a verb asserted and
 * negated, permission against prohibition, or one unit with no common value opposes them. Until v3 it was a fixed
 * word list (the paper's §10.7 pairs), which missed contradictions in wording it did not list (issue #29 item 4).
 */
export function simContradicts(a: string, b: string): boolean {
  return textsConflictV2(a, b).hit;
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
