// Verify-first for the commands that read runs (report, rescore, compare, notebook): refuse a run whose log does not
// verify, and (report, compare, notebook) one whose stored scores disagree with its stored reads and replies.
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { checkRunLog, problemText, suiteOfRunDir, type RunLogCheck } from '../pipeline/index.js';
import { readRunHead } from './load-run.js';
import { describeDifference } from './recompute-diff.js';
import { recomputeRun } from './recompute-run.js';
import { runKindOf } from './run-kinds/index.js';

/** One paragraph saying what `checkRunLog` found, as `pnpm verify-run` prints it. */
export function describeRunLogCheck(check: RunLogCheck): string {
  const { runDir, status, files, problems } = check;
  switch (check.state) {
    case 'not-a-run':
      return `error: ${runDir}: no manifest.json; not a run directory`;
    case 'unverifiable':
      return `unverifiable: ${runDir}: ${problems[0]!.message}`;
    case 'broken':
      return [
        `FAILED: ${runDir} (status ${status ?? 'unknown'}): the run log does not verify`,
        ...problems.map((p) => `  ${problemText(p)}`),
      ].join('\n');
    case 'unfinished': {
      const beyond = files.flatMap((f) => [
        ...(f.beyondHead > 0 ? [`${f.file}: ${f.beyondHead} line(s) beyond the head recorded in manifest.json`] : []),
        ...(f.torn
          ? [
              `${f.file}:${f.torn.number}: torn last line (${f.torn.reason}); the next ${commandOf(runDir)} of this run moves it to ${f.file}.torn`,
            ]
          : []),
      ]);
      return [
        `unfinished: ${runDir} (status started: the run did not finish — a crash, a kill, or it is running now); every line chains correctly`,
        ...(beyond.length > 0 ? beyond.map((line) => `  ${line}`) : ['  no line beyond the recorded heads']),
        `  lines beyond a head are chained but not anchored (removing them from the end would go unnoticed); resume with the same ${commandOf(runDir)} command`,
      ].join('\n');
    }
    case 'intact':
      return `intact: ${runDir} (status ${status}): ${files.length === 0 ? 'no run-log file' : files.map((f) => `${f.file} ${f.lines} line(s)`).join(', ')}; every line chained, every file ends at the head manifest.json records; ${check.unbound ? 'spec and summary.json unbound (manifest.json was written before stalebench bound them: their edits cannot be seen)' : "the manifest's spec and summary.json match the sha256 it binds"}`;
  }
}

/**
 * Verifies each run directory before a command reads it. Returns false (after naming every refused run and its
 * first bad line through `err`) when a run is broken or unverifiable, unless `noVerify`. A directory without a
 * manifest is left to the command's own loader, which names it; an unfinished run is read with a warning.
 *
 * @example if (!verifyRunsFirst(parsed.positionals, { noVerify: parsed.values['no-verify'] === true, err })) return 1;
 */
export function verifyRunsFirst(
  dirs: readonly string[],
  options: { noVerify: boolean; err: (line: string) => void },
): boolean {
  if (options.noVerify) return true;
  let ok = true;
  for (const dir of dirs) {
    const check = checkRunLog(resolve(dir));
    if (check.state === 'not-a-run' || check.state === 'intact') continue;
    if (check.state === 'unfinished') {
      options.err(
        `warning: ${check.runDir}: status started (the run did not finish); its lines chain, but lines after the recorded heads are not anchored (pnpm verify-run ${dir})`,
      );
      continue;
    }
    ok = false;
    const first = check.problems[0]!;
    const more = check.problems.length > 1 ? ` (and ${check.problems.length - 1} more file(s))` : '';
    options.err(
      `error: ${check.runDir}: ${check.state === 'unverifiable' ? `unverifiable: ${first.message}` : `the run log does not verify: ${problemText(first)}${more}`}; pnpm verify-run ${dir} shows the details, --no-verify reads the run anyway`,
    );
  }
  return ok;
}

/**
 * What report, compare and notebook run before they read a run: `verifyRunsFirst` (the chain, the heads, the bound
 * spec and summary), then every stored score, label, trace and summary cell recomputed from the run's own stored reads
 * and replies through the rescore path (`recomputeRun`, records streamed). The chain is unkeyed, so a forger can
 * recompute it; the replies cannot be made to say something else. A run whose stored values disagree with their
 * recomputation is refused, naming the file, line, unit and field of the first. `noVerify` skips both checks.
 * Runs of a kind without a rescore path (forged-reasoning) are read as stored, with a warning.
 *
 * @example if (!(await checkRunsForReading(dirs, { noVerify: false, err }))) return 1;
 */
export async function checkRunsForReading(
  dirs: readonly string[],
  options: { noVerify: boolean; err: (line: string) => void },
): Promise<boolean> {
  if (!verifyRunsFirst(dirs, options)) return false;
  if (options.noVerify) return true;
  let ok = true;
  for (const dir of dirs) {
    const runDir = resolve(dir);
    if (!existsSync(join(runDir, 'manifest.json'))) continue; // the command's own loader names it
    try {
      const run = readRunHead(runDir);
      const kind = runKindOf(run.manifest);
      if (!kind.rescore) {
        options.err(
          `warning: ${runDir}: ${kind.id} runs have no rescore path: their stored scores are read as stored (the chain verified)`,
        );
        continue;
      }
      const { differences } = await recomputeRun(run);
      const [first] = differences;
      if (first === undefined) continue;
      ok = false;
      options.err(
        `error: ${runDir}: ${differences.length} stored value(s) disagree with what the run's own stored reads and replies recompute to; the first: ${describeDifference(first)}. Refused: its tables would not be the ones its replies give (pnpm rescore --check ${dir} lists them; --no-verify reads the run as stored)`,
      );
    } catch (error) {
      ok = false;
      options.err(
        `error: ${runDir}: its stored scores cannot be recomputed from its reads and replies: ${(error as Error).message}; --no-verify reads the run as stored`,
      );
    }
  }
  return ok;
}

/** The command that writes (and resumes) a run: `pnpm eval`, or the suite's own (`pnpm integrity`, `pnpm frontdoor`). */
function commandOf(runDir: string): string {
  const suite = suiteOfRunDir(runDir);
  return suite === null ? 'pnpm eval' : `pnpm ${suite}`;
}
