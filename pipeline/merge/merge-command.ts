// `pnpm merge <shard dir>... -o <run dir>`: puts the shards of one `--shard i/n` grid back together as one run.
import { formatSummaryTable } from '../../analysis/index.js';
import { EvalError } from '#core/errors.js';
import { parseFlags } from '../cli/cli-flags.js';
import { planMerge } from './merge-shards.js';
import { writeMergedRun } from './merge-write.js';
import { mergeSuiteShards } from '../suites/merge-suite.js';
import { suiteOfRunDir } from '../suites/suite-manifest.js';
import { isEntryPoint } from '#core/entry-point.js';

const USAGE = `usage: pnpm merge <shard run dir> [<shard run dir>...] -o <run dir>
  puts the shards of one grid (pnpm eval ... --shard i/n, run anywhere), or of one suite run (pnpm integrity
  ... --shard i/n), together as one run directory that report,
  rescore, compare and verify-run read like any run. Refused, with every problem listed and nothing written, unless:
  every shard's hash chain verifies and its status is success; each shard i/n is given exactly once; spec hash,
  scenario hashes, prompts, code revision and package versions agree; every shard's setup read the same from the
  memory systems; and every unit of the grid is recorded in exactly one shard.
  -o, --out <dir>   the merged run directory (new; its name is the run id)
exit codes: 0 merged · 1 refused (problems listed), or usage`;

/** Entry point; returns the exit code. Reads the shard directories, writes only the new run directory. */
export function main(
  argv: readonly string[],
  out: (text: string) => void = console.log,
  err: (text: string) => void = console.error,
): number {
  const dirs = argv.filter((arg, i) => !arg.startsWith('-') && !['-o', '--out'].includes(argv[i - 1] ?? ''));
  try {
    const { values } = parseFlags(
      argv.filter((arg) => !dirs.includes(arg)),
      { out: { type: 'string', short: 'o' }, help: { type: 'boolean', short: 'h' } },
    );
    if (values.help) {
      out(USAGE);
      return 0;
    }
    if (values.out === undefined || dirs.length === 0) {
      err(`error: ${values.out === undefined ? '-o <run dir> is required' : 'no shard directory given'}\n${USAGE}`);
      return 1;
    }
    // Shards of a suite run (pnpm integrity --shard i/n) are merged by their suite (pipeline/suites/merge-suite.ts).
    if (dirs.some((dir) => suiteOfRunDir(dir) !== null)) {
      const merged = mergeSuiteShards(dirs, values.out, { env: process.env, root: process.cwd() });
      out(merged.text);
      out(`\nmerged ${dirs.length} shard(s), ${merged.units} units: ${merged.runDir}`);
      return 0;
    }
    const plan = planMerge(dirs);
    const { runDir, summary } = writeMergedRun(plan, values.out);
    out(formatSummaryTable(summary));
    out(`\nmerged ${plan.shards.length} shard(s), ${plan.units} units: ${runDir}`);
    return 0;
  } catch (error) {
    if (!(error instanceof EvalError)) throw error;
    err(`error: ${error.message}`);
    return 1;
  }
}

if (isEntryPoint(import.meta.url)) process.exit(main(process.argv.slice(2)));
