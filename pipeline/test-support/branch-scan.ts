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
