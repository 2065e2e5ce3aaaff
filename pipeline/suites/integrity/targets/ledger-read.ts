// The revocation ledger on an integrity target's read path (issue #14 item 4): the read refuses what the ledger does
// not bind (a revived status, altered or unknown content, a missing record, a broken ledger) instead of serving it.
import { randomBytes } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { explicitRevocation } from '../../../../guard/guard-record.js';
import { openRevocationLedger, type JudgedRecord, type RevocationLedger } from '../../../../guard/revocation-ledger.js';
import type { MemoryRecord } from '../../../../backends/memory-backend.js';
import type { ReadOutcome } from './integrity-target.js';

/** What a ledger target's description adds to its configuration. */
export const LEDGER_CONFIG = {
  'revocation ledger':
    "on: the application's keyed hash chain (id, owner, content hash, position, every revoke) in app/, head witness in witness/, key in process only",
};

/**
 * A cell's ledger: the chain in `<dir>/app/revocation-ledger.jsonl` (the application's side, not the store) and its
 * head witness in `<dir>/witness/revocation-head.json`, under a fresh random key this process holds for the cell.
 */
export function openCellLedger(dir: string): RevocationLedger {
  for (const part of ['app', 'witness']) mkdirSync(join(dir, part), { recursive: true });
  return openRevocationLedger({
    path: join(dir, 'app', 'revocation-ledger.jsonl'),
    witnessPath: join(dir, 'witness', 'revocation-head.json'),
    key: randomBytes(32),
  });
}

/** Records as the ledger judges them: the store's own status read as the guard's stage 1 reads it. */
export function judgedRecords(records: readonly MemoryRecord[], now: Date): JudgedRecord[] {
  return records.map((record) => ({
    id: record.id,
    text: record.text,
    storeRevoked: explicitRevocation({ fact: record.text, ...record.fields }, now) !== null,
  }));
}

/** Serves `records` of `owner` only if the ledger binds every one as it is, and every record it binds is there. */
export function ledgerCheckedRead(
  ledger: RevocationLedger,
  owner: string,
  records: readonly JudgedRecord[],
): ReadOutcome {
  const verdicts = ledger.verdicts(owner, records);
  const problems = verdicts.flatMap((verdict, index) => {
    const record = records[index]!;
    const unbound =
      verdict.status === 'broken' ||
      verdict.status === 'altered' ||
      verdict.status === 'unknown' ||
      (verdict.status === 'revoked' && record.storeRevoked === false);
    return unbound ? [`${record.id}: ${verdict.reason}`] : [];
  });
  const served = new Set(records.map((record) => record.id));
  const missing = ledger.expectedIds(owner).filter((id) => !served.has(id));
  problems.push(...missing.map((id) => `${id}: revocation ledger: bound as written but missing from the read`));
  if (problems.length > 0) return { status: 'refused', reason: problems.join('; ') };
  return { status: 'served', texts: records.map((record) => record.text) };
}
