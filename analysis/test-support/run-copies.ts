// Test helpers: a private copy of a stored run, and line-level edits of its files (what a careless hand or a bug does).
import { cpSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';

/** Copies a run directory into a fresh temporary directory and returns the copy's path. */
export function copyRun(runDir: string): string {
  const copy = join(mkdtempSync(join(tmpdir(), 'stalebench-run-copy-')), basename(runDir));
  cpSync(runDir, copy, { recursive: true });
  return copy;
}

/**
 * Edits the first JSONL line whose row passes `find` (in place, keeping every other byte) and returns its 1-based
 * line number and the row as it was. Throws when no line matches, so a test never passes by editing nothing.
 */
export function editJsonLine<T>(
  path: string,
  find: (row: T) => boolean,
  edit: (row: T) => void,
): { line: number; row: T } {
  const lines = readFileSync(path, 'utf8').split('\n');
  const index = lines.findIndex((text) => text.trim() !== '' && find(JSON.parse(text) as T));
  if (index === -1) throw new Error(`${path}: no line to edit`);
  const row = JSON.parse(lines[index]!) as T;
  const edited = structuredClone(row);
  edit(edited);
  lines[index] = JSON.stringify(edited);
  writeFileSync(path, lines.join('\n'));
  return { line: index + 1, row };
}

/** Edits a JSON file in place. */
export function editJson<T>(path: string, edit: (value: T) => void): void {
  const value = JSON.parse(readFileSync(path, 'utf8')) as T;
  edit(value);
  writeFileSync(path, `${JSON.stringify(value, null, 2)}\n`);
}
