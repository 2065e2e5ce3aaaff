// The stalebench GitHub Action's steps as one script (.github/actions/stalebench/action.yml), so they run and are
// tested anywhere: `run` one suite, or `merge` a matrix's shards; then the job summary, step outputs and exit code.
import { resolve } from 'node:path';
import { defineCommand, runAsEntryPoint } from '#core/command.js';
import { EvalError, InvalidInputError } from '#core/errors.js';
import { mergeStep } from './merge-step.js';
import type { ChildIo } from './run-node.js';
import { runStep } from './run-step.js';
import { splitArgs } from './split-args.js';
import { actionCommands, findActionCommand } from './action-commands.js';
import { writeStepFiles } from './step-report.js';

const USAGE = `usage: node --import tsx pipeline/ci/action-steps.ts run|merge --suite <suite> [flags]
  --suite <suite>      eval, or a registered suite offered to CI (its ci member: integrity, frontdoor, …)
  run                  pnpm <suite> <args> with --out (eval: the output root) or -o (the run directory), and
                       --shard, --fail-on, --sarif from the flags below; then pnpm report on its run directory
  merge                pnpm merge of the shard run directories under --shards into --out, then --sarif and the
                       thresholds over the whole run, with the --fail-on rules the shards were run with
  --args='<words>'     run: the suite's arguments, split into words as a shell does (quotes, backslash), nothing
                       expanded; -o/--out, --sarif, --shard and --fail-on are the action's own flags, not args
  --fail-on '<rules>'  one rule a line (eval: a threshold rule each; integrity: accepted|none; frontdoor:
                       surfaced|none); merge: when given, must be the shards' rules
  --sarif <file>       write SARIF 2.1.0 there (a run with --shard writes none: the merge job does)
  --shard auto|i/n     run one shard (auto: STALEBENCH_SHARD_INDEX/COUNT or a Kubernetes Indexed Job); the step
                       exits 0 once the shard finished, whatever its thresholds (the merge job judges the run)
  --out <dir>          run: eval's output root, or the integrity/frontdoor run directory; merge: the merged run
                       directory (default stalebench-run)
  --shards <dir>       merge: where the shard run directories were downloaded (one a subfolder, or one deeper)
  Paths are relative to $GITHUB_WORKSPACE when it is set, else to the current directory. The job summary (the
  report's Markdown under a heading with the exit code) is appended to $GITHUB_STEP_SUMMARY, and exit-code,
  suite-exit-code, run-dir and sarif to $GITHUB_OUTPUT, when they are set.
exit code: the suite's (a shard: 0 once finished; merge: the merged run's, 1 when the merge is refused); 1 on a usage error`;

const OPTIONS = {
  suite: { type: 'string' },
  args: { type: 'string' },
  'fail-on': { type: 'string' },
  sarif: { type: 'string' },
  shard: { type: 'string' },
  out: { type: 'string' },
  shards: { type: 'string' },
} as const;

const given = (value: string | undefined) => (value?.trim() ? value.trim() : null);
const processIo: ChildIo = { out: (text) => process.stdout.write(text), err: (text) => process.stderr.write(text) };

/** The command; returns the step's exit code. `env` and `child` (where the suite's output goes) are for tests. */
export const main = defineCommand({
  usage: USAGE,
  options: OPTIONS,
  allowPositionals: true,
  async run({ values, positionals }, { usageError }, env: NodeJS.ProcessEnv = process.env, child: ChildIo = processIo) {
    const [step, ...extra] = positionals;
    if ((step !== 'run' && step !== 'merge') || extra.length > 0) return usageError('give one step: run or merge');
    const suite = values.suite ?? '';
    if (!findActionCommand(suite))
      return usageError(
        `--suite must be one of ${actionCommands()
          .map((command) => command.id)
          .join(', ')}`,
      );
    const base = env.GITHUB_WORKSPACE || process.cwd();
    const path = (value: string | undefined) => (given(value) ? resolve(base, given(value)!) : null);
    // A rule file (`@<file>`) is the workspace's, as every other path input; the suites run from the action's checkout.
    const failOn = (values['fail-on'] ?? '')
      .split('\n')
      .flatMap((line) => (line.trim() ? [line.trim()] : []))
      .map((rule) => (rule.startsWith('@') && rule.length > 1 ? `@${resolve(base, rule.slice(1).trim())}` : rule));
    const out = path(values.out) ?? resolve(base, 'stalebench-run');
    try {
      if (step === 'merge' && (given(values.args) || given(values.shard)))
        throw new InvalidInputError('action input', [{ path: 'args, shard', message: 'are for the run step' }]);
      if (step === 'merge' && !given(values.shards))
        throw new InvalidInputError('action input', [{ path: 'shards', message: 'merge needs --shards <dir>' }]);
      const result =
        step === 'run'
          ? await runStep(
              {
                suite,
                args: splitArgs(values.args ?? ''),
                failOn,
                sarif: path(values.sarif),
                shard: given(values.shard),
                out,
              },
              env,
              child,
            )
          : await mergeStep(
              { suite, shards: path(values.shards)!, out, sarif: path(values.sarif), failOn },
              env,
              child,
            );
      writeStepFiles(result, env);
      return result.exitCode;
    } catch (error) {
      // A refused input still leaves its exit code and a summary saying why, then the one error line.
      if (error instanceof EvalError)
        writeStepFiles(
          {
            suite,
            title: null,
            exitCode: 1,
            suiteExitCode: 1,
            runDir: null,
            sarif: null,
            notes: [error.message],
            markdown: null,
          },
          env,
        );
      throw error;
    }
  },
});

runAsEntryPoint(import.meta.url, main);
