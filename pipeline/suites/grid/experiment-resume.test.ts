// readExperimentResume: which units a resumed grid still runs, and which stored replies a reusing arm reads.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { ArmId } from '../../run/arms.js';
import { readExperimentResume } from './experiment-resume.js';
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
  }) as unknown as UnitRecord;

function runDirWith(records: UnitRecord[]): string {
  const dir = mkdtempSync(join(tmpdir(), 'stalebench-resume-state-'));
  writeFileSync(join(dir, 'records.jsonl'), records.map((r) => `${JSON.stringify({ prev: 'x', ...r })}\n`).join(''));
  return dir;
}

describe('readExperimentResume', () => {
  const stored = [
    recordOf(keyOf('none', 0), 'error', ''),
    recordOf(keyOf('none', 0), 'ok', 'retried reply'), // the last record of a unit wins
    recordOf(keyOf('none', 1), 'error', ''),
    recordOf(keyOf('output-filter', 2), 'ok', 'filtered'),
  ];

  it('skips units whose last record is ok; reruns errors only with retryErrors; runs units never recorded', () => {
    const arms: ArmId[] = ['none', 'output-filter'];
    const plain = readExperimentResume(runDirWith(stored), { arms, retryErrors: false });
    expect(plain.isPending(keyOf('none', 0))).toBe(false);
    expect(plain.isPending(keyOf('none', 1))).toBe(false);
    expect(plain.isPending(keyOf('output-filter', 2))).toBe(false);
    expect(plain.isPending(keyOf('none', 2))).toBe(true);
    const retrying = readExperimentResume(runDirWith(stored), { arms, retryErrors: true });
    expect(retrying.isPending(keyOf('none', 0))).toBe(false);
    expect(retrying.isPending(keyOf('none', 1))).toBe(true);
  });

  it('keeps the last stored reply of a unit the output filter reuses, and each new one it is told about', () => {
    const resume = readExperimentResume(runDirWith(stored), { arms: ['none', 'output-filter'], retryErrors: false });
    expect(resume.reuseOf(keyOf('output-filter', 0))).toBe('none');
    expect(resume.reuseOf(keyOf('none', 0))).toBeNull();
    expect(resume.reusable(unitIdOf(keyOf('none', 0)))).toMatchObject({
      status: 'ok',
      promptSha256: 'sha-none-0',
      reply: { text: 'retried reply' },
    });
    expect(resume.reusable(unitIdOf(keyOf('none', 1)))).toMatchObject({ status: 'error', reply: null });
    // Nothing reuses an output-filter unit: its reply is not kept.
    expect(resume.reusable(unitIdOf(keyOf('output-filter', 2)))).toBeUndefined();
    resume.remember(recordOf(keyOf('none', 3), 'ok', 'fresh'));
    expect(resume.reusable(unitIdOf(keyOf('none', 3)))?.reply?.text).toBe('fresh');
  });

  it('keeps no reply when no arm of the run reuses it (no output filter), and reads a missing file as empty', () => {
    const resume = readExperimentResume(runDirWith(stored), { arms: ['none', 'store-filter'], retryErrors: false });
    expect(resume.reusable(unitIdOf(keyOf('none', 0)))).toBeUndefined();
    resume.remember(recordOf(keyOf('none', 3), 'ok', 'fresh'));
    expect(resume.reusable(unitIdOf(keyOf('none', 3)))).toBeUndefined();
    const empty = readExperimentResume(mkdtempSync(join(tmpdir(), 'stalebench-resume-none-')), {
      arms: ['none'],
      retryErrors: false,
    });
    expect(empty.isPending(keyOf('none', 0))).toBe(true);
  });
});
