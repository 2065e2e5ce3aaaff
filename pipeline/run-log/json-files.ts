// Small file helpers shared by the run log and the cache: atomic JSON writes, torn-line-tolerant JSONL reads.
import { createHash, randomBytes } from 'node:crypto';
import { InvalidInputError } from '#core/errors.js';
import {
  appendFileSync,
  closeSync,
  existsSync,
  openSync,
  readFileSync,
  readSync,
  renameSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { dirname } from 'node:path';
import { CHAIN_FIELD } from './run-log-chain.js';
import { storageErrorOf } from '../run/storage-failure.js';
import { makeDirectory } from '#core/make-directory.js';

/** sha256 hex of a string. */
export function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

/** What a temporary file of `writeJsonAtomic` is named like: `<file>.<8 hex>.tmp`. */
export const ATOMIC_TEMPORARY = /^.+\.[0-9a-f]{8}\.tmp$/;

/**
 * Writes JSON to a temp file beside `path`, then renames it into place (readers never see half a file). A write that
 * fails removes its temp file; a full or read-only disk is thrown as a `StorageError` naming the file.
 */
export function writeJsonAtomic(path: string, value: unknown): void {
  const temporary = `${path}.${randomBytes(4).toString('hex')}.tmp`;
  try {
    makeDirectory(dirname(path));
    writeFileSync(temporary, `${JSON.stringify(value, null, 2)}\n`);
    renameSync(temporary, path);
  } catch (error) {
    try {
      rmSync(temporary, { force: true });
    } catch {
      // A read-only disk keeps it; the next run that can write removes it (pipeline/run/run-session.ts).
    }
    throw storageErrorOf(error, path) ?? error;
  }
}

/** Reads a JSON file, or returns undefined when it does not exist. */
export function readJsonIfExists<T>(path: string): T | undefined {
  if (!existsSync(path)) return undefined;
  return JSON.parse(readFileSync(path, 'utf8')) as T;
}

/** Reads a JSON file; `InvalidInputError` naming it when it is missing or not JSON. */
export function readJsonFile<T>(path: string): T {
  try {
    return JSON.parse(readFileSync(path, 'utf8')) as T;
  } catch (error) {
    throw new InvalidInputError(path, [{ path: '', message: `cannot read JSON: ${(error as Error).message}` }]);
  }
}

/**
 * Appends one unchained JSON line; each call is a single write so a killed process leaves at most one torn line.
 * Run-log files (setup.jsonl, records.jsonl, <experiment>.jsonl) are written through `openRunLogFile` instead.
 */
export function appendJsonLine(path: string, value: unknown): void {
  appendFileSync(path, `${JSON.stringify(value)}\n`);
}

/**
 * Reads a JSONL file. A final line without its newline is a write cut short by a kill and is skipped
 * (reported through `torn`; `pnpm eval` moves it to `<file>.torn` on resume); any other bad line is an error
 * naming the file and line (a blank line carries nothing and is skipped; `pnpm verify-run` flags it). The run
 * log's chain link (`prev`) is dropped from every row.
 */
export function readJsonLines<T>(path: string): { rows: T[]; torn: boolean } {
  const rows: T[] = [];
  const { torn } = forEachJsonLine<T>(path, (row) => rows.push(row));
  return { rows, torn };
}

/** Bytes read at a time by `forEachJsonLine`. */
const CHUNK_BYTES = 1 << 20;

/**
 * `readJsonLines` one row at a time, in file order, without holding the file: it is read in 1 MiB chunks and each
 * complete line is parsed and handed to `onRow` (the same rules: blank lines skipped, a bad line is an error naming
 * file and line, a last line without its newline is `torn` and not parsed, `prev` dropped).
 */
export function forEachJsonLine<T>(path: string, onRow: (row: T) => void): { torn: boolean } {
  const lines = jsonLinesOf<T>(path);
  for (let next = lines.next(); ; next = lines.next()) {
    if (next.done) return next.value;
    onRow(next.value.row);
  }
}

/** One parsed line of a JSONL file and its 1-based line number in the file (blank lines count). */
export interface NumberedRow<T> {
  line: number;
  row: T;
}

/**
 * The rows of a JSONL file as a lazy sequence, with their line numbers, under `forEachJsonLine`'s rules; the
 * sequence's return value says whether the last line was torn. `wanted`, when given, sees each line's raw text
 * first: a line it refuses is neither parsed nor yielded (a cheap pre-filter; it must accept every line that could
 * matter, since a refused line is not checked at all).
 *
 * @example for (const { line, row } of jsonLinesOf<UnitRecord>(path)) await check(row, line);
 */
export function* jsonLinesOf<T>(
  path: string,
  wanted?: (text: string) => boolean,
): Generator<NumberedRow<T>, { torn: boolean }, undefined> {
  if (!existsSync(path)) return { torn: false };
  const file = openSync(path, 'r');
  try {
    const chunk = Buffer.alloc(CHUNK_BYTES);
    let pending = Buffer.alloc(0);
    let lineNumber = 0;
    for (;;) {
      const read = readSync(file, chunk, 0, CHUNK_BYTES, null);
      if (read === 0) break;
      const bytes = pending.length === 0 ? chunk.subarray(0, read) : Buffer.concat([pending, chunk.subarray(0, read)]);
      let start = 0;
      for (let end = bytes.indexOf(0x0a, start); end >= 0; end = bytes.indexOf(0x0a, start)) {
        lineNumber += 1;
        const text = bytes.toString('utf8', start, end);
        start = end + 1;
        if (wanted && !wanted(text)) continue;
        const row = parseRow<T>(path, lineNumber, text);
        if (row !== undefined) yield { line: lineNumber, row };
      }
      // A copy: `chunk` is overwritten by the next read while the rest of this line waits in `pending`.
      pending = Buffer.from(bytes.subarray(start));
    }
    return { torn: pending.toString('utf8').trim() !== '' };
  } finally {
    closeSync(file);
  }
}

function parseRow<T>(path: string, lineNumber: number, line: string): T | undefined {
  if (line.trim() === '') return undefined;
  let row: unknown;
  try {
    row = JSON.parse(line);
  } catch (error) {
    throw new Error(`${path}:${lineNumber}: not valid JSON (${(error as Error).message})`);
  }
  if (row !== null && typeof row === 'object' && typeof (row as Record<string, unknown>)[CHAIN_FIELD] === 'string')
    delete (row as Record<string, unknown>)[CHAIN_FIELD];
  return row as T;
}
