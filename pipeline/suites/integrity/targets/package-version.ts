// The installed version of an npm dependency, read from its own package.json (for exact versions in results).
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

/**
 * Resolves the package's entry point and walks up to the package.json that names it.
 *
 * @example installedVersion('better-sqlite3') // '12.11.1'
 */
export function installedVersion(name: string): string {
  let directory = dirname(createRequire(import.meta.url).resolve(name));
  for (;;) {
    const manifest = join(directory, 'package.json');
    if (existsSync(manifest)) {
      const parsed = JSON.parse(readFileSync(manifest, 'utf8')) as { name?: string; version?: string };
      if (parsed.name === name && parsed.version) return parsed.version;
    }
    if (directory === dirname(directory)) throw new Error(`cannot find the package.json of ${name}`);
    directory = dirname(directory);
  }
}
