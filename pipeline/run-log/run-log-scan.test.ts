// scanLogHead (issue #18): the streamed head of a run-log file equals the head scanLogFile gives, across chunk boundaries.
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { lineHash } from './run-log-chain.js';
import { scanLogFile, scanLogHead } from './run-log-scan.js';

describe('scanLogHead', () => {
  it('line count and last-line hash as scanLogFile(parse: false) has them', () => {
    const dir = mkdtempSync(join(tmpdir(), 'stalebench-log-head-'));
    const long = Array.from({ length: 900 }, (_, i) => JSON.stringify({ prev: 'p', i, text: 'ü😀x'.repeat(300 + i) }));
    const contents = [
      '',
      'no newline at all',
      '{"a":1}\n',
      '{"a":1}\n\n',
      '{"a":1}\n{"b":2}\ntorn',
      `${long.join('\n')}\n`,
      `${long.join('\n')}\n${'y'.repeat(3_000_000)}`,
      // A complete line longer than a chunk, last or followed by short lines ending in the same chunk.
      `{"a":1}\n${'z'.repeat(2_500_000)}\n`,
      `${'z'.repeat(2_500_000)}\n{"c":3}\n{"d":4}\n`,
    ];
    for (const [index, content] of contents.entries()) {
      writeFileSync(join(dir, `${index}.jsonl`), content);
      const scanned = scanLogFile(dir, `${index}.jsonl`, { parse: false })!;
      const last = scanned.lines.at(-1);
      expect(scanLogHead(dir, `${index}.jsonl`), `content ${index}`).toEqual(
        last ? { lines: scanned.lines.length, sha256: last.hash } : null,
      );
    }
    expect(scanLogHead(dir, 'absent.jsonl')).toBeNull();
  });
});

/** scanLogFile as it was before it streamed: the whole file in memory, split at each newline. */
function wholeFileScan(path: string) {
  const content = readFileSync(path);
  const lines: {
    number: number;
    offset: number;
    bytes: Buffer;
    hash: string;
    json: boolean;
    error: string | null;
    prev: string | null;
  }[] = [];
  let torn = null;
  for (let offset = 0; offset < content.length; ) {
    const end = content.indexOf(0x0a, offset);
    if (end < 0) {
      torn = { number: lines.length + 1, offset, bytes: content.subarray(offset), reason: 'no trailing newline' };
      break;
    }
    const bytes = content.subarray(offset, end);
    let link: { prev: string | null; error: string | null; json: boolean };
    if (bytes.length === 0) link = { prev: null, error: 'empty line', json: false };
    else
      try {
        const value = JSON.parse(bytes.toString('utf8')) as { prev?: unknown };
        link =
          typeof value?.prev === 'string'
            ? { prev: value.prev, error: null, json: true }
            : {
                prev: null,
                error: 'no "prev" chain link (written before the run log was chained, or by hand)',
                json: true,
              };
      } catch (error) {
        link = { prev: null, error: `not valid JSON (${(error as Error).message})`, json: false };
      }
    lines.push({ number: lines.length + 1, offset, bytes, hash: lineHash(bytes), ...link });
    offset = end + 1;
  }
  const last = lines.at(-1);
  if (torn === null && last && !last.json) {
    lines.pop();
    torn = { number: last.number, offset: last.offset, bytes: last.bytes, reason: last.error ?? 'not valid JSON' };
  }
  return { lines: lines.map(({ number, hash, prev, error }) => ({ number, hash, prev, error })), torn };
}

describe('scanLogFile', () => {
  it('streams the file and gives what the whole file in memory gave: hashes, links, bad lines, a torn last line', () => {
    const dir = mkdtempSync(join(tmpdir(), 'stalebench-log-scan-'));
    const long = Array.from({ length: 900 }, (_, i) =>
      JSON.stringify({ prev: `p${i}`, i, text: 'ü😀x'.repeat(300 + i) }),
    );
    const contents = [
      '',
      '\n',
      '{"prev":"a"}\n\n{"prev":"b"}\n',
      '{"prev":"a"}\n{"no":"link"}\nnot json\n{"prev":"c"}\n',
      '{"prev":"a"}\n{"prev":"b"',
      '{"prev":"a"}\n{"prev":"b"\n',
      `${long.join('\n')}\n`,
      `${long.join('\n')}\n{"prev":"torn-${'y'.repeat(3_000_000)}`,
      `${long.join('\n')}\n${'z'.repeat(2_500_000)}\n`,
    ];
    for (const [index, content] of contents.entries()) {
      const file = `${index}.jsonl`;
      writeFileSync(join(dir, file), content);
      // Torn bytes compared by hash (element-wise equality of megabyte buffers is slow).
      const bytesHashed = <T extends { torn: { bytes: Buffer } | null }>(scan: T) => ({
        ...scan,
        torn: scan.torn && { ...scan.torn, bytes: lineHash(scan.torn.bytes) },
      });
      const { lines, torn } = scanLogFile(dir, file)!;
      expect(bytesHashed({ lines, torn }), `content ${index}`).toEqual(bytesHashed(wholeFileScan(join(dir, file))));
    }
    expect(Buffer.byteLength(contents[6]!)).toBeGreaterThan(2 << 20);
  });
});
