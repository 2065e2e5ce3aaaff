// What a step of the stalebench action leaves behind: the job summary (the run's report in Markdown) and the step
// outputs, written to the files GitHub Actions names in $GITHUB_STEP_SUMMARY and $GITHUB_OUTPUT.
import { appendFileSync, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type ActionCommand, findActionCommand } from './action-commands.js';
import { runNode, type ChildIo } from './run-node.js';

/** How a step ended, as the summary and the outputs say it. */
export interface StepResult {
  /** The action's `suite` input (an id of action-commands.ts). */
  suite: string;
  /** The heading's words after the suite: `shard 2/3`, `merged 3 shard(s)`. */
  title: string | null;
  /** The code the step exits with (the action fails on it). */
  exitCode: number;
  /** The suite's own exit code, when it differs in meaning from `exitCode` (a shard's). */
  suiteExitCode: number;
  runDir: string | null;
  /** The SARIF file written and its result count, or null. */
  sarif: { path: string; results: number } | null;
  /** Lines said under the heading (why a threshold failed, why there is no SARIF). */
  notes: string[];
  /** The run's report in Markdown (`pnpm report`), or null when there is no run directory to report. */
  markdown: string | null;
}

/** GitHub truncates a step's summary above 1 MiB; the report is cut well below, saying so. */
const MAX_REPORT_CHARS = 800_000;

/** The job summary of a step: heading with the exit code and its meaning, the run directory, SARIF, notes, report. */
function stepSummary(result: StepResult): string {
  const meaning = findActionCommand(result.suite)?.exitMeanings[result.suiteExitCode] ?? 'see the log';
  const report = result.markdown ?? '';
  return [
    `## stalebench ${result.suite}${result.title ? ` (${result.title})` : ''}: exit ${result.suiteExitCode} (${meaning})`,
    '',
    `- run directory: ${result.runDir ? `\`${result.runDir}\`` : 'none written'}`,
    ...(result.sarif ? [`- SARIF: \`${result.sarif.path}\` (${result.sarif.results} result(s))`] : []),
    ...result.notes.map((note) => `- ${note}`),
    '',
    report.length > MAX_REPORT_CHARS
      ? `${report.slice(0, MAX_REPORT_CHARS)}\n\n(report cut at ${MAX_REPORT_CHARS} characters; the whole one: pnpm report on the run directory)`
      : report,
    '',
  ].join('\n');
}

/** Appends the summary to `$GITHUB_STEP_SUMMARY` and the outputs to `$GITHUB_OUTPUT`, each when it is set. */
export function writeStepFiles(result: StepResult, env: Readonly<Record<string, string | undefined>>): void {
  if (env.GITHUB_STEP_SUMMARY) appendFileSync(env.GITHUB_STEP_SUMMARY, stepSummary(result));
  if (env.GITHUB_OUTPUT) {
    const outputs = {
      'exit-code': String(result.exitCode),
      'suite-exit-code': String(result.suiteExitCode),
      'run-dir': result.runDir ?? '',
      sarif: result.sarif?.path ?? '',
    };
    // Values are single lines (paths and numbers): `name=value` is the whole format.
    appendFileSync(
      env.GITHUB_OUTPUT,
      Object.entries(outputs)
        .map(([name, value]) => `${name}=${value}\n`)
        .join(''),
    );
  }
}

/** The SARIF file's result count, or null when it was not written. */
export function sarifWritten(path: string | null): { path: string; results: number } | null {
  if (path === null || !existsSync(path)) return null;
  const log = JSON.parse(readFileSync(path, 'utf8')) as { runs: { results: unknown[] }[] };
  return { path, results: log.runs.reduce((sum, run) => sum + run.results.length, 0) };
}

/**
 * The run's report in Markdown: `pnpm report <run dir>` into a temporary directory (removed after), the first of the
 * command's report files it wrote (`tables.md` for a grid run, `scorecard.md` for a suite run); when the report
 * refuses the run, a line saying so.
 */
export async function reportMarkdown(
  command: ActionCommand,
  runDir: string,
  env: NodeJS.ProcessEnv,
  io: ChildIo,
): Promise<string> {
  const out = mkdtempSync(join(tmpdir(), 'stalebench-action-report-'));
  try {
    let said = '';
    const code = await runNode(join('analysis', 'report-command.ts'), [runDir, '-o', out, '--allow-incomplete'], env, {
      out: () => {},
      err: (text) => {
        said += text;
      },
    });
    const file = command.reportFiles.map((name) => join(out, name)).find((path) => existsSync(path));
    if (code === 0 && file) return readFileSync(file, 'utf8');
    io.err(said);
    return `pnpm report could not report the run directory (exit ${code}): ${said.trim().split('\n')[0] ?? ''}`;
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
}
