// Small file helpers shared by the run log and the cache: atomic JSON writes, torn-line-tolerant JSONL reads.
import { createHash, randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync, appendFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { CHAIN_FIELD } from './run-log-chain.js';

/** sha256 hex of a string. */
export function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

/** Writes JSON to a temp file beside `path`, then renames it into place (readers never see half a file). */
export function writeJsonAtomic(path: string, value: unknown): void {
  mkdirSync(dirname(path), { recursive: true });
  const temporary = `${path}.${randomBytes(4).toString('hex')}.tmp`;
  writeFileSync(temporary, `${JSON.stringify(value, null, 2)}\n`);
  renameSync(temporary, path);
}

/** Reads a JSON file, or returns undefined when it does not exist. */
export function readJsonIfExists<T>(path: string): T | undefined {
  if (!existsSync(path)) return undefined;
  return JSON.parse(readFileSync(path, 'utf8')) as T;
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
  if (!existsSync(path)) return { rows: [], torn: false };
  const content = readFileSync(path, 'utf8');
  const lines = content.split('\n');
  const last = lines.pop() ?? '';
  const rows: T[] = [];
  lines.forEach((line, index) => {
    if (line.trim() === '') return;
    let row: unknown;
    try {
      row = JSON.parse(line);
    } catch (error) {
      throw new Error(`${path}:${index + 1}: not valid JSON (${(error as Error).message})`);
    }
    if (row !== null && typeof row === 'object' && typeof (row as Record<string, unknown>)[CHAIN_FIELD] === 'string')
      delete (row as Record<string, unknown>)[CHAIN_FIELD];
    rows.push(row as T);
  });
  return { rows, torn: last.trim() !== '' };
}
