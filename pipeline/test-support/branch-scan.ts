// Test support for the architecture tests that forbid a kind of branch in product code (a run kind in analysis/, an
// eval-phase kind in pipeline/, a memory system outside backends/): the product files of some folders, and the lines
// of them a pattern finds, comments and named exceptions aside.
import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

/** The repository root. */
export const REPOSITORY = resolve(import.meta.dirname, '..', '..');

/** The `.ts` files of `folders` that are product code (no test, no test support), as `/`-separated paths from the root. */
export function productFiles(folders: readonly string[]): string[] {
  return folders.flatMap((folder) =>
    readdirSync(join(REPOSITORY, folder), { recursive: true, encoding: 'utf8' })
      .filter((path) => path.endsWith('.ts') && !path.endsWith('.test.ts') && !path.includes('test-support'))
      .map((path) => join(folder, path).split('\\').join('/')),
  );
}

/** A line allowed to match, with the reason it is not a branch. */
export interface BranchException {
  path: string;
  /** The line, trimmed. */
  text: string;
  reason: string;
}

/**
 * Every line of `files` that `pattern` matches, as `path:line: text`, except comment lines and the exceptions.
 *
 * @example expect(branchesIn(productFiles(['analysis']), BRANCH)).toEqual([]);
 */
export function branchesIn(
  files: readonly string[],
  pattern: RegExp,
  exceptions: readonly BranchException[] = [],
): string[] {
  return files.flatMap((path) =>
    readFileSync(join(REPOSITORY, path), 'utf8')
      .split('\n')
      .flatMap((line, index) => {
        const text = line.trim();
        const excepted = exceptions.some((e) => e.path === path && e.text === text);
        return pattern.test(text) && !text.startsWith('//') && !text.startsWith('*') && !excepted
          ? [`${path}:${index + 1}: ${text}`]
          : [];
      }),
  );
}

/** Ids as regular-expression alternatives (`graphiti|mem0\\-exp|…`), the longest first. */
export const idAlternatives = (ids: readonly string[]): string =>
  [...ids]
    .sort((a, b) => b.length - a.length)
    .map((id) => id.replace(/[-]/g, '\\-'))
    .join('|');

/**
 * The pattern of a kind branch: a comparison (`===`, `!==`, `case`) with one of `ids` as a literal; with `names`, a
 * comparison with a value of one of those names (not with null, undefined or a typeof answer) or a membership test of
 * one in a list; and the `extra` alternatives a test adds (its own spellings of a kind test).
 *
 * @example kindBranchPattern({ ids: suiteIds(), names: ['suite'] }).test("if (suite === 'integrity')") // true
 */
export function kindBranchPattern(kind: {
  ids: readonly string[];
  names?: readonly string[];
  extra?: readonly string[];
}): RegExp {
  const ids = idAlternatives(kind.ids);
  const names = (kind.names ?? []).join('|');
  return new RegExp(
    [
      `[!=]==\\s*'(${ids})'`,
      `'(${ids})'\\s*[!=]==`,
      `case\\s+'(${ids})'`,
      ...(names === ''
        ? []
        : [
            `\\b(${names})\\)?\\s*[!=]==(?!\\s*(?:null\\b|undefined\\b|'string'|'object'))`,
            `[!=]==\\s*[\\w.?!]*\\b(${names})\\b`,
            `\\.includes\\([\\w.?!]*\\b(${names})\\)`,
          ]),
      ...(kind.extra ?? []),
    ].join('|'),
  );
}
