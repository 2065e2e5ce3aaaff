import { appendFileSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readJsonLines } from './json-files.js';
import { chainGenesis, lineHash, openRunLogFile } from './run-log-chain.js';

function runDir(runId = 'run-a'): string {
  const dir = mkdtempSync(join(tmpdir(), 'stalebench-chain-'));
  writeFileSync(join(dir, 'manifest.json'), JSON.stringify({ runId }));
  return dir;
}
const rawLines = (path: string) => readFileSync(path, 'utf8').split('\n').slice(0, -1);

describe('openRunLogFile', () => {
  it('starts at the genesis of the run and file, and links every line to the exact bytes of the one before', () => {
    const dir = runDir();
    const log = openRunLogFile(dir, 'records.jsonl');
    for (const unitId of ['a', 'b', 'c']) log.append({ unitId, text: 'naïve ✓' });
    const lines = rawLines(join(dir, 'records.jsonl'));
    expect(lines).toHaveLength(3);
    expect(JSON.parse(lines[0]!).prev).toBe(chainGenesis('run-a', 'records.jsonl'));
    expect(JSON.parse(lines[1]!).prev).toBe(lineHash(Buffer.from(lines[0]!, 'utf8')));
    expect(JSON.parse(lines[2]!).prev).toBe(lineHash(lines[1]!));
    // The genesis differs per run and per file: a first line cannot be moved to another run or file.
    expect(
      new Set([
        chainGenesis('run-a', 'records.jsonl'),
        chainGenesis('run-b', 'records.jsonl'),
        chainGenesis('run-a', 'setup.jsonl'),
      ]).size,
    ).toBe(3);
  });

  it('chains correctly when many units of one process append concurrently, and a reopened file continues from its tip', async () => {
    const dir = runDir();
    const log = openRunLogFile(dir, 'records.jsonl');
    // Forty units append in a scrambled order: each after (i × 7) mod 13 turns of the promise queue, no clock involved.
    await Promise.all(
      Array.from({ length: 40 }, async (_, i) => {
        for (let turn = 0; turn < (i * 7) % 13; turn += 1) await null;
        log.append({ unitId: `u${i}` });
      }),
    );
    openRunLogFile(dir, 'records.jsonl').append({ unitId: 'after-reopen' });
    const lines = rawLines(join(dir, 'records.jsonl'));
    expect(lines).toHaveLength(41);
    lines.forEach((line, i) => {
      expect(JSON.parse(line).prev).toBe(i === 0 ? chainGenesis('run-a', 'records.jsonl') : lineHash(lines[i - 1]!));
    });
  });

  it('stops instead of chaining over a line another writer appended, and refuses a torn file', () => {
    const dir = runDir();
    const path = join(dir, 'records.jsonl');
    const log = openRunLogFile(dir, 'records.jsonl');
    log.append({ unitId: 'a' });
    appendFileSync(path, '{"unitId":"intruder"}\n');
    expect(() => log.append({ unitId: 'b' })).toThrow(/changed by another writer/);
    appendFileSync(path, '{"unitId":"cut');
    expect(() => openRunLogFile(dir, 'records.jsonl')).toThrow(/records\.jsonl: the last line has no newline/);
  });

  it('refuses a record that has a field named like the chain link', () => {
    expect(() => openRunLogFile(runDir(), 'records.jsonl').append({ prev: 'x' })).toThrow(/field named "prev"/);
  });

  it('needs the manifest to bind the chain to the run', () => {
    expect(() => openRunLogFile(mkdtempSync(join(tmpdir(), 'stalebench-chain-')), 'records.jsonl')).toThrow(
      /manifest\.json: missing/,
    );
  });
});

describe('readJsonLines', () => {
  it('drops the chain link from every row, so readers see the records as before', () => {
    const dir = runDir();
    const log = openRunLogFile(dir, 'records.jsonl');
    log.append({ unitId: 'a', nested: { prev: 'kept: only the top-level link is the chain' } });
    expect(readJsonLines(join(dir, 'records.jsonl')).rows).toEqual([
      { unitId: 'a', nested: { prev: 'kept: only the top-level link is the chain' } },
    ]);
  });

  it('names the file and line of a bad line that is not the last, and skips only a torn last line', () => {
    const dir = runDir();
    const path = join(dir, 'x.jsonl');
    writeFileSync(path, '{"a":1}\n{"a":\n{"a":2}\n');
    expect(() => readJsonLines(path)).toThrow(`${path}:2: not valid JSON`);
    writeFileSync(path, '{"a":1}\n{"a":2');
    expect(readJsonLines(path)).toEqual({ rows: [{ a: 1 }], torn: true });
  });
});
