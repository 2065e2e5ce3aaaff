// Reads a run's JSONL files as bytes: each line's hash and chain link, and a torn last line if there is one.
import { closeSync, existsSync, openSync, readdirSync, readSync } from 'node:fs';
import { join } from 'node:path';
import { CHAIN_FIELD, lineHash } from './run-log-chain.js';

/** One complete (newline-terminated) line. */
export interface ScannedLine {
  /** 1-based line number. */
  number: number;
  /** sha256 of the line's exact bytes. */
  hash: string;
  /** The line's chain link, or null when it has none (see `error`). */
  prev: string | null;
  /** Why the line is unusable (not JSON, no chain link), or null. */
  error: string | null;
}

/** A last line that a killed write may have left: no newline, or not JSON. Eval moves it to `<file>.torn`. */
export interface TornLine {
  /** 1-based line number. */
  number: number;
  /** Byte offset where the line starts: the file is truncated to this length. */
  offset: number;
  /** The exact bytes, kept for `<file>.torn`. */
  bytes: Buffer;
  /** `no trailing newline`, or why it is not JSON. */
  reason: string;
}

/** One JSONL file of a run. */
export interface ScannedFile {
  /** The file name inside the run directory. */
  file: string;
  /** Its full path. */
  path: string;
  /** Every complete line, in order (a torn last line excluded). */
  lines: ScannedLine[];
  /** The torn last line, or null. */
  torn: TornLine | null;
}

/** The run-log files of `runDir`: every `*.jsonl` in it, plus `recorded` names (a deleted file is still checked). */
export function runLogFileNames(runDir: string, recorded: readonly string[] = []): string[] {
  const present = existsSync(runDir)
    ? readdirSync(runDir, { withFileTypes: true })
        .filter((e) => e.isFile() && e.name.endsWith('.jsonl'))
        .map((e) => e.name)
    : [];
  return [...new Set([...present, ...recorded])].sort();
}

/** The line's link; `json: false` when the bytes are not JSON at all (what a cut-short write leaves). */
function linkOf(bytes: Buffer): Pick<ScannedLine, 'prev' | 'error'> & { json: boolean } {
  if (bytes.length === 0) return { prev: null, error: 'empty line', json: false };
  let value: unknown;
  try {
    value = JSON.parse(bytes.toString('utf8'));
  } catch (error) {
    return { prev: null, error: `not valid JSON (${(error as Error).message})`, json: false };
  }
  const prev =
    value !== null && typeof value === 'object' ? (value as Record<string, unknown>)[CHAIN_FIELD] : undefined;
  if (typeof prev !== 'string')
    return {
      prev: null,
      error: `no "${CHAIN_FIELD}" chain link (written before the run log was chained, or by hand)`,
      json: true,
    };
  return { prev, error: null, json: true };
}

/**
 * Splits one file into lines. The last line is torn when it has no newline or, having one, is not JSON (a bad
 * line anywhere else stays in `lines` with its `error`). `parse: false` skips JSON parsing (heads only).
 */
export function scanLogFile(runDir: string, file: string, options: { parse?: boolean } = {}): ScannedFile | null {
  const path = join(runDir, file);
  if (!existsSync(path)) return null;
  const parse = options.parse ?? true;
  const lines: ScannedLine[] = [];
  // The last complete line's bytes and offset: only it can be a torn write (issue #18: the file is read in 1 MiB
  // chunks and never held whole).
  let last: { offset: number; length: number; json: boolean; error: string | null } | null = null;
  let rest: { offset: number; bytes: Buffer } | null = null;
  forEachChunkLine(path, (offset, bytes, complete) => {
    if (!complete) {
      rest = { offset, bytes };
      return;
    }
    const link = parse ? linkOf(bytes) : { prev: null, error: null, json: true };
    lines.push({ number: lines.length + 1, hash: lineHash(bytes), prev: link.prev, error: link.error });
    last = { offset, length: bytes.length, json: link.json, error: link.error };
  });
  let torn: TornLine | null = null;
  const cut = rest as { offset: number; bytes: Buffer } | null;
  const final = last as { offset: number; length: number; json: boolean; error: string | null } | null;
  if (cut) torn = { number: lines.length + 1, offset: cut.offset, bytes: cut.bytes, reason: 'no trailing newline' };
  else if (final && !final.json) {
    lines.pop();
    const bytes = readBytes(path, final.offset, final.length);
    torn = { number: lines.length + 1, offset: final.offset, bytes, reason: final.error ?? 'not valid JSON' };
  }
  return { file, path, lines, torn };
}

/** `length` bytes of the file at `offset`. */
function readBytes(path: string, offset: number, length: number): Buffer {
  const fd = openSync(path, 'r');
  try {
    const bytes = Buffer.alloc(length);
    readSync(fd, bytes, 0, length, offset);
    return bytes;
  } finally {
    closeSync(fd);
  }
}

/**
 * Calls `onLine` with each line's byte offset and exact bytes (without its newline), reading 1 MiB at a time; a last
 * line without a newline comes with `complete` false. The bytes are valid only during the call (a view of the read
 * buffer, or a copy for a line that spans chunks).
 */
function forEachChunkLine(path: string, onLine: (offset: number, bytes: Buffer, complete: boolean) => void): void {
  const fd = openSync(path, 'r');
  try {
    const chunk = Buffer.alloc(1 << 20);
    let carried: Buffer[] = [];
    let lineStart = 0;
    let position = 0;
    for (
      let read = readSync(fd, chunk, 0, chunk.length, null);
      read > 0;
      read = readSync(fd, chunk, 0, chunk.length, null)
    ) {
      let start = 0;
      for (let end = chunk.indexOf(0x0a, start); end >= 0 && end < read; end = chunk.indexOf(0x0a, start)) {
        const piece = chunk.subarray(start, end);
        onLine(lineStart, carried.length > 0 ? Buffer.concat([...carried, piece]) : piece, true);
        carried = [];
        start = end + 1;
        lineStart = position + start;
      }
      if (start < read) carried.push(Buffer.from(chunk.subarray(start, read)));
      position += read;
    }
    if (carried.length > 0) onLine(lineStart, Buffer.concat(carried), false);
  } finally {
    closeSync(fd);
  }
}

/**
 * The head of one file, streamed in 1 MiB chunks (issue #18: the file is not held): its complete lines and the
 * sha256 of the last one, exactly what `scanLogFile(…, { parse: false })` gives; null for a missing file or one
 * without a complete line.
 */
export function scanLogHead(runDir: string, file: string): { lines: number; sha256: string } | null {
  const path = join(runDir, file);
  if (!existsSync(path)) return null;
  const fd = openSync(path, 'r');
  try {
    const chunk = Buffer.alloc(1 << 20);
    let lines = 0;
    let current: Buffer[] = [];
    let last: Buffer | null = null;
    for (
      let read = readSync(fd, chunk, 0, chunk.length, null);
      read > 0;
      read = readSync(fd, chunk, 0, chunk.length, null)
    ) {
      let start = 0;
      let lastStart = -1; // the last line ending in this chunk: copied once per chunk, not once per line (issue #18)
      for (let end = chunk.indexOf(0x0a, start); end >= 0 && end < read; end = chunk.indexOf(0x0a, start)) {
        lines += 1;
        if (lastStart >= 0) current = []; // the carried bytes were the start of the chunk's first line only
        lastStart = start;
        start = end + 1;
      }
      if (lastStart >= 0) {
        last = Buffer.concat([...current, chunk.subarray(lastStart, start - 1)]);
        current = [];
      }
      if (start < read) current.push(Buffer.from(chunk.subarray(start, read)));
    }
    return last === null ? null : { lines, sha256: lineHash(last) };
  } finally {
    closeSync(fd);
  }
}
