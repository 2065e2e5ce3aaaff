// `pnpm rescore <run-dir>...`: recomputes every score, exposure and guard metric from stored records only.
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { writeJsonAtomic } from '../pipeline/json-files.js';
import { formatSummaryTable } from './format-table.js';
import { loadRun, summarizeRun } from './load-run.js';

const USAGE = 'usage: pnpm rescore <run-dir> [<run-dir>...] [--check]\n  writes <run-dir>/summary.rescored.json; --check exits 1 unless the cells equal summary.json byte for byte';

/** Entry point; returns the exit code. Reads run directories only: no network, no backend, no model. */
export function main(argv: readonly string[], out: (line: string) => void = console.log, err: (line: string) => void = console.error): number {
  let parsed;
  try {
    parsed = parseArgs({ args: [...argv], allowPositionals: true, strict: true, options: { check: { type: 'boolean' }, help: { type: 'boolean', short: 'h' } } });
  } catch (error) {
    err(`error: ${(error as Error).message}\n${USAGE}`);
    return 1;
  }
  if (parsed.values.help || parsed.positionals.length === 0) {
    (parsed.values.help ? out : err)(USAGE);
    return parsed.values.help ? 0 : 1;
  }
  let code = 0;
  for (const dir of parsed.positionals) {
    const runDir = resolve(dir);
    try {
      const summary = summarizeRun(loadRun(runDir));
      writeJsonAtomic(join(runDir, 'summary.rescored.json'), summary);
      out(formatSummaryTable(summary));
      if (parsed.values.check) {
        const original = JSON.parse(readFileSync(join(runDir, 'summary.json'), 'utf8')) as { cells: unknown };
        const same = JSON.stringify(original.cells) === JSON.stringify(summary.cells);
        out(same ? `${runDir}: summary cells identical` : `${runDir}: summary cells DIFFER from summary.json`);
        if (!same) code = 1;
      }
    } catch (error) {
      err(`error: ${(error as Error).message}`);
      code = 1;
    }
  }
  return code;
}

if (import.meta.url === `file://${process.argv[1]}`) process.exit(main(process.argv.slice(2)));
