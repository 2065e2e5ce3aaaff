// scanLogHead (issue #18): the streamed head of a run-log file equals the head scanLogFile gives, across chunk boundaries.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
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
