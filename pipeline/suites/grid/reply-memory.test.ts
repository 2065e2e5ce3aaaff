// Which units a resumed grid still runs (the grid suite's record rules under the unit runner), and which stored replies
// a reusing arm reads (createReplyMemory, fed what the runner reads and writes).
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { ArmId } from '../../run/arms.js';
import { inShard } from '../../run/shard.js';
import { runSuiteUnits } from '../suite-units.js';
import { createReplyMemory } from './reply-memory.js';
import { type GridUnit, gridSuite } from './suite.js';
import { unitIdOf, type UnitKey, type UnitRecord } from '../../run-log/run-log.js';

const keyOf = (arm: ArmId, trial: number): UnitKey => ({
  scenario: 'mfa_waiver_access',
  system: 'graphiti',
  mode: 'direct',
  arm,
  model: 'sim',
  trial,
  guard: false,
  poem: false,
});

/** The fields the resume reads of a record (the rest of a stored record is ignored). */
const recordOf = (key: UnitKey, status: 'ok' | 'error', text: string) =>
  ({
    unitId: unitIdOf(key),
    key,
    status,
    promptSha256: `sha-${key.arm}-${key.trial}`,
    reply: status === 'ok' ? { text, sample: `grid/${unitIdOf(key)}` } : null,
    ...(status === 'error' ? { error: { message: 'refused', status: 400 } } : {}),
  }) as unknown as UnitRecord;

const made: string[] = [];
afterAll(() => {
  for (const dir of made) rmSync(dir, { recursive: true, force: true });
});

function runDirWith(records: UnitRecord[]): string {
  const dir = mkdtempSync(join(tmpdir(), 'stalebench-resume-state-'));
  made.push(dir);
  writeFileSync(join(dir, 'manifest.json'), JSON.stringify({ runId: 'resume-test' }));
  writeFileSync(join(dir, 'records.jsonl'), records.map((r) => `${JSON.stringify({ prev: 'x', ...r })}\n`).join(''));
  return dir;
}

const stored = [
  recordOf(keyOf('none', 0), 'error', ''),
  recordOf(keyOf('none', 0), 'ok', 'retried reply'), // the last record of a unit wins
  recordOf(keyOf('none', 1), 'error', ''),
  recordOf(keyOf('output-filter', 2), 'ok', 'filtered'),
];

/** Runs the grid's record rules over `keys` in a directory holding `stored`; returns the unit ids that ran. */
async function unitsRun(keys: UnitKey[], retryErrors: boolean): Promise<string[]> {
  const ran: string[] = [];
  const units: GridUnit[] = keys.map((key) => ({ id: unitIdOf(key), cell: key.arm, key }));
  await runSuiteUnits(
    {
      ...gridSuite,
      runUnit: async ({ key }: GridUnit) => {
        ran.push(unitIdOf(key));
        return recordOf(key, 'ok', 'new');
      },
    },
    {
      runDir: runDirWith(stored),
      units,
      setup: async () => undefined,
      concurrency: 1,
      retryErrors,
      signal: new AbortController().signal,
      redact: (text) => text,
      log: () => {},
    },
  );
  return ran;
}

describe("the grid's resume", () => {
  it('skips units whose last record is ok; reruns errors only with retryErrors; runs units never recorded', async () => {
    const keys = [keyOf('none', 0), keyOf('none', 1), keyOf('output-filter', 2), keyOf('none', 2)];
    expect(await unitsRun(keys, false)).toEqual([unitIdOf(keyOf('none', 2))]);
    expect(await unitsRun(keys, true)).toEqual([unitIdOf(keyOf('none', 1)), unitIdOf(keyOf('none', 2))]);
  });

  it('retries once at the end of the invocation a failure on the endpoint side only', () => {
    const failed = (status: number | undefined) =>
      ({ ...recordOf(keyOf('none', 0), 'error', ''), error: { message: 'x', status } }) as UnitRecord;
    expect([503, 429, 408, undefined, 400, 401].map((status) => gridSuite.retryOnce(failed(status)))).toEqual([
      true,
      true,
      true,
      true,
      false,
      false,
    ]);
    expect(gridSuite.retryOnce(recordOf(keyOf('none', 0), 'ok', 'fine'))).toBe(false);
  });
});

describe('createReplyMemory', () => {
  it('keeps the last reply of a unit the output filter reuses, stored or new', () => {
    const replies = createReplyMemory({ arms: ['none', 'output-filter'] });
    for (const record of stored) replies.remember(record);
    expect(replies.reuseOf(keyOf('output-filter', 0))).toBe('none');
    expect(replies.reuseOf(keyOf('none', 0))).toBeNull();
    expect(replies.reusable(unitIdOf(keyOf('none', 0)))).toMatchObject({
      status: 'ok',
      promptSha256: 'sha-none-0',
      reply: { text: 'retried reply' },
    });
    expect(replies.reusable(unitIdOf(keyOf('none', 1)))).toMatchObject({ status: 'error', reply: null });
    // Nothing reuses an output-filter unit: its reply is not kept.
    expect(replies.reusable(unitIdOf(keyOf('output-filter', 2)))).toBeUndefined();
    replies.remember(recordOf(keyOf('none', 3), 'ok', 'fresh'));
    expect(replies.reusable(unitIdOf(keyOf('none', 3)))?.reply?.text).toBe('fresh');
  });

  it('keeps no reply when no arm of the run reuses it (no output filter)', () => {
    const replies = createReplyMemory({ arms: ['none', 'store-filter'] });
    for (const record of [...stored, recordOf(keyOf('none', 3), 'ok', 'fresh')]) replies.remember(record);
    expect(replies.reusable(unitIdOf(keyOf('none', 0)))).toBeUndefined();
    expect(replies.reusable(unitIdOf(keyOf('none', 3)))).toBeUndefined();
  });

  it('keeps no reply of a unit whose reusing arm is in another shard', () => {
    const shard = { index: 1, count: 2 };
    const replies = createReplyMemory({ arms: ['none', 'output-filter'], shard });
    const kept = [0, 1, 2, 3, 4, 5, 6, 7].filter((trial) => {
      replies.remember(recordOf(keyOf('none', trial), 'ok', 'r'));
      return replies.reusable(unitIdOf(keyOf('none', trial))) !== undefined;
    });
    const reusedHere = [0, 1, 2, 3, 4, 5, 6, 7].filter((trial) => inShard(shard, keyOf('output-filter', trial)));
    expect(kept).toEqual(reusedHere);
    expect(kept.length).toBeGreaterThan(0);
    expect(kept.length).toBeLessThan(8);
  });
});
