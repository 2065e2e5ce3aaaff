// What the manifest records about where a run happened: git revision, package versions, runtime.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const projectRoot = join(dirname(fileURLToPath(import.meta.url)), '..');

/** Commit and dirty flag of the checkout that runs, or nulls outside git. */
export function gitRevision(): { commit: string | null; dirty: boolean | null } {
  try {
    const commit = execFileSync('git', ['rev-parse', 'HEAD'], { cwd: projectRoot, stdio: ['ignore', 'pipe', 'ignore'] }).toString().trim();
    const status = execFileSync('git', ['status', '--porcelain', '--untracked-files=no'], { cwd: projectRoot, stdio: ['ignore', 'pipe', 'ignore'] }).toString();
    return { commit, dirty: status.trim() !== '' };
  } catch {
    return { commit: null, dirty: null };
  }
}

/** Installed versions of the packages that shape results. */
export function packageVersions(names: readonly string[] = ['openai', 'zod', 'p-limit', 'mem0ai', 'better-sqlite3']): Record<string, string> {
  const require = createRequire(join(projectRoot, 'package.json'));
  const versions: Record<string, string> = {
    stalebench: (JSON.parse(readFileSync(join(projectRoot, 'package.json'), 'utf8')) as { version: string }).version,
  };
  for (const name of names) {
    try {
      const entry = require.resolve(name);
      let directory = dirname(entry);
      while (!directory.endsWith(join('node_modules', name)) && directory !== dirname(directory)) directory = dirname(directory);
      versions[name] = (JSON.parse(readFileSync(join(directory, 'package.json'), 'utf8')) as { version: string }).version;
    } catch {
      versions[name] = 'not installed';
    }
  }
  return versions;
}

/** The repository root (for default paths such as `runs/`). */
export function projectDirectory(): string {
  return projectRoot;
}
