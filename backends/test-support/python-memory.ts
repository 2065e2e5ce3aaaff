// Test support for Python memory systems: the venv (created when missing, as .ci/install does, else a skip reason)
// and the store-driver processes a test kills to play a crash.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { inspeximusProblem } from '../inspeximus-backend.js';
import { ensurePythonVenv, missingPython } from '../python/python-venv.js';

/** The checkout. */
export const ROOT = join(import.meta.dirname, '..', '..');

/** Null when the venv holds the pinned inspeximus (installing it first when there is no venv), else why tests skip. */
export async function inspeximusSkipReason(
  log: (line: string) => void = (line) => console.log(`[inspeximus venv] ${line}`),
): Promise<string | null> {
  if (missingPython(ROOT) !== null) {
    const problem = ensurePythonVenv(ROOT, log);
    if (problem) return problem;
  }
  const problem = await inspeximusProblem();
  if (problem) log(`skipped: ${problem.message}`);
  return problem?.message ?? null;
}

/** Pids of the store drivers (`stalebench_store_driver.py`) whose parent is `parent` (Linux /proc; [] elsewhere). */
export function storeDrivers(parent: number = process.pid): number[] {
  let entries: string[];
  try {
    entries = readdirSync('/proc').filter((name) => /^\d+$/.test(name));
  } catch {
    return [];
  }
  return entries.flatMap((name) => {
    try {
      const stat = readFileSync(join('/proc', name, 'stat'), 'utf8');
      // Field 4 (ppid) follows the parenthesised command name, which may itself hold spaces.
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      const command = readFileSync(join('/proc', name, 'cmdline'), 'utf8');
      return ppid === parent && command.includes('stalebench_store_driver.py') ? [Number(name)] : [];
    } catch {
      return [];
    }
  });
}
