// pnpm 12 keeps `pnpm view` (package metadata from the registry) and `pnpm cache` (its store) for itself: a script of
// that name runs only as `pnpm run view` / `pnpm run cache` (measured on pnpm 12.25: `pnpm view x` asked the registry,
// `pnpm run view x` ran the script; `clean` is a built-in a script does override). Every text a user reads spells
// them with `run`.
import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '..', '..');
/** Script names pnpm 12 runs its own command for when typed without `run`. */
const SHADOWED = ['view', 'cache'];
const SPELLED = new RegExp(`pnpm (${SHADOWED.join('|')})\\b`);
/** A line about pnpm itself (`pnpm 12 keeps …`, `pnpm 12's own …`) names its commands on purpose. */
const ABOUT_PNPM = /pnpm 12\b/;
const THIS_FILE = join('pipeline', 'cli', 'script-names.test.ts');

function texts(): string[] {
  const folders = ['pipeline', 'analysis', 'guard', 'backends', 'scenarios', 'notebooks', 'data', '.github'];
  const files = folders.flatMap((folder) =>
    readdirSync(join(ROOT, folder), { recursive: true, encoding: 'utf8' })
      .map((path) => join(folder, path))
      .filter((path) => /\.(ts|md|ya?ml)$/.test(path) && !path.includes('node_modules') && !path.includes('.cache'))
      .filter((path) => path !== THIS_FILE),
  );
  return ['README.md', ...files];
}

describe('script names pnpm keeps for itself', () => {
  it('are scripts of package.json (so this list follows them)', () => {
    const { scripts } = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
      scripts: Record<string, string>;
    };
    for (const name of SHADOWED) expect(Object.keys(scripts)).toContain(name);
  });

  it('are written `pnpm run <name>` in every document, usage and message', () => {
    expect(SPELLED.test('usage: pnpm view [<run-dir>...]')).toBe(true);
    expect(SPELLED.test('usage: pnpm run view [<run-dir>...]')).toBe(false);
    const found = texts().flatMap((path) =>
      readFileSync(join(ROOT, path), 'utf8')
        .split('\n')
        .flatMap((line, index) =>
          SPELLED.test(line) && !ABOUT_PNPM.test(line) ? [`${path}:${index + 1}: ${line.trim()}`] : [],
        ),
    );
    expect(found).toEqual([]);
  });
});
