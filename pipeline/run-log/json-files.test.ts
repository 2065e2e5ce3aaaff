// forEachJsonLine (issue #18): the chunked JSONL reader gives exactly what reading the whole file and splitting gave.
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { forEachJsonLine, jsonLinesOf, readJsonLines } from './json-files.js';

/** The reader as it was before issue #18: the whole file as one string, split on newlines. */
function wholeFile(content: string): { rows: unknown[]; torn: boolean } {
  const lines = content.split('\n');
  const last = lines.pop() ?? '';
  const rows = lines.filter((line) => line.trim() !== '').map((line) => JSON.parse(line) as Record<string, unknown>);
  for (const row of rows) if (typeof row.prev === 'string') delete row.prev;
  return { rows, torn: last.trim() !== '' };
}

describe('forEachJsonLine', () => {
  const dir = mkdtempSync(join(tmpdir(), 'stalebench-jsonl-'));
  const path = join(dir, 'records.jsonl');
  afterEach(() => rmSync(path, { force: true }));

  it('rows, order, chain links dropped, blank lines, a torn last line, and lines across the 1 MiB chunk boundary', () => {
    // Lines of multibyte text long enough that several straddle a chunk boundary, some mid-character.
    const lines = Array.from({ length: 700 }, (_, index) =>
      JSON.stringify({ prev: 'x'.repeat(64), unitId: `u${index}`, text: 'é€😀'.repeat(400 + (index % 37)) }),
    );
    const variants = [
      `${lines.join('\n')}\n`,
      `${lines.join('\n')}\n\n  \n${lines[0]}\n{"unitId":"torn"`,
      `${lines.join('\r\n')}\r\n`,
      '',
      '\n\n',
      '{"unitId":"only","prev":7}\n',
    ];
    for (const content of variants) {
      writeFileSync(path, content);
      const rows: unknown[] = [];
      const { torn } = forEachJsonLine(path, (row) => rows.push(row));
      expect({ rows, torn }).toEqual(wholeFile(content));
      expect(readJsonLines(path)).toEqual(wholeFile(content));
    }
    expect(Buffer.byteLength(variants[0]!)).toBeGreaterThan(2 << 20);
  });

  it('a bad line is an error naming the file and its line; a missing file is empty', () => {
    writeFileSync(path, '{"a":1}\n\n{"a":\n{"a":3}\n');
    expect(() => forEachJsonLine(path, () => undefined)).toThrow(`${path}:3: not valid JSON`);
    expect(forEachJsonLine(join(dir, 'absent.jsonl'), () => undefined)).toEqual({ torn: false });
  });

  it('jsonLinesOf: rows with their line numbers in the file (blank lines count), the torn flag as its return value', () => {
    writeFileSync(path, '{"a":1}\n\n  \n{"a":2,"prev":"h"}\r\n{"a":3}\n{"a":');
    const lines = jsonLinesOf<{ a: number }>(path);
    const rows = [];
    let next = lines.next();
    for (; !next.done; next = lines.next()) rows.push(next.value);
    expect(rows).toEqual([
      { line: 1, row: { a: 1 } },
      { line: 4, row: { a: 2 } },
      { line: 5, row: { a: 3 } },
    ]);
    expect(next.value).toEqual({ torn: true });
  });

  it('jsonLinesOf: a line the pre-filter refuses is not parsed (even when invalid); breaking off closes the file', () => {
    writeFileSync(path, '{"keep":1}\nnot json\n{"keep":2}\n{"drop":3}\n');
    const kept = [...jsonLinesOf<object>(path, (text) => text.includes('keep'))];
    expect(kept).toEqual([
      { line: 1, row: { keep: 1 } },
      { line: 3, row: { keep: 2 } },
    ]);
    expect(() => [...jsonLinesOf(path)]).toThrow(`${path}:2: not valid JSON`);
    const open = () => readdirSync('/proc/self/fd').length;
    const before = open();
    for (const { row } of jsonLinesOf<object>(path, (text) => text.includes('keep'))) if (row) break;
    expect(open()).toBe(before);
  });
});
