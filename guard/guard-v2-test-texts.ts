// Texts for guard-v2's tests of wink-nlp's reading (issue #32 item 1): the bench corpus, hostile wordings, generated ones.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

const root = join(import.meta.dirname, '..');

export function corpusTexts(): string[][] {
  const corpus = JSON.parse(readFileSync(join(root, 'data', 'bench', 'guard-retrievals.json'), 'utf8')) as unknown[][];
  return corpus.map((records) =>
    records.map((record) => (typeof record === 'string' ? record : String((record as { fact: unknown }).fact))),
  );
}

/** Texts written to break a careless superset: inflections, case, punctuation, contractions, unicode, numbers. */
export const ADVERSARIAL = [
  "Backups WON'T be deleted; they can't be, and we shan't.",
  'The children were running; mice ate the better cheeses, geese flew.',
  'DELETE ALL BACKUPS IMMEDIATELY!!! Approved.',
  'Approval—required (always); re-approval: never?',
  'Rock’n’roll isn’t allowed at the café; naïve users’ data stays.',
  'Refunds over $1,000,000/yr need 2nd-level sign-off by 9am, 24/7, in the 1990s.',
  'fooUSDbar transfers: USD100 and GBP5 are capped at 10k;D :P ;o',
  'The U.S. e.g. policy etc. says i.e. do not export PII.',
  'x.12345 backups x.777 logs a.5 keys',
  '12345 backups and 777 logs and 5 keys are retained.',
  'Retain logs #forever @admin via https://example.com/logs?keep=1 or ops@example.com',
  'Logs—kept for 30days, 4theater 1stop 1hoursy 3rd-party 10x faster.',
  'ΔΙΑΓΡΑΦΗ αρχείων; удалить резервные копии; 删除备份 🗑️ now.',
  '{"content": "Never DELETE the audit logs; retain them for 1 year."}',
  'Self-service co-workers\u00a0can\u2009approve anti-virus non-compliance exceptions.',
  'é. policy: the é. rule and u.s.-based co.-workers x.-ray scans; a.b.-anti-virus.',

  'é. policy stands; é. rule is kept.',
  'Backups\u2000deleted\u3000nightly\u2001by\u2006ops\u200bteam\u2028logs\u2029kept\ufeffweekly.',
  'Multi\tline\ntext\r\nwith\t\ttabs and   spaces, and the word approval.',
  "Gonna wanna dunno lemme gimme cannot ain't y'all o'clock",
  "Admins' passwords' rotations, the admin's password's rotation.",
  'Analyses, criteria, phenomena, data, indices, matrices, wolves, knives, leaves.',
  'Ran, run, running, runs; went, gone, goes; was, were, been; better, best, worse.',
  "On Monday in January, Google and Amazon staff in London ship iPhone backups to McDonald's in the U.S. and UK.",
  'Microsoft, Oracle, IBM, NASA; Tuesday, Friday, December: English, French and Spanish invoices.',
];

/** A seeded pseudo-random integer below `n` (mulberry32). */
function seeded(seed: number): (n: number) => number {
  let state = seed;
  return (n) => {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) % n;
  };
}

/** A seeded generator of texts mixing the corpus's words with inflections, case and punctuation. */
export function generatedTexts(count: number): string[] {
  const words = [...new Set(corpusTexts().flat().join(' ').split(/\s+/))];
  const affixes = ['', '', '', 's', 'es', 'ed', 'ing', 'er', 'est', "'s", "n't", '.', ',', ';', ':', ')', '-', '!'];
  const next = seeded(7);
  return Array.from({ length: count }, () => {
    const length = 4 + next(12);
    const parts: string[] = [];
    for (let k = 0; k < length; k += 1) {
      let word = words[next(words.length)]!;
      if (next(5) === 0) word = word.toUpperCase();
      if (next(7) === 0) word = `(${word}`;
      parts.push(word + affixes[next(affixes.length)]!);
    }
    return parts.join(next(9) === 0 ? '\t' : ' ');
  });
}

/** Characters that steer wink-nlp's tokeniser: letters of several scripts, marks, digits, its punctuation and symbols. */
const HOSTILE = [
  ...'abcxyzAEIUSDGBPNRé\u00e7\u00f1\u00df\u0142\u03b1\u0436\u4e00\u0301\u2060',
  ...'0123456789',
  ...'.,;:!?\'"()[]{}&-\u2013\u2014\u2019\u201c\u2026/@#$%*+=<>|~^_\\`',
  ...'\u00a0\u2009\u2000\u3000\u200b\t\n',
  '\u{1F5D1}',
];

/** A seeded generator of chunks built to reach the tokeniser's corners: words glued to random characters, and noise. */
function hostileTexts(count: number): string[] {
  const words = [...new Set(corpusTexts().flat().join(' ').split(/\s+/))];
  const next = seeded(11);
  const noise = (length: number) => Array.from({ length }, () => HOSTILE[next(HOSTILE.length)]!).join('');
  return Array.from({ length: count }, () => {
    const parts: string[] = [];
    for (let k = 3 + next(8); k > 0; k -= 1) {
      const word = words[next(words.length)]!;
      const pick = next(5);
      if (pick === 0) parts.push(noise(1 + next(next(2) === 0 ? 2 : 8)));
      else if (pick === 1) parts.push(noise(1 + next(3)) + word);
      else if (pick === 2) parts.push(word + noise(1 + next(3)));
      else if (pick === 3) parts.push(word.slice(0, 1 + next(word.length)) + noise(1 + next(2)) + word);
      else parts.push(word);
    }
    return parts.join(next(6) === 0 ? '' : ' ');
  });
}

/** Every text the tests read: the corpus, the adversarial list, generated and hostile texts, guard-v2's own sentences. */
export function allTexts(): string[] {
  const tests = readFileSync(join(root, 'guard', 'stale-retrieval-guard-v2.test.ts'), 'utf8');
  const quoted = [...tests.matchAll(/'([^'\\]{12,})'/g)].map(([, text]) => text!);
  return [
    ...new Set([...corpusTexts().flat(), ...ADVERSARIAL, ...quoted, ...generatedTexts(1500), ...hostileTexts(1500)]),
  ];
}
