// Creating a directory and its missing parents, one level at a time. Node 20's `mkdirSync(path, { recursive: true })`
// never returns where the kernel answers ENOENT for a directory that cannot be made under an existing parent (any path
// under /proc): it retries the parent forever in a loop that no signal interrupts. `pnpm eval -o /proc/x` hung so.
import { existsSync, mkdirSync, statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { InvalidInputError } from './errors.js';

/**
 * Makes `path` and every missing parent; an existing directory is fine, as is one another process makes meanwhile.
 * A file at `path` and any other failure (ENOENT under /proc, EACCES, EROFS, ENOTDIR through a file) is thrown at once
 * as one `InvalidInputError` naming `path` and the level that failed.
 *
 * @example makeDirectory(join(out, runId)); // instead of mkdirSync(…, { recursive: true })
 */
export function makeDirectory(path: string): void {
  const target = resolve(path);
  if (existsSync(target) && !statSync(target).isDirectory())
    throw new InvalidInputError(path, [{ path: '(directory)', message: 'is a file, not a directory' }]);
  const missing: string[] = [];
  for (let current = target; !existsSync(current); ) {
    missing.push(current);
    const parent = dirname(current);
    if (parent === current) break;
    current = parent;
  }
  for (const directory of missing.reverse()) {
    try {
      mkdirSync(directory);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST')
        throw new InvalidInputError(path, [
          { path: '(directory)', message: `cannot be created: ${(error as Error).message}` },
        ]);
    }
  }
}
