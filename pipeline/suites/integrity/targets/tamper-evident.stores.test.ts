// Pinned rows of three tamper-evidence packages on the real PyPI code: agmi's Atelya, CONTINUUM and acrf-memory-guard.
import { describe, expect, it } from 'vitest';
import { ALL_EDITS } from '../harness/edits.js';
import type { TargetResult } from '../harness/integrity-result.js';
import type { IntegrityTarget } from './integrity-target.js';
import { allControlsHeld, measuredRow } from './measured-row.js';
import {
  createAcrfMemoryGuardTarget,
  createAtelyaAttestTarget,
  createContinuumTarget,
} from './tamper-evident-targets.js';

const root = new URL('../../../..', import.meta.url).pathname;

async function skipReason(target: IntegrityTarget): Promise<string | null> {
  const reason = (await target.unavailable?.())?.reason ?? null;
  if (reason) console.log(`[stores] ${target.id} skipped: ${reason}`);
  return reason;
}

const atelya = createAtelyaAttestTarget(root, { anchored: false });
const atelyaAnchored = createAtelyaAttestTarget(root, { anchored: true });
const continuum = createContinuumTarget(root, { signed: false });
const continuumSigned = createContinuumTarget(root, { signed: true });
const acrf = createAcrfMemoryGuardTarget(root);
const skip = {
  atelya: await skipReason(atelya),
  atelyaAnchored: await skipReason(atelyaAnchored),
  continuum: await skipReason(continuum),
  continuumSigned: await skipReason(continuumSigned),
  acrf: await skipReason(acrf),
};

const reasons = (result: TargetResult): Record<string, string> =>
  Object.fromEntries(result.cells.map((cell) => [cell.edit, cell.reason ?? '']));
/** Every edit ran as logged raw commands (T9: the copy and the restore), none through the store's code. */
const everyEditLogged = (result: TargetResult): boolean => result.cells.every((cell) => cell.commands.length > 0);
const row = (verdicts: Record<string, string>): string[] => ALL_EDITS.map((edit) => `${edit} ${verdicts[edit]}`);
const audit = 'reported/audit';

// Each row pins the verdicts measured on 2026-12-04; a version move fails the version line: re-measure then.
describe('tamper-evidence packages (agmi rows) through the store driver', () => {
  it.skipIf(skip.atelya !== null)(
    'atelya-attest 0.1.1, keyed chain: T1, T3–T8 reported by verify_chain(), T2 and T9 accepted',
    async () => {
      const described = await atelya.describe();
      expect(described.versions).toEqual({ 'atelya-attest': '0.1.1' });
      expect(described.detection).toBe('audit');
      expect(described.config.anchor).toBe('off');
      expect(described.config.chain).toContain('key kept in <cell>/keys, outside the store');
      expect(described.tooling).toMatch(/^JSON-line edits of store\/chain-a\.jsonl .*; cp of store\/ \(T9\)/);
      const { row: measured, result } = await measuredRow(atelya);
      expect(measured).toEqual(
        row({
          T1: audit,
          T2: 'accepted',
          T3: audit,
          T4: audit,
          T5: audit,
          T6: audit,
          T7: audit,
          T8: audit,
          T9: 'accepted',
        }),
      );
      expect(allControlsHeld(result)).toBe(true);
      expect(everyEditLogged(result)).toBe(true);
      const why = reasons(result);
      expect(why.T1).toBe(
        'verify_chain: TAMPER DETECTED at seq=2: curr_hash mismatch (payload modified after attestation)',
      );
      expect(why.T3).toContain('sequence gap/reorder: entry has seq=3, expected 2');
      // The read path replays whatever the chain holds: the edited number is served until the audit runs.
      expect(result.cells[0]?.observation).toBe('served 5 records; 1 of 1 edited contents among them');
      expect(result.cells[1]?.observation).toBe('served 3 records');
    },
    180_000,
  );

  it.skipIf(skip.atelyaAnchored !== null)(
    'atelya-attest 0.1.1, chain plus anchored head: all nine reported; T2 and T9 by the anchor check',
    async () => {
      const { row: measured, result } = await measuredRow(atelyaAnchored);
      expect(measured).toEqual(ALL_EDITS.map((edit) => `${edit} ${audit}`));
      expect(allControlsHeld(result)).toBe(true);
      expect(result.metric).toMatchObject({ value: 0.5, partial: 8, t9: 'reported' });
      const why = reasons(result);
      for (const edit of ['T2', 'T9'])
        expect(why[edit]).toMatch(
          /^anchor check: FAIL — ANCHOR CONFLICT .*history truncated\/vanished below an anchored checkpoint$/,
        );
      expect(why.T5).toContain('verify_chain: TAMPER DETECTED at seq=5');
    },
    180_000,
  );

  it.skipIf(skip.continuum !== null)(
    'continuum-agent 0.1.0, hash chain: T1, T3–T8 reported by verify_events(), T2 and T9 accepted',
    async () => {
      const described = await continuum.describe();
      expect(described.versions).toEqual({ 'continuum-agent': '0.1.0' });
      expect(described.tooling).toMatch(/^SQL through better-sqlite3 on store\/continuum\.db; cp of store\/ \(T9\)/);
      expect(described.detection).toBe('audit');
      const { row: measured, result } = await measuredRow(continuum);
      expect(measured).toEqual(
        row({
          T1: audit,
          T2: 'accepted',
          T3: audit,
          T4: audit,
          T5: audit,
          T6: audit,
          T7: audit,
          T8: audit,
          T9: 'accepted',
        }),
      );
      expect(allControlsHeld(result)).toBe(true);
      expect(everyEditLogged(result)).toBe(true);
      const why = reasons(result);
      expect(why.T1).toMatch(/^verify_events: 2 violation\(s\): seq 4: TAMPERED_CONTENT/);
      expect(why.T3).toContain('seq 5: SEQUENCE_GAP (expected sequence 4)');
      expect(why.T5).toBe(
        'verify_events: 1 violation(s): seq 7: TAMPERED_CONTENT (stored hash does not match recomputed digest)',
      );
      // project() folds the edited log without complaint: the agent resumes from the edit until the audit runs.
      expect(result.cells[0]?.observation).toBe('served 5 records; 1 of 1 edited contents among them');
    },
    180_000,
  );

  it.skipIf(skip.continuumSigned !== null)(
    'continuum-agent 0.1.0, chain plus Ed25519-signed head: all nine reported by attest-verify (ALTERED)',
    async () => {
      const described = await continuumSigned.describe();
      expect(described.versions).toEqual({ 'continuum-agent': '0.1.0', cryptography: '50.0.2' });
      const { row: measured, result } = await measuredRow(continuumSigned);
      expect(measured).toEqual(ALL_EDITS.map((edit) => `${edit} ${audit}`));
      expect(allControlsHeld(result)).toBe(true);
      const why = reasons(result);
      for (const edit of ALL_EDITS) expect(why[edit]).toContain('"signature_valid": true');
      for (const edit of ALL_EDITS) expect(why[edit]).toContain('"verdict": "ALTERED"');
      // T2: the chain itself is intact; only the signed point (sequence 6) no longer matches the live head (4).
      expect(why.T2).toContain('"chain_intact": true, "chain_match": false, "live_seq": 4');
      expect(why.T2).toContain('"signed_seq": 6');
      // T9: the restored store is an intact chain one write short of the signature kept outside it.
      expect(why.T9).toContain('"chain_intact": true, "chain_match": false, "live_seq": 6');
      expect(why.T9).toContain('"signed_seq": 7');
    },
    180_000,
  );

  it.skipIf(skip.acrf !== null)(
    'acrf-memory-guard 0.1.0: T1, T5, T8 rejected by read_safe(); T2–T4, T6, T7 and T9 accepted',
    async () => {
      const described = await acrf.describe();
      expect(described.versions).toEqual({ 'acrf-memory-guard': '0.1.0' });
      expect(described.detection).toBe('read');
      expect(described.tooling).toMatch(/^JSON member edits of store\/memory_store\.json /);
      const { row: measured, result } = await measuredRow(acrf);
      const read = 'rejected/read';
      expect(measured).toEqual(
        row({
          T1: read,
          T2: 'accepted',
          T3: 'accepted',
          T4: 'accepted',
          T5: read,
          T6: 'accepted',
          T7: 'accepted',
          T8: read,
          T9: 'accepted',
        }),
      );
      expect(allControlsHeld(result)).toBe(true);
      expect(everyEditLogged(result)).toBe(true);
      expect(result.metric).toMatchObject({ value: 3 / 8, partial: 0 });
      const why = reasons(result);
      for (const edit of ['T1', 'T5', 'T8'])
        expect(why[edit]).toMatch(
          /^MemoryIntegrityError: Memory integrity check failed\. .*Entry was modified after signing\.$/,
        );
      // T6: the other user's genuine entry, signed content naming ctx-B, is served under ctx-A's key.
      expect(result.cells[5]?.observation).toBe('served 5 records; 1 of 1 edited contents among them');
    },
    180_000,
  );
});
