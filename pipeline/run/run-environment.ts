// What the manifest records about where a run happened: git revision, package versions, runtime.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const projectRoot = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

/** Commit and dirty flag of the checkout that runs (plus the sha256 of `git diff HEAD` when dirty), or nulls outside git. */
function gitRevision(): { commit: string | null; dirty: boolean | null; diffSha256?: string | null } {
  try {
    const git = (...args: string[]) =>
      execFileSync('git', args, {
        cwd: projectRoot,
        stdio: ['ignore', 'pipe', 'ignore'],
        maxBuffer: 256 * 1024 * 1024,
      }).toString();
    const commit = git('rev-parse', 'HEAD').trim();
    const dirty = git('status', '--porcelain', '--untracked-files=no').trim() !== '';
    return dirty
      ? {
          commit,
          dirty,
          diffSha256: createHash('sha256')
            .update(git('diff', 'HEAD', '--no-color'))
            .digest('hex'),
        }
      : { commit, dirty };
  } catch {
    return { commit: null, dirty: null };
  }
}

/** Where the manifest's revision and package versions come from; tests inject their own. */
export interface RunEnvironment {
  /** The code revision that runs. */
  revision(): ReturnType<typeof gitRevision>;
  /** Versions of the packages that shape results. */
  packages(): Record<string, string>;
}

/** The real checkout and `node_modules`. */
export const RUN_ENVIRONMENT: RunEnvironment = { revision: () => gitRevision(), packages: () => packageVersions() };

/** Installed versions of the packages that shape results. */
function packageVersions(
  names: readonly string[] = ['openai', 'zod', 'p-limit', 'mem0ai', 'better-sqlite3'],
): Record<string, string> {
  const require = createRequire(join(projectRoot, 'package.json'));
  const versions: Record<string, string> = {
    stalebench: (JSON.parse(readFileSync(join(projectRoot, 'package.json'), 'utf8')) as { version: string }).version,
  };
  for (const name of names) {
    try {
      const entry = require.resolve(name);
      let directory = dirname(entry);
      while (!directory.endsWith(join('node_modules', name)) && directory !== dirname(directory))
        directory = dirname(directory);
      versions[name] = (
        JSON.parse(readFileSync(join(directory, 'package.json'), 'utf8')) as { version: string }
      ).version;
    } catch {
      versions[name] = 'not installed';
    }
  }
  return versions;
}
