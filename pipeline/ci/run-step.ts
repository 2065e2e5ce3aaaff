// The action's run step: one suite with the user's arguments plus the action's own (--out/-o, --shard, --fail-on,
// --sarif), then its report as the job summary; a shard leaves SARIF and thresholds to the merge job.
import { existsSync, readdirSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { InvalidInputError } from '#core/errors.js';
import { gateGridRun } from '../run/grid-gate.js';
import { readJsonIfExists } from '../run-log/json-files.js';
import { shardLabel, type Shard } from '../run/shard.js';
import { runNode, type ChildIo } from './run-node.js';
import { reportMarkdown, sarifWritten, type ActionSuite, type StepResult } from './step-report.js';

/** What the run step is given (paths absolute). */
export interface RunStepInputs {
  suite: ActionSuite;
  /** The user's arguments, already split into words. */
  args: readonly string[];
  /** `--fail-on` rules, one per flag. */
  failOn: readonly string[];
  /** Where SARIF goes, or null for none. */
  sarif: string | null;
  /** `auto` or `i/n`, or null for the whole run. */
  shard: string | null;
  /** eval: the output root; integrity and frontdoor: the run directory. */
  out: string;
}

/** The command each suite is (`pnpm <suite>`), as a script and its leading arguments. */
const COMMANDS: Record<ActionSuite, { script: string; args: string[] }> = {
  eval: { script: join('pipeline', 'cli', 'cli.ts'), args: ['eval'] },
  integrity: { script: join('pipeline', 'suites', 'integrity', 'harness', 'integrity-command.ts'), args: [] },
  frontdoor: { script: join('pipeline', 'suites', 'frontdoor', 'harness', 'frontdoor-command.ts'), args: [] },
};

/** Flags the action sets itself from its inputs; in `args` they would contradict them. */
const OWN_FLAGS = ['-o', '--out', '--sarif', '--shard', '--fail-on'];

/** The run directory's manifest status (`success`, `started`, …), or null when it has none. */
const statusOf = (runDir: string) =>
  readJsonIfExists<{ status?: string }>(join(runDir, 'manifest.json'))?.status ?? null;

/** Each run directory under an output root with the time its manifest was written. */
function manifestTimes(root: string): Map<string, number> {
  if (!existsSync(root)) return new Map();
  return new Map(
    readdirSync(root, { withFileTypes: true })
      .filter((entry) => entry.isDirectory() && existsSync(join(root, entry.name, 'manifest.json')))
      .map((entry) => [join(root, entry.name), statSync(join(root, entry.name, 'manifest.json')).mtimeMs]),
  );
}

/**
 * Runs the suite and returns how the step ends. The step's exit code is the suite's; for a shard it is 0 once the
 * shard finished (status `success`, which `pnpm merge` requires) and the suite's otherwise, so a threshold crossed
 * inside one shard never fails its job before the merge job has seen the whole run.
 */
export async function runStep(inputs: RunStepInputs, env: NodeJS.ProcessEnv, io: ChildIo): Promise<StepResult> {
  const own = inputs.args.find((arg) => OWN_FLAGS.some((flag) => arg === flag || arg.startsWith(`${flag}=`)));
  if (own)
    throw new InvalidInputError('action input', [
      { path: 'args', message: `${own} is set by the action from its own input (out, sarif, shard, fail-on)` },
    ]);
  const { script, args } = COMMANDS[inputs.suite];
  const argv = [...args, ...inputs.args, inputs.suite === 'eval' ? '--out' : '-o', inputs.out];
  if (inputs.shard) argv.push('--shard', inputs.shard);
  for (const rule of inputs.failOn) argv.push('--fail-on', rule);
  const sarif = inputs.shard ? null : inputs.sarif;
  if (sarif) argv.push('--sarif', sarif);
  // A SARIF file left by an earlier run at the same path must not pass for this run's.
  if (inputs.sarif) rmSync(inputs.sarif, { force: true });
  // The step writes the summary itself (pnpm integrity would also append its scorecard).
  const { GITHUB_STEP_SUMMARY: _summary, ...childEnv } = env;
  const before = manifestTimes(inputs.out);
  const shown = argv.slice(args.length).map((word) => (/^[\w@%+=:,./-]+$/.test(word) ? word : `'${word}'`));
  io.err(`stalebench action: pnpm ${inputs.suite} ${shown.join(' ')}\n`);
  const code = await runNode(script, argv, childEnv, io);
  let runDir: string | null = existsSync(join(inputs.out, 'manifest.json')) ? inputs.out : null;
  if (inputs.suite === 'eval')
    runDir =
      [...manifestTimes(inputs.out)]
        .filter(([dir, written]) => before.get(dir) !== written)
        .sort((a, b) => b[1] - a[1])[0]?.[0] ?? null;
  const notes: string[] = [];
  let exitCode = code;
  const recorded = runDir ? readJsonIfExists<{ shard?: Shard }>(join(runDir, 'manifest.json'))?.shard : undefined;
  const shard = inputs.shard && recorded ? shardLabel(recorded) : inputs.shard;
  if (inputs.shard) {
    const status = runDir ? statusOf(runDir) : null;
    exitCode = status === 'success' ? 0 : code === 0 ? 1 : code;
    notes.push(
      `shard ${shard}: ${status === 'success' ? 'finished' : `not finished (status ${status ?? 'none'})`}; SARIF and thresholds are the merge job's, over the whole run`,
    );
  } else if (inputs.sarif && !sarifWritten(inputs.sarif)) notes.push('no SARIF written (the run did not finish)');
  // Which cells crossed which rule, as pnpm eval printed it (the gate re-applied to the stored run, read only); a
  // shard's cells are a part of the run's, judged by the merge job.
  if (inputs.suite === 'eval' && code === 5 && runDir && !inputs.shard) {
    // The rules as the run recorded them (a rule file read), not as the inputs name them.
    type Recorded = { spec?: { control?: { failOn?: string[] } } };
    const failOn = readJsonIfExists<Recorded>(join(runDir, 'manifest.json'))?.spec?.control?.failOn ?? [];
    notes.push(gateGridRun(runDir, { exitCode: 0, why: null }, { failOn, sarif: null }).why ?? '');
  }
  return {
    suite: inputs.suite,
    title: shard ? `shard ${shard}` : null,
    exitCode,
    suiteExitCode: code,
    runDir,
    sarif: sarifWritten(sarif),
    notes,
    markdown: runDir ? await reportMarkdown(inputs.suite, runDir, childEnv, io) : null,
  };
}
