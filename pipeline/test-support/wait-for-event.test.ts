// untilWritten under a directory whose subfolders come and go in another process (a run's per-unit work folders):
// the recursive watch must survive a subfolder removed before it was scanned, and resolve on the awaited file.
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { untilWritten } from './wait-for-event.js';

/** A child that creates and removes 3,000 unit folders (each with a file) under `dir`/work, then writes `done`. */
const CHURN = `
const { mkdirSync, rmSync, writeFileSync } = require('node:fs');
const { join } = require('node:path');
const [dir, done] = process.argv.slice(1);
for (let unit = 0; unit < 3000; unit += 1) {
  const folder = join(dir, 'work', String(unit));
  mkdirSync(folder);
  writeFileSync(join(folder, 'scratch'), 'x');
  rmSync(folder, { recursive: true, force: true });
}
writeFileSync(done, '{}\\n');
`;

describe('untilWritten', () => {
  it('keeps waiting through unit folders another process creates and removes, and resolves on the awaited file', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'stalebench-until-written-'));
    mkdirSync(join(dir, 'work'));
    const done = join(dir, 'records.jsonl');
    const waiting = untilWritten(dir, () => existsSync(done), 60_000, 'records.jsonl');
    const child = spawn(process.execPath, ['-e', CHURN, dir, done], { stdio: 'ignore' });
    const exited = new Promise((resolve) => child.on('exit', resolve));
    await expect(waiting).resolves.toBeUndefined();
    expect(await exited).toBe(0);
    rmSync(dir, { recursive: true, force: true });
  });
});
