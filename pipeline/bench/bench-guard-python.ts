// The bench's Python row: the spec's guard (pipeline/bench/guard_spec.py, written from stale-retrieval.md §10) on the
// very retrievals the TypeScript guard was just timed on, in a child process; its verdicts must equal ours.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import type { ScreenVerdict } from '../defences/defence-v1.js';

/**
 * The fresh retrievals a timing ran, as guard inputs, with the screen's verdict on each: per group (3 groups of
 * passes), the JSON text of each pass's retrievals (`GuardInput[][]`) and of its verdicts (`ScreenVerdict[]`). Kept as
 * text, not objects, so what the bench keeps for this row adds no objects to the heap the next timings collect.
 */
export interface FreshRun {
  groups: string[][];
  verdicts: string[][];
}

/** JSON arrays (texts) joined into one JSON array. */
const joined = (arrays: readonly string[]): string =>
  `[${arrays
    .map((array) => array.slice(1, -1))
    .filter((items) => items !== '')
    .join(',')}]`;
/** The Python row: its µs per retrieval (best group) and how many times slower than ours; or why it did not run. */
export type SpecGuardRun =
  | {
      /** The interpreter that ran it and its version. */
      interpreter: string;
      version: string;
      retrievals: number;
      /** µs per retrieval inside Python, best of the groups (each group timed alone, as ours). */
      microsPerRetrieval: number;
      /** Python's µs per retrieval over ours on the same fresh retrievals. */
      ratio: number;
      /** Python's CPU µs per retrieval (`time.process_time`), best group: less sensitive to the machine's load. */
      cpuMicrosPerRetrieval: number;
      /** Python's CPU µs over ours (Node's `process.cpuUsage`, every thread of the process), or null if not given. */
      cpuRatio: number | null;
    }
  | { skipped: string };

/** The venv .ci/install makes, else `python3` on PATH. */
function interpreterOf(root: string): string {
  const venv = join(root, '.cache', 'python', 'venv', 'bin', 'python');
  return existsSync(venv) ? venv : 'python3';
}

/**
 * Runs guard_spec.py on `fresh` (written to a temporary JSON file) and compares its verdict on every retrieval with
 * the screen's. Throws when any verdict differs (the bench then fails: one of the two is not the spec). Returns
 * `{skipped}` when no Python interpreter can be started.
 */
export function runSpecGuard(
  root: string,
  fresh: FreshRun,
  now: string,
  oursMicros: number,
  oursCpuMicros: number | null = null,
): SpecGuardRun {
  const interpreter = interpreterOf(root);
  const dir = mkdtempSync(join(tmpdir(), 'stalebench-guard-spec-'));
  try {
    const input = join(dir, 'retrievals.json');
    writeFileSync(input, `{"now":${JSON.stringify(now)},"groups":[${fresh.groups.map(joined).join(',')}]}`);
    let output: string;
    try {
      output = execFileSync(interpreter, [join(import.meta.dirname, 'guard_spec.py'), input], {
        encoding: 'utf8',
        maxBuffer: 1 << 30,
      });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { skipped: `${interpreter} not found` };
      throw error;
    }
    const result = JSON.parse(output) as {
      python: string;
      microsPerRetrieval: number[];
      cpuMicrosPerRetrieval: number[];
      verdicts: ScreenVerdict[];
    };
    const ours = fresh.verdicts.flatMap((passes) => JSON.parse(joined(passes)) as ScreenVerdict[]);
    if (result.verdicts.length !== ours.length)
      throw new Error(`bench: guard_spec.py returned ${result.verdicts.length} verdicts for ${ours.length} retrievals`);
    ours.forEach((verdict, at) => {
      if (!isDeepStrictEqual(result.verdicts[at], verdict))
        throw new Error(
          `bench: the guard and guard_spec.py (the spec in Python) disagree on fresh retrieval ${at}: ` +
            `${JSON.stringify(verdict)} vs ${JSON.stringify(result.verdicts[at])}`,
        );
    });
    const microsPerRetrieval = Math.min(...result.microsPerRetrieval);
    const cpuMicrosPerRetrieval = Math.min(...result.cpuMicrosPerRetrieval);
    return {
      interpreter,
      version: result.python,
      retrievals: ours.length,
      microsPerRetrieval,
      ratio: microsPerRetrieval / oursMicros,
      cpuMicrosPerRetrieval,
      cpuRatio: oursCpuMicros === null ? null : cpuMicrosPerRetrieval / oursCpuMicros,
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
