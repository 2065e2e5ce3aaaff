// The streamed summary (issue #18): records.jsonl read line by line, each record reduced to what summarising reads,
// gives exactly the summary of the fully loaded run, and of summary.json as `pnpm eval` wrote it.
import { appendFileSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { specFromArgs } from '../../pipeline/cli/cli.js';
import type { UnitRecord } from '../../pipeline/run-log/run-log.js';
import { runEvaluation } from '../../pipeline/run/run.js';
import { loadRun, readRunRecords, summarizeRun, summarizeStoredRun } from '../load-run.js';
import type { Summary } from './summarize.js';
import { copyRun } from '../test-support/run-copies.js';

let stored = '';
beforeAll(async () => {
  const out = mkdtempSync(join(tmpdir(), 'stalebench-summary-stream-'));
  const args = [
    '--model',
    'sim',
    '--systems',
    'graphiti,mem0-exp',
    '--modes',
    'direct',
    '--arms',
    'none,output-filter,guard',
  ];
  const spec = specFromArgs([...args, '--guard', 'off,on', '--poem', 'off,on', '--trials', '2', '--out', out], {});
  stored = (await runEvaluation(spec, { apiKey: undefined })).runDir;
}, 120_000);

describe('summarizeStoredRun', () => {
  it('equals the summary of the loaded run and the cells of summary.json, byte for byte', () => {
    const written = JSON.parse(readFileSync(join(stored, 'summary.json'), 'utf8')) as Summary;
    const streamed = summarizeStoredRun(stored);
    expect(JSON.stringify(streamed.cells)).toBe(JSON.stringify(written.cells));
    expect(JSON.stringify(streamed)).toBe(JSON.stringify(summarizeRun(loadRun(stored))));
    expect(streamed.cells.some((cell) => cell.poemVerdicts && cell.unsafe.n > 0)).toBe(true);
  });

  it('the last line of a unit wins, as in loadRun (a retried error superseded)', () => {
    const copy = copyRun(stored);
    const [first] = readFileSync(join(copy, 'records.jsonl'), 'utf8').split('\n');
    const record = JSON.parse(first!) as UnitRecord;
    const superseding = { ...record, status: 'error', scores: { unsafe: null, parseFailure: false } };
    appendFileSync(join(copy, 'records.jsonl'), `${JSON.stringify(superseding)}\n`);
    const streamed = summarizeStoredRun(copy);
    expect(streamed).toEqual(summarizeRun(loadRun(copy)));
    expect(streamed).not.toEqual(summarizeStoredRun(stored));
    expect(readRunRecords(copy, (r) => r.status).get(record.unitId)).toBe('error');
  });
});
