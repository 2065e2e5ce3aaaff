// Verifies a run's hash-chained JSONL files against each other and the heads in manifest.json (read-only).
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { EvalError } from '#core/errors.js';
import { checkBinding } from '../run/run-binding.js';
import { chainGenesis } from './run-log-chain.js';
import { runLogFileNames, scanLogFile, type ScannedFile, type ScannedLine } from './run-log-scan.js';
import type { LogHead, RunManifest, RunStatus } from './run-log.js';

/**
 * `intact`: every line chains and every file ends at its recorded head. `unfinished`: the same, but the run is
 * still `started` (a crash, a kill, or running now): lines beyond a head chain but are not anchored.
 * `broken`: a line was edited, deleted, reordered, inserted, truncated or appended after the run finished.
 * `unverifiable`: the run predates the chain. `not-a-run`: no manifest.json.
 */
export type RunLogState = 'intact' | 'unfinished' | 'broken' | 'unverifiable' | 'not-a-run';

/** The first bad line of one file (`line` null when the whole file is missing or the manifest is unreadable). */
export interface RunLogProblem {
  /** The file name inside the run directory (`records.jsonl`, `manifest.json`). */
  file: string;
  /** 1-based line number of the line blamed. */
  line: number | null;
  /** What is wrong, starting with the kind (`edited:`, `inserted:`, `missing:`, `torn`, ...). */
  message: string;
}

/** What was found in one file. */
export interface FileCheck {
  /** The file name inside the run directory. */
  file: string;
  /** Complete lines (a torn last line not counted). */
  lines: number;
  /** The head manifest.json records, or null. */
  recorded: LogHead | null;
  /** Complete lines after the recorded head. */
  beyondHead: number;
  /** The torn last line's number and reason, or null. */
  torn: { number: number; reason: string } | null;
}

/** The verdict on one run directory. */
export interface RunLogCheck {
  /** The run directory checked. */
  runDir: string;
  /** The verdict (see RunLogState). */
  state: RunLogState;
  /** The manifest's status, or null without a readable manifest. */
  status: RunStatus | null;
  /** At most one per file, in file-name order; the first is the first bad line. */
  problems: RunLogProblem[];
  files: FileCheck[];
  /** The scanned files (eval's resume repairs their torn tails). */
  scanned: ScannedFile[];
  /** The manifest binds no spec or summary hash (written before issue #26): their edits cannot be seen. */
  unbound: boolean;
}

/** A run log that does not verify: eval refuses to extend it. Names the first bad line. */
export class RunLogError extends EvalError {
  /** The first bad line of each file that does not verify. */
  readonly problems: readonly RunLogProblem[];
  constructor(message: string, problems: readonly RunLogProblem[]) {
    super('run-log', message);
    this.problems = problems;
  }
}

/** `records.jsonl:5: edited: ...`. */
export const problemText = (p: RunLogProblem): string =>
  `${p.file}${p.line === null ? '' : `:${p.line}`}: ${p.message}`;

/** Why line `i` (0-based) does not link to `expected`: the best reading of which edit broke the chain there, and the line it blames. */
function diagnose(
  lines: readonly ScannedLine[],
  i: number,
  expected: string,
  genesis: string,
  shorter: boolean,
): { line: number; message: string } {
  const n = i + 1;
  const line = lines[i]!;
  const next = lines[i + 1];
  const at = (message: string, blamed = n) => ({ line: blamed, message });
  const duplicate = lines.findIndex((l) => l.hash === line.hash);
  if (duplicate < i) return at(`inserted: a duplicate of line ${duplicate + 1}`);
  const after = lines.findIndex((l) => l.hash === line.prev);
  if (after >= i) return at(`out of order: it was written right after line ${after + 1} (lines reordered)`);
  if (next?.prev === expected)
    return at(`inserted: line ${n + 1} was chained directly to ${n === 1 ? 'the start of the file' : `line ${n - 1}`}`);
  if (line.prev === genesis)
    return at('out of place: it was written as the first line of the file (lines before it were deleted or moved)');
  const between = after + 2 === n - 1 ? `line ${n - 1} was` : `lines ${after + 2}–${n - 1} were`;
  if (after >= 0)
    return at(
      `inserted: line ${n} was written right after line ${after + 1}, so ${between} inserted or moved here`,
      after + 2,
    );
  if (n === 1)
    return at(
      "does not start this file's chain for this run: line(s) before it were deleted, or it was copied from another run or file",
    );
  if (next !== undefined && next.prev !== line.hash)
    return at(
      `replaced: neither its link to line ${n - 1} nor line ${n + 1}'s link to it holds (edited with its chain field, or copied from another run or file)`,
    );
  if (shorter)
    return at(
      `line(s) missing before this one (deleted), or line ${n - 1} was edited: this line was chained to bytes no longer in the file`,
    );
  return at(
    `edited: line ${n} was chained to other bytes for this line (or line(s) between ${n - 1} and ${n} were deleted)`,
    n - 1,
  );
}

/** The first line that breaks the chain. */
function checkChain(scanned: ScannedFile, runId: string, head: LogHead | null): RunLogProblem | null {
  const genesis = chainGenesis(runId, scanned.file);
  let expected = genesis;
  for (const [i, line] of scanned.lines.entries()) {
    if (line.error !== null) return { file: scanned.file, line: line.number, message: line.error };
    if (line.prev !== expected)
      return {
        file: scanned.file,
        ...diagnose(scanned.lines, i, expected, genesis, head !== null && scanned.lines.length < head.lines),
      };
    expected = line.hash;
  }
  return null;
}

/**
 * Checks one file against the chain and its recorded head. With `repairing` (eval's resume), a torn last line
 * is never a problem: it is moved away and its unit re-run, even when it was the recorded head line.
 */
function checkFile(
  scanned: ScannedFile | null,
  file: string,
  manifest: RunManifest,
  repairing: boolean,
): { check: FileCheck; problem: RunLogProblem | null } {
  const recorded = manifest.logHeads?.[file] ?? null;
  const lines = scanned?.lines.length ?? 0;
  const torn = scanned?.torn ? { number: scanned.torn.number, reason: scanned.torn.reason } : null;
  const headLines = recorded?.lines ?? 0;
  const check: FileCheck = { file, lines, recorded, beyondHead: Math.max(0, lines - headLines), torn };
  const fail = (line: number | null, message: string) => ({ check, problem: { file, line, message } });
  if (scanned === null) return fail(null, `deleted: manifest.json records ${headLines} line(s)`);
  const chain = checkChain(scanned, manifest.runId, recorded);
  if (chain) return { check, problem: chain };
  const headTorn = torn !== null && lines === headLines - 1;
  if (lines < headLines && !headTorn)
    return fail(
      lines + 1,
      `missing: manifest.json records ${headLines} line(s), the file has ${lines}${torn ? ' and a torn last line' : ''} (lines deleted from the end)`,
    );
  if (headTorn && !repairing)
    return fail(
      headLines,
      `torn (${torn.reason}): the last line manifest.json records is cut short; the next pnpm eval of this run moves it to ${file}.torn and runs its unit again`,
    );
  if (lines >= headLines && headLines > 0 && scanned.lines[headLines - 1]!.hash !== recorded!.sha256) {
    return fail(
      headLines,
      'differs from the head recorded in manifest.json (the line was edited, or the file rewritten with a recomputed chain)',
    );
  }
  const finished = manifest.status !== 'started';
  if (finished && check.beyondHead > 0)
    return fail(
      headLines + 1,
      `appended after the run finished: manifest.json (status ${manifest.status}) records ${headLines} line(s), the file has ${lines}`,
    );
  if (finished && torn && !headTorn && !repairing)
    return fail(
      torn.number,
      `torn (${torn.reason}) after the run finished (status ${manifest.status}); the next pnpm eval of this run moves it to ${file}.torn`,
    );
  return { check, problem: null };
}

/** Reads manifest.json for the check: null with a problem when unreadable. */
function readManifest(runDir: string): { manifest: RunManifest | null; problem: RunLogProblem | null } {
  const path = join(runDir, 'manifest.json');
  if (!existsSync(path)) return { manifest: null, problem: null };
  try {
    const manifest = JSON.parse(readFileSync(path, 'utf8')) as RunManifest;
    if (typeof manifest?.runId !== 'string')
      return { manifest: null, problem: { file: 'manifest.json', line: null, message: 'runId: expected a string' } };
    return { manifest, problem: null };
  } catch (error) {
    return {
      manifest: null,
      problem: { file: 'manifest.json', line: null, message: `not valid JSON (${(error as Error).message})` },
    };
  }
}

/**
 * Verifies every JSONL file of `runDir` (and every file the manifest records) against the chain and the heads.
 * `manifest` replaces manifest.json (eval passes the one it read before rewriting it); `repairing` see checkFile.
 *
 * @example const check = checkRunLog('runs/sim_8e9e3bd3'); if (check.state === 'broken') console.error(problemText(check.problems[0]!));
 */
export function checkRunLog(
  runDir: string,
  options: { manifest?: RunManifest; repairing?: boolean } = {},
): RunLogCheck {
  const read = options.manifest ? { manifest: options.manifest, problem: null } : readManifest(runDir);
  const base = { runDir, status: read.manifest?.status ?? null, files: [], scanned: [], unbound: false };
  if (read.problem) return { ...base, state: 'broken', problems: [read.problem] };
  const manifest = read.manifest;
  if (manifest === null) return { ...base, state: 'not-a-run', problems: [] };
  if (manifest.logHeads === undefined) {
    const message =
      'written before the run log was hash-chained (manifest.json has no logHeads), so no line of it can be checked';
    return { ...base, state: 'unverifiable', problems: [{ file: 'manifest.json', line: null, message }] };
  }
  const result: RunLogCheck = { ...base, state: 'intact', problems: [], unbound: manifest.bound === undefined };
  for (const file of runLogFileNames(runDir, Object.keys(manifest.logHeads))) {
    const scanned = scanLogFile(runDir, file);
    if (scanned) result.scanned.push(scanned);
    const { check, problem } = checkFile(scanned, file, manifest, options.repairing ?? false);
    result.files.push(check);
    if (problem) result.problems.push(problem);
  }
  for (const problem of checkBinding(runDir, manifest)) result.problems.push({ ...problem, line: null });
  result.state = result.problems.length > 0 ? 'broken' : manifest.status === 'started' ? 'unfinished' : 'intact';
  return result;
}
