import { createHash } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ALL_EDITS } from '../harness/edits.js';
import { allControlsHeld, measuredRow } from './measured-row.js';
import { createPoemLedgerTarget } from './poem-ledger-target.js';
import { CHAINED_RUN_LOG, UNCHAINED_RUN_LOG, type RunLogFormat } from './runlog-format.js';
import { createRunlogTarget } from './runlog-target.js';

describe('poem-ledger target (guard/execution-ledger.ts on files)', () => {
  it('a keyed hash chain alone: every edit rejected at read except tail truncation (T2) and the whole-store rollback (T9)', async () => {
    const { row, result } = await measuredRow(createPoemLedgerTarget());
    expect(row).toEqual([
      'T1 rejected/read',
      'T2 accepted',
      'T3 rejected/read',
      'T4 rejected/read',
      'T5 rejected/read',
      'T6 rejected/read',
      'T7 rejected/read',
      'T8 rejected/read',
      'T9 accepted',
    ]);
    expect(allControlsHeld(result)).toBe(true);
    expect(result.metric).toMatchObject({ value: 7 / 8, tamperEvidence: { value: 4 / 5 }, binding: { value: 1 } });
    const reasons = Object.fromEntries(result.cells.map((cell) => [cell.edit, cell.reason]));
    expect(reasons.T1).toBe('verifyChain: mac-mismatch: line 3: the MAC does not verify');
    expect(reasons.T3).toBe('verifyChain: step-mismatch: line 3: step 3 stored at position 2');
    expect(reasons.T6).toMatch(/^verifyChain: chain-mismatch: line 5/);
  }, 60_000);
});

/** A test-only format: the unchained log plus an unkeyed checksum sidecar that a separate verifier compares (audit). */
const CHECKSUMMED: RunLogFormat = {
  id: 'test checksummed records.jsonl',
  append(runDir, record) {
    UNCHAINED_RUN_LOG.append(runDir, record);
    writeFileSync(
      join(runDir, 'records.sha256'),
      createHash('sha256')
        .update(readFileSync(join(runDir, 'records.jsonl')))
        .digest('hex'),
    );
  },
  load: UNCHAINED_RUN_LOG.load,
  audit(runDir) {
    const sidecar = join(runDir, 'records.sha256');
    if (!existsSync(sidecar)) return 'no checksum sidecar';
    const actual = createHash('sha256')
      .update(readFileSync(join(runDir, 'records.jsonl')))
      .digest('hex');
    return actual === readFileSync(sidecar, 'utf8') ? null : 'records.jsonl does not match records.sha256';
  },
};

describe('runlog target (run directories through the run-log format seam)', () => {
  it('the unchained format of run-log v1: every edit accepted (its reader checked nothing), C1–C3 holding', async () => {
    const { row, result } = await measuredRow(createRunlogTarget());
    expect(row).toEqual(ALL_EDITS.map((edit) => `${edit} accepted`));
    expect(allControlsHeld(result)).toBe(true);
    expect(result.version).toBe('stalebench run log unchained records.jsonl (run-log v1)');
  }, 60_000);

  it('the hash-chained format (what pnpm integrity measures): T1–T8 rejected at read by the analysis read path, T9 accepted', async () => {
    // The chain is unkeyed and its heads live in the manifest beside it: a line edit breaks the chain (rejected at
    // read, as report/rescore verify first), but a rollback of the whole run directory is consistent (T9 accepted).
    const { row, result } = await measuredRow(createRunlogTarget(CHAINED_RUN_LOG));
    expect(row).toEqual([...ALL_EDITS.slice(0, 8).map((edit) => `${edit} rejected/read`), 'T9 accepted']);
    expect(allControlsHeld(result)).toBe(true);
    expect(result.cells[0]?.reason).toMatch(/^Error: run log does not verify: records\.jsonl:\d+: edited/);
    expect(result.version).toBe('stalebench run log hash-chained records.jsonl (run-log v3)');
  }, 60_000);

  it('the seam takes another format: a verifier beside the log turns the same edits into REPORTED (audit), T9 still accepted', async () => {
    const { row, result } = await measuredRow(createRunlogTarget(CHECKSUMMED));
    expect(row).toEqual([...ALL_EDITS.slice(0, 8).map((edit) => `${edit} reported/audit`), 'T9 accepted']);
    expect(result.cells[0]?.reason).toBe('records.jsonl does not match records.sha256');
    expect(result.metric).toMatchObject({ value: 0.5, partial: 8 });
  }, 60_000);
});
