// Pinned rows of inspeximus 3.0.0, the version agmi measured, in the `inspeximus-3.0.0` store environment.
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ALL_EDITS } from '../harness/edits.js';
import type { TargetResult } from '../harness/integrity-result.js';
import { auditAfterChainTailCut } from './chain-tail-cut.js';
import { createInspeximusTarget } from './inspeximus-target.js';
import { allControlsHeld, measuredRow } from './measured-row.js';

const root = join(import.meta.dirname, '..', '..', '..', '..');
const AGMI = { env: 'inspeximus-3.0.0', version: '3.0.0' };
const everyEdit = [
  ...ALL_EDITS.slice(0, 8).map((edit) => ({ edit, variant: null as 'unrevoke' | null })),
  { edit: 'T8' as const, variant: 'unrevoke' as const },
  { edit: 'T9' as const, variant: null },
];
const scratch = mkdtempSync(join(tmpdir(), 'inspeximus-agmi-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));
const reason = (await createInspeximusTarget(root, 'default', AGMI).unavailable?.())?.reason ?? null;
if (reason) console.log(`[stores] inspeximus@3.0.0 skipped: ${reason}`);

/** 3.0.0 has no retire(), the revocation primitive the T8:unrevoke seeding uses: that cell is not evaluable. */
const measure = async (row: Parameters<typeof createInspeximusTarget>[1]) => {
  const target = createInspeximusTarget(root, row, AGMI);
  const described = await target.describe();
  expect(described.versions.inspeximus).toBe('3.0.0');
  const { row: cells, result } = await measuredRow(target, everyEdit);
  const unrevoke = result.cells.find((cell) => cell.variant === 'unrevoke');
  expect(unrevoke).toMatchObject({
    verdict: 'not-evaluable',
    reason: 'not evaluable: the store declares no revocation fields to clear',
  });
  const nine: TargetResult = { ...result, cells: result.cells.filter((cell) => cell !== unrevoke) };
  expect(allControlsHeld(nine)).toBe(true);
  return {
    id: target.id,
    cells,
    reasons: Object.fromEntries(nine.cells.map((cell) => [cell.edit, cell.reason ?? ''])),
  };
};
const reported = (t9: string) => [
  ...ALL_EDITS.slice(0, 8).map((edit) => `${edit} reported/audit`),
  'T8:unrevoke not-evaluable',
  `T9 ${t9}`,
];

// agmi's rows (inspeximus 3.0.0): default T1–T5 accepted, T6 error, T7–T8 accepted; keyed T1–T5 reported, T6 error,
// T7–T8 reported; keyed-confighome T2 accepted, the rest as keyed. agmi's T6 `error` was its own harness's no-op edit
// (its note); ours lands. agmi leaves T9 blank.
describe('inspeximus 3.0.0 (the version agmi measured)', () => {
  it.skipIf(reason !== null)(
    'receipts off (default): T1–T9 accepted, T6 too on a landed edit (agmi: error)',
    async () => {
      const { id, cells } = await measure('default');
      expect(id).toBe('inspeximus@3.0.0');
      expect(cells).toEqual([
        ...ALL_EDITS.slice(0, 8).map((edit) => `${edit} accepted`),
        'T8:unrevoke not-evaluable',
        'T9 accepted',
      ]);
    },
    300_000,
  );

  it.skipIf(reason !== null)(
    'receipts on WITHOUT a key, sidecar untouched: T1–T9 reported (audit)',
    async () => {
      const { id, cells, reasons } = await measure('receipts-unsigned');
      expect(id).toBe('inspeximus-receipts-unsigned@3.0.0');
      expect(cells).toEqual(reported('reported/audit'));
      expect(reasons.T2).toContain('written but missing from the store (deleted out-of-band)');
    },
    300_000,
  );

  it.skipIf(reason !== null)(
    'receipts keyed, attacker holds the store directory: T1–T9 reported (agmi: T1–T8 reported, T6 error)',
    async () => {
      const { id, cells, reasons } = await measure('receipts-keyed');
      expect(id).toBe('inspeximus-receipts-keyed@3.0.0');
      expect(cells).toEqual(reported('reported/audit'));
      expect(reasons.T2).toContain('write log shrank below the head kept outside the store: 8 < 10');
      expect(reasons.T9).toContain('write log shrank below the head kept outside the store: 10 < 11');
      // 3.0.0 receipts do not bind the owner yet (3.23.1 names WHOSE it is): T6 is reported for the changed text.
      expect(reasons.T6).toContain('its TEXT or KEY');
      expect(reasons.T6).not.toContain('WHOSE');
    },
    300_000,
  );

  it.skipIf(reason !== null)(
    "receipts keyed, attacker also holds the config home: T1–T8 reported, T9 accepted; agmi's T2 accepted holds for the chain's own tail",
    async () => {
      const { id, cells, reasons } = await measure('receipts-keyed-confighome');
      expect(id).toBe('inspeximus-receipts-keyed-confighome@3.0.0');
      expect(cells).toEqual(reported('accepted'));
      // A's newest records are not the chain's tail (B was written after them): B's next receipt names the removed one.
      expect(reasons.T2).toBe('receipt 3: broken chain link (a prior receipt was altered/removed)');
      const dir = join(scratch, 'tail-cut');
      mkdirSync(dir);
      expect(await auditAfterChainTailCut(createInspeximusTarget(root, 'receipts-keyed-confighome', AGMI), dir)).toBe(
        'ok',
      );
    },
    300_000,
  );
});
