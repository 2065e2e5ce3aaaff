// Whether a module is the script Node was started with (`tsx pipeline/cli/cli.ts …`), so a command runs only then.
import { realpathSync } from 'node:fs';
import { pathToFileURL } from 'node:url';

/**
 * True when `moduleUrl` (the caller's `import.meta.url`) names the file `argv1` names, after resolving symlinks and
 * encoding the path as a URL does (a checkout under `My Projects/` has `%20` in its module URLs: comparing with
 * `file://${argv1}` would never match, and the command would exit 0 having done nothing).
 *
 * @example if (isEntryPoint(import.meta.url)) process.exitCode = await main(process.argv.slice(2));
 */
export function isEntryPoint(moduleUrl: string, argv1: string | undefined = process.argv[1]): boolean {
  if (argv1 === undefined) return false;
  try {
    return moduleUrl === pathToFileURL(realpathSync(argv1)).href;
  } catch {
    return false;
  }
}
