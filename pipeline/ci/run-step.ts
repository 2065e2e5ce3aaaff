// The action's run step: one suite with the user's arguments plus the action's own (--out/-o, --shard, --fail-on,
// --sarif), then its report as the job summary; a shard leaves SARIF and thresholds to the merge job.
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { InvalidInputError } from '#core/errors.js';
import { readJsonIfExists } from '../run-log/json-files.js';
import { shardLabel, type Shard } from '../run/shard.js';
import { type ActionManifest, actionCommandOf, manifestTimes } from './action-commands.js';
import { runNode, type ChildIo } from './run-node.js';
import { reportMarkdown, sarifWritten, type StepResult } from './step-report.js';

/** What the run step is given (paths absolute). */
export interface RunStepInputs {
  /** An id of action-commands.ts (`eval`, `integrity`, …). */
  suite: string;
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

/** Flags the action sets itself from its inputs; in `args` they would contradict them. */
const OWN_FLAGS = ['-o', '--out', '--sarif', '--shard', '--fail-on'];

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
  const command = actionCommandOf(inputs.suite);
  const { script, args } = command;
  const argv = [...args, ...inputs.args, command.outFlag, inputs.out];
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
  const runDir = command.runDirOf(inputs.out, before);
  const notes: string[] = [];
  let exitCode = code;
  // The manifest as the run left it: its shard, its status (`success`, `started`, …) and its recorded rules.
  const manifest = runDir
    ? (readJsonIfExists<ActionManifest & { shard?: Shard; status?: string }>(join(runDir, 'manifest.json')) ?? null)
    : null;
  const recorded = manifest?.shard;
  const shard = inputs.shard && recorded ? shardLabel(recorded) : inputs.shard;
  if (inputs.shard) {
    const status = manifest?.status ?? null;
    exitCode = status === 'success' ? 0 : code === 0 ? 1 : code;
    notes.push(
      `shard ${shard}: ${status === 'success' ? 'finished' : `not finished (status ${status ?? 'none'})`}; SARIF and thresholds are the merge job's, over the whole run`,
    );
  } else if (inputs.sarif && !sarifWritten(inputs.sarif)) notes.push('no SARIF written (the run did not finish)');
  // Which cells crossed which rule, as the command printed it (its gate re-applied to the stored run, read only, with
  // the rules as the run recorded them); a shard's cells are a part of the run's, judged by the merge job.
  if (runDir && !inputs.shard) notes.push(...command.runNotes(runDir, code, manifest));
  return {
    suite: inputs.suite,
    title: shard ? `shard ${shard}` : null,
    exitCode,
    suiteExitCode: code,
    runDir,
    sarif: sarifWritten(sarif),
    notes,
    markdown: runDir ? await reportMarkdown(command, runDir, childEnv, io) : null,
  };
}
