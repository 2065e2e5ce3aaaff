// `pnpm verify-run <run-dir>...`: checks each run's hash-chained JSONL files against each other and manifest.json.
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { checkRunLog, type RunLogCheck } from '../pipeline/index.js';
import { describeRunLogCheck } from './verify-runs.js';
import { isEntryPoint } from '../pipeline/core/entry-point.js';

const USAGE = `usage: pnpm verify-run <run-dir> [<run-dir>...] [--json]
  checks every JSONL file of each run: each line carries the sha256 of the line before it (the first line is
  bound to the run id and the file name), and each file ends at the head manifest.json recorded when eval last
  started or ended. Names the first bad line: edited, deleted, reordered, inserted, truncated or appended later.
  The chain is unkeyed: it catches edits, not a forger who recomputes every hash and the manifest.
  --json   one JSON verdict per run (state, status, problems, files)
exit codes: 0 intact · 1 broken, unverifiable (written before the chain), not a run, or usage ·
            2 unfinished: status started (a crash, a kill, or still running); the chain holds, but lines after the
              recorded heads are not anchored yet (resume with the same pnpm eval command)`;

const SEVERITY: Record<RunLogCheck['state'], 0 | 1 | 2> = {
  intact: 0,
  unfinished: 2,
  broken: 1,
  unverifiable: 1,
  'not-a-run': 1,
};

/** Entry point; returns the exit code. Reads run directories only. */
export function main(
  argv: readonly string[],
  out: (text: string) => void = console.log,
  err: (text: string) => void = console.error,
): number {
  let parsed;
  try {
    parsed = parseArgs({
      args: [...argv],
      allowPositionals: true,
      strict: true,
      options: { json: { type: 'boolean' }, help: { type: 'boolean', short: 'h' } },
    });
  } catch (error) {
    err(`error: ${(error as Error).message}\n${USAGE}`);
    return 1;
  }
  if (parsed.values.help || parsed.positionals.length === 0) {
    (parsed.values.help ? out : err)(USAGE);
    return parsed.values.help ? 0 : 1;
  }
  const checks = parsed.positionals.map((dir) => checkRunLog(resolve(dir)));
  if (parsed.values.json)
    out(
      JSON.stringify(
        checks.map(({ scanned: _scanned, ...check }) => check),
        null,
        2,
      ),
    );
  else for (const check of checks) (check.state === 'intact' ? out : err)(describeRunLogCheck(check));
  const codes = checks.map((check) => SEVERITY[check.state]);
  return codes.includes(1) ? 1 : codes.includes(2) ? 2 : 0;
}

if (isEntryPoint(import.meta.url)) process.exit(main(process.argv.slice(2)));
