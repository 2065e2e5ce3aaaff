// Reading run directories by run-log version: the current and the older readable ones are read; version 1 and newer
// versions are refused with the reason.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { RUN_LOG_VERSION } from '../pipeline/run-log/run-log.js';
import { loadRun } from './load-run.js';

const runWith = (version: number) => {
  const dir = mkdtempSync(join(tmpdir(), 'stalebench-load-run-'));
  writeFileSync(
    join(dir, 'manifest.json'),
    JSON.stringify({ version, runId: 'r', status: 'success', spec: {}, models: [] }),
  );
  return dir;
};

describe('loadRun by run-log version', () => {
  it('reads the current version and the older readable one', () => {
    expect(RUN_LOG_VERSION).toBe(3);
    expect(loadRun(runWith(3)).manifest.runId).toBe('r');
    expect(loadRun(runWith(2)).manifest.runId).toBe('r');
  });

  it('refuses version 1 (shared draws, no hash chain, another unsafe convention) and says what to do', () => {
    expect(() => loadRun(runWith(1))).toThrow(
      /run-log version 1 was written by an older stalebench .*re-run the command with this version/,
    );
  });

  it('refuses a newer version, saying a newer stalebench wrote it, and an unknown one, naming it', () => {
    expect(() => loadRun(runWith(7))).toThrow(
      /run-log version 7 was written by a newer stalebench \(this one reads versions 2 and 3\)/,
    );
    expect(() => loadRun(runWith(0))).toThrow(
      /run-log version 0 is not supported \(this stalebench reads versions 2 and 3\)/,
    );
  });
});
