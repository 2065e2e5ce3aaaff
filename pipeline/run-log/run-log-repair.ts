// Before an eval invocation appends: verify the existing run log, move torn last lines to `<file>.torn`, and
// compute the heads the manifest records.
import { closeSync, existsSync, fsyncSync, openSync, truncateSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import type { LogHead, RunManifest } from './run-log.js';
import { runLogFileNames, scanLogFile, scanLogHead, type ScannedFile, type TornLine } from './run-log-scan.js';
import { checkRunLog, problemText, RunLogError } from './run-log-verify.js';

/** The head of a scanned file without its torn line, or null for a file with no complete line. */
function headOf(scanned: ScannedFile): LogHead | null {
  const last = scanned.lines.at(-1);
  return last ? { lines: scanned.lines.length, sha256: last.hash } : null;
}

/** The heads of every JSONL file of `runDir` as they are on disk now (what `finish` writes into the manifest). */
export function readLogHeads(runDir: string): Record<string, LogHead> {
  const heads: Record<string, LogHead> = {};
  for (const file of runLogFileNames(runDir)) {
    const head = scanLogHead(runDir, file); // streamed: the file is not held (issue #18)
    if (head) heads[file] = head;
  }
  return heads;
}

/** Appends the torn bytes, exactly, under a dated header to `<file>.torn` (flushed), then cuts them from the file. */
function moveTorn(scanned: ScannedFile, torn: TornLine, now: Date): void {
  const header = `# ${now.toISOString()} ${scanned.file} line ${torn.number} (${torn.bytes.length} bytes, ${torn.reason}): moved here by pnpm eval before resuming; its unit runs again\n`;
  const fd = openSync(`${scanned.path}.torn`, 'a');
  try {
    writeSync(fd, Buffer.concat([Buffer.from(header), torn.bytes, Buffer.from('\n')]));
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  // Copied first, cut second: a crash in between leaves the line in both places, never in neither.
  truncateSync(scanned.path, torn.offset);
}

/**
 * Run at the start of every eval invocation on `runDir`, after the spec check and before the new manifest is
 * written. Refuses (RunLogError, exit 1) a run log that does not verify against `previous` (edited, deleted,
 * reordered, inserted or truncated lines; lines appended after a finished run; a run predating the chain; log
 * files without a manifest). Then moves each torn last line to `<file>.torn` (its unit simply runs again) and
 * returns the heads of the verified files for the new manifest.
 *
 * @example const logHeads = prepareRunLog(runDir, previous, log);
 */
export function prepareRunLog(
  runDir: string,
  previous: RunManifest | undefined,
  log: (line: string) => void = () => {},
): Record<string, LogHead> {
  if (!existsSync(runDir)) return {};
  const refuse = (reason: string, problems: RunLogError['problems']) =>
    new RunLogError(
      `${runDir}: ${reason}; pnpm eval will not extend it. Inspect it with pnpm verify-run ${runDir}; to keep results apart, start a new run (another --run-id or --out)`,
      problems,
    );
  if (previous === undefined) {
    const present = runLogFileNames(runDir).filter((file) => {
      const scanned = scanLogFile(runDir, file, { parse: false });
      return scanned !== null && (scanned.lines.length > 0 || scanned.torn !== null);
    });
    if (present.length > 0)
      throw refuse(
        `${present.join(', ')} exist(s) but manifest.json does not (deleted or never written)`,
        present.map((file) => ({ file, line: null, message: 'no manifest.json to verify it against' })),
      );
    return {};
  }
  const check = checkRunLog(runDir, { manifest: previous, repairing: true });
  if (check.state === 'unverifiable')
    throw refuse(
      'written before the run log was hash-chained (manifest.json has no logHeads), so it cannot be verified',
      check.problems,
    );
  if (check.problems.length > 0)
    throw refuse(
      `the run log does not verify:\n${check.problems.map((p) => `  ${problemText(p)}`).join('\n')}\n`,
      check.problems,
    );
  const heads: Record<string, LogHead> = {};
  const now = new Date();
  for (const scanned of check.scanned) {
    if (scanned.torn) {
      moveTorn(scanned, scanned.torn, now);
      log(
        `${scanned.file}: moved its torn last line (line ${scanned.torn.number}, ${scanned.torn.bytes.length} bytes, ${scanned.torn.reason}) to ${join(runDir, `${scanned.file}.torn`)}; its unit runs again`,
      );
    }
    const head = headOf(scanned);
    if (head) heads[scanned.file] = head;
  }
  return heads;
}
