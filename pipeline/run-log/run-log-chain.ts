// The hash chain of a run's JSONL files: every line carries the sha256 of the line before it (tamper evidence).
import { createHash } from 'node:crypto';
import { appendFileSync, existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { EvalError } from '#core/errors.js';
import { redactDeep, type Redactor } from '../run/redact.js';
import { storageErrorOf } from '../run/storage-failure.js';

/**
 * The field every run-log line starts with: the sha256 (hex) of the previous line's exact bytes (without its
 * newline); the first line's `prev` is {@link chainGenesis} of the run and the file. Readers drop it.
 */
export const CHAIN_FIELD = 'prev';

/** sha256 hex of a line's exact bytes (UTF-8 for a string), without its newline. */
export function lineHash(line: string | Uint8Array): string {
  return createHash('sha256').update(line).digest('hex');
}

/** The `prev` of a file's first line: binds the chain to the run and the file, so lines cannot be spliced across. */
export function chainGenesis(runId: string, file: string): string {
  return lineHash(`stalebench-run-log\0${runId}\0${file}`);
}

/** One line of the chain (no newline): `{"prev": <prev>, ...value}`. */
function chainedLine(value: object, prev: string): string {
  if (Object.hasOwn(value, CHAIN_FIELD))
    throw new EvalError(
      'run-log',
      `a run-log record may not have a field named "${CHAIN_FIELD}" (it is the chain link)`,
    );
  return JSON.stringify({ [CHAIN_FIELD]: prev, ...value });
}

/** The run id the chain of `runDir` is bound to: the manifest's `runId`. */
function runIdOf(runDir: string): string {
  const path = join(runDir, 'manifest.json');
  if (!existsSync(path))
    throw new EvalError('run-log', `${path}: missing; a run-log file is opened only after the manifest is written`);
  const runId = (JSON.parse(readFileSync(path, 'utf8')) as { runId?: unknown }).runId;
  if (typeof runId !== 'string' || runId === '')
    throw new EvalError('run-log', `${path}: runId: expected a non-empty string`);
  return runId;
}

/** Appends chained lines to one JSONL file of a run. */
export interface RunLogFile {
  /** The file name inside the run directory (`records.jsonl`). */
  readonly file: string;
  /** Appends one record as a single synchronous write, chained to the previous line; safe from concurrent units of one process. */
  append(value: object): void;
}

/**
 * Opens one JSONL file of a run for chained appends. The tip (hash of the last line) is read from the file once;
 * each append checks the file still has the size this writer left it at, so a line written by anyone else
 * (another process, an editor) stops the run instead of being silently chained over.
 *
 * @example const log = openRunLogFile(runDir, 'records.jsonl'); log.append(record);
 */
export function openRunLogFile(runDir: string, file: string, redact?: Redactor): RunLogFile {
  const path = join(runDir, file);
  const content = existsSync(path) ? readFileSync(path) : Buffer.alloc(0);
  if (content.length > 0 && content[content.length - 1] !== 0x0a) {
    throw new EvalError(
      'run-log',
      `${path}: the last line has no newline (a torn write); it must be repaired before appending (pnpm eval does this on resume)`,
    );
  }
  const lastStart = content.length === 0 ? -1 : content.lastIndexOf(0x0a, content.length - 2) + 1;
  let tip =
    lastStart < 0 ? chainGenesis(runIdOf(runDir), file) : lineHash(content.subarray(lastStart, content.length - 1));
  let size = content.length;
  return {
    file,
    append(value) {
      const now = statSync(path, { throwIfNoEntry: false })?.size ?? 0;
      if (now !== size)
        throw new EvalError(
          'run-log',
          `${path}: changed by another writer while this run was appending (${size} bytes expected, ${now} found); stopping rather than chaining over it`,
        );
      const line = chainedLine(redact ? redactDeep(value, redact) : value, tip);
      try {
        appendFileSync(path, `${line}\n`);
      } catch (error) {
        throw storageErrorOf(error, path) ?? error;
      }
      tip = lineHash(line);
      size += Buffer.byteLength(line) + 1;
    },
  };
}
