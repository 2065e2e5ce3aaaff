// What the stalebench action runs, one line each: `pnpm eval` (its experiments, gated by the grid's cells) and every
// registered suite that declares what CI needs of it (SuiteV1 `ci`, pipeline/suites/index.ts `ciSuites`). The steps
// (run-step.ts, merge-step.ts, step-report.ts) ask a command's members instead of branching on which one it is, so a
// suite added with a `ci` member is offered to the action with no edit here.
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { UnknownComponentError } from '#core/errors.js';
import { GRID_GATE, gateGridRun } from '../run/grid-gate.js';
import { sarifBase, sarifSource, writeSuiteSarif } from '../run/sarif-file.js';
import type { ThresholdSuite } from '../run/thresholds.js';
import { ciSuites } from '../suites/index.js';

/** What a merged (or finished) run's manifest says of its rules and its ending. */
export interface ActionManifest {
  exitCode?: number;
  spec?: { control?: { failOn?: readonly string[] }; args?: { failOn?: string | readonly string[] } };
}

/** One command the action runs. */
export interface ActionCommand {
  /** The action's `suite` input (`eval`, `integrity`). */
  readonly id: string;
  /** Its script (repository-relative) and leading arguments. */
  readonly script: string;
  readonly args: readonly string[];
  /** Its output flag: eval's output root (`--out`), or a suite's run directory (`-o`). */
  readonly outFlag: '--out' | '-o';
  /** What its `--fail-on` rules may name. */
  readonly gate: ThresholdSuite;
  /** What each exit code means. */
  readonly exitMeanings: Readonly<Record<number, string>>;
  /** The files of `pnpm report` whose Markdown is the job summary, the first written one taken. */
  readonly reportFiles: readonly string[];
  /** The run directory an invocation wrote under `out`, given each run directory's manifest time before it. */
  runDirOf(out: string, before: ReadonlyMap<string, number>): string | null;
  /** What a whole run's gate says once it ended with `code` (which cells crossed which rule), from its stored run. */
  runNotes(runDir: string, code: number, manifest: ActionManifest | null): string[];
  /** The `--fail-on` rules a run recorded (a rule file read), as typed. */
  recordedFailOn(manifest: ActionManifest): string[];
  /** A merged run judged: SARIF written (when asked), its exit code and what its gate says. */
  judgeMerged(
    runDir: string,
    manifest: ActionManifest,
    sarif: string | null,
    env: NodeJS.ProcessEnv,
  ): { exitCode: number; notes: string[] };
}

/** Each run directory under an output root with the time its manifest was written. */
export function manifestTimes(root: string): Map<string, number> {
  if (!existsSync(root)) return new Map();
  return new Map(
    readdirSync(root, { withFileTypes: true })
      .filter((entry) => entry.isDirectory() && existsSync(join(root, entry.name, 'manifest.json')))
      .map((entry) => [join(root, entry.name), statSync(join(root, entry.name, 'manifest.json')).mtimeMs]),
  );
}

/** `pnpm eval`: the grid's thresholds and SARIF, over the run its output root gained. */
const EVAL: ActionCommand = {
  id: 'eval',
  script: join('pipeline', 'cli', 'cli.ts'),
  args: ['eval'],
  outFlag: '--out',
  gate: GRID_GATE,
  exitMeanings: {
    0: 'ok',
    1: 'usage, config or preflight error',
    2: 'errored units above --max-error-rate, stopped by the circuit breaker, or every reply unparseable',
    3: 'budget reached',
    4: 'completed with failed units within --max-error-rate',
    5: 'a --fail-on threshold was crossed',
    130: 'interrupted (SIGINT)',
    143: 'terminated (SIGTERM)',
  },
  reportFiles: ['tables.md'],
  // The run directory whose manifest this invocation wrote: the newest one that changed.
  runDirOf: (out, before) =>
    [...manifestTimes(out)]
      .filter(([dir, written]) => before.get(dir) !== written)
      .sort((a, b) => b[1] - a[1])[0]?.[0] ?? null,
  // The gate re-applied to the stored run, read only, with the rules as the run recorded them.
  runNotes: (runDir, code, manifest) =>
    code === 5 && manifest
      ? [
          gateGridRun(runDir, { exitCode: 0, why: null }, { failOn: EVAL.recordedFailOn(manifest), sarif: null }).why ??
            '',
        ]
      : [],
  recordedFailOn: (manifest) => [...(manifest.spec?.control?.failOn ?? [])],
  judgeMerged(runDir, manifest, sarif, env) {
    const ending = gateGridRun(
      runDir,
      { exitCode: 0, why: null },
      { failOn: EVAL.recordedFailOn(manifest), sarif },
      sarifBase(env),
    );
    return { exitCode: ending.exitCode, notes: ending.why ? [ending.why] : [] };
  },
};

/** A registered suite with a `ci` member: its command (else `pnpm eval --suite <id>`), gate, SARIF and exit code. */
function suiteCommand({ id, ci }: ReturnType<typeof ciSuites>[number]): ActionCommand {
  return {
    id,
    script: ci.command?.script ?? join('pipeline', 'cli', 'cli.ts'),
    args: ci.command?.args ?? ['eval', '--suite', id],
    outFlag: '-o',
    gate: ci.gate,
    exitMeanings: ci.exitMeanings,
    reportFiles: ['scorecard.md', `${id}.md`],
    runDirOf: (out) => (existsSync(join(out, 'manifest.json')) ? out : null),
    runNotes: () => [],
    recordedFailOn: (manifest) => [manifest.spec?.args?.failOn ?? []].flat(),
    judgeMerged(runDir, manifest, sarif, env) {
      const summaryPath = join(runDir, 'summary.json');
      if (sarif)
        writeSuiteSarif(sarif, id, ci.findings(ci.readSummary(summaryPath)), sarifSource(summaryPath, sarifBase(env)));
      return { exitCode: manifest.exitCode ?? 1, notes: [] };
    },
  };
}

/** Every command the action runs, in order: `eval`, then the registered suites offered to CI. */
export const actionCommands = (): ActionCommand[] => [EVAL, ...ciSuites().map(suiteCommand)];

/** The command `id`, or undefined when the action runs none of that id. */
export const findActionCommand = (id: string): ActionCommand | undefined =>
  actionCommands().find((candidate) => candidate.id === id);

/** The command `id`; `UnknownComponentError` naming every one. */
export function actionCommandOf(id: string): ActionCommand {
  const commands = actionCommands();
  const command = commands.find((candidate) => candidate.id === id);
  if (!command)
    throw new UnknownComponentError(
      'suite',
      id,
      commands.map((candidate) => candidate.id),
    );
  return command;
}
