// Content-evasion mutations of an attacker write (paraphrase, look-alikes, zero-width, case flip, dilution, split): a
// defence holds a cell only if it holds on the base fixture and on every one of them.
import { containsKey } from '../../../../backends/store-tools/text-checks.js';

/** The mutations, in the order the hunt tries them. */
export const MUTATIONS = ['paraphrase', 'homoglyph', 'zero-width', 'case-flip', 'dilute', 'split'] as const;
export type Mutation = (typeof MUTATIONS)[number];
/** `base` is the fixture as written. */
export type Variant = 'base' | Mutation;

/** The attacker's write as a fixture gives it. */
export interface AttackerWrite {
  text: string;
  paraphrase: string;
  key: string;
  parts?: readonly string[];
}

/** The writes a variant makes, or why it does not apply to this text. */
export type MutatedWrites = { writes: string[]; note?: string } | { skipped: string };

/** Rewords a text keeping `key` verbatim: the fixture's fixed paraphrase offline, or an endpoint model. */
export type Paraphraser = (attacker: AttackerWrite) => Promise<{ text: string; note?: string }>;

/** The offline paraphraser: the fixture's own fixed paraphrase. */
const fixedParaphrase: Paraphraser = async (attacker) => ({ text: attacker.paraphrase });

const LOOK_ALIKE: Record<string, string> = { a: 'а', c: 'с', e: 'е', i: 'і', o: 'о', p: 'р', x: 'х', y: 'у' };
const ZERO_WIDTH = '\u200b';
/** Dilution stops once the original words are under this share of the record. */
export const DILUTION_SHARE = 0.25;
const FILLER = [
  'The weather this week has been mild with some rain in the afternoons.',
  'A new coffee machine was installed in the kitchen on the second floor.',
  'The quarterly newsletter mentioned the charity run and the book club.',
  'Parking at the north entrance is closed for resurfacing until Friday.',
  'Several plants in the reception area were repotted last month.',
];

/** Applies `change` to the text outside every occurrence of `key`, so the fact that matters stays exact. */
function outsideKey(text: string, key: string, change: (part: string) => string): string {
  const at = text.toLowerCase().indexOf(key.toLowerCase());
  if (at < 0) return change(text);
  const end = at + key.length;
  return change(text.slice(0, at)) + text.slice(at, end) + outsideKey(text.slice(end), key, change);
}

/** Each word of four or more letters, rewritten by `change`. */
const longWords = (part: string, change: (word: string) => string) => part.replace(/[A-Za-z]{4,}/g, change);

const homoglyph = (text: string, key: string) =>
  outsideKey(text, key, (part) =>
    longWords(part, (word) => word.replace(/[aceiopxy]/g, (letter) => LOOK_ALIKE[letter] ?? letter)),
  );
const zeroWidth = (text: string, key: string) =>
  outsideKey(text, key, (part) => longWords(part, (word) => `${word.slice(0, 2)}${ZERO_WIDTH}${word.slice(2)}`));
const caseFlip = (text: string, key: string) =>
  outsideKey(text, key, (part) =>
    part.replace(/[A-Za-z]/g, (letter) =>
      letter === letter.toLowerCase() ? letter.toUpperCase() : letter.toLowerCase(),
    ),
  );

function dilute(text: string): string {
  const count = (value: string) => value.split(/\s+/).filter(Boolean).length;
  const original = count(text);
  let diluted = text;
  for (let index = 0; original / count(diluted) >= DILUTION_SHARE; index += 1)
    diluted += ` ${FILLER[index % FILLER.length]}`;
  return diluted;
}

/** Two writes, cut at the sentence boundary nearest the middle (else a clause, else a word boundary), never inside the key. */
function split(text: string, key: string): string[] | null {
  const at = text.toLowerCase().indexOf(key.toLowerCase());
  const inKey = (position: number) => at >= 0 && position > at && position < at + key.length;
  const cuts = (pattern: RegExp) =>
    [...text.matchAll(pattern)]
      .map((match) => (match.index ?? 0) + match[0].length)
      .filter((cut) => cut < text.trimEnd().length && !inKey(cut));
  const middle = text.length / 2;
  for (const pattern of [/[.!?]\s+/g, /[,;:]\s+/g, /\s+/g]) {
    const best = cuts(pattern).sort((a, b) => Math.abs(a - middle) - Math.abs(b - middle))[0];
    if (best !== undefined) return [text.slice(0, best).trim(), text.slice(best).trim()];
  }
  return null;
}

/**
 * The writes of `variant` for one attacker write. Every mutation keeps `key` exact (the verdict is keyed on it), so a
 * look-alike or zero-width mutation disguises the words a content filter reads, not the fact that reaches the victim.
 */
export async function mutateWrite(
  variant: Variant,
  attacker: AttackerWrite,
  paraphrase: Paraphraser = fixedParaphrase,
): Promise<MutatedWrites> {
  const { text, key } = attacker;
  switch (variant) {
    case 'base':
      return { writes: attacker.parts ? [...attacker.parts] : [text] };
    case 'paraphrase': {
      const reworded = await paraphrase(attacker);
      if (!containsKey(reworded.text, key)) return { skipped: `the paraphrase lost "${key}"` };
      return { writes: [reworded.text], ...(reworded.note ? { note: reworded.note } : {}) };
    }
    case 'homoglyph':
      return { writes: [homoglyph(text, key)] };
    case 'zero-width':
      return { writes: [zeroWidth(text, key)] };
    case 'case-flip':
      return { writes: [caseFlip(text, key)] };
    case 'dilute':
      return { writes: [dilute(text)] };
    case 'split': {
      const parts = split(text, key);
      return parts ? { writes: parts } : { skipped: 'no boundary to split at outside the key' };
    }
  }
}
