// Targets `inspeximus` (receipts off, the default), `inspeximus-receipts-unsigned` and the two keyed receipts rows
// (`inspeximus-receipts-keyed`, `inspeximus-receipts-keyed-confighome`): the real PyPI library.
import { inspeximusRawAccess } from './inspeximus-raw.js';
import { inspeximusReceiptsRawAccess } from './inspeximus-receipts-raw.js';
import type { IntegrityTarget } from './integrity-target.js';
import { createPythonStoreTarget } from './python-store-target.js';

/**
 * Which inspeximus row: its configuration and what the attacker holds.
 * - `default`: receipts off (the library default); the attacker edits the SQLite file.
 * - `receipts-unsigned`: receipts on WITHOUT a key (an unsigned hash chain); the edits touch the SQLite file only and
 *   leave the receipts sidecar untouched, so this row overstates what the chain protects against an attacker who
 *   holds the store's directory (one who rewrites the sidecar too can rewrite an unsigned chain with it).
 * - `receipts-keyed`: receipts signed with an Ed25519 key minted by `new_receipt_keypair()` and kept off the store and
 *   off the config home; audit `verify_writes(expected_pubkey=...)`. The attacker holds the store directory, sidecar
 *   included: T2/T3 delete the removed records' receipts too, T9 rolls back the whole directory. The head inspeximus
 *   keeps in the user's config home is out of reach, so the tail cut (T2) and the rollback (T9) are reported as
 *   "write log shrank below the head" (agmi's second row; agmi leaves T9 blank).
 * - `receipts-keyed-confighome`: as keyed, and the attacker also holds the config home: each removal rewrites the
 *   head to the cut chain, T9 copies and restores the config home with the store. The tail cut is a shorter chain that
 *   is consistent everywhere: T2 accepted (agmi's third row). T3 stays reported (the receipt after the gap names the
 *   missing one inside its signed payload), and so do T1, T4–T8 (signed receipts, no key). T9 accepted (agmi blank).
 * agmi marks T6 `error` on the receipts rows (its own harness's no-op edit, its note); ours lands (C3) and both keyed
 * rows report it: the victim's text no longer matches its signed receipt.
 *
 * @example const target = createInspeximusTarget(process.cwd(), 'receipts-keyed');
 */
export function createInspeximusTarget(
  root: string,
  row: 'default' | 'receipts-unsigned' | 'receipts-keyed' | 'receipts-keyed-confighome',
): IntegrityTarget {
  const signed = row === 'receipts-keyed' || row === 'receipts-keyed-confighome';
  const configHome = row === 'receipts-keyed-confighome';
  return createPythonStoreTarget({
    id: row === 'default' ? 'inspeximus' : `inspeximus-${row}`,
    adapter: 'inspeximus_store',
    config: {
      receipts: row !== 'default',
      ...(signed
        ? {
            signed: true,
            attacker: configHome
              ? "the store directory (SQLite file, receipts sidecar) and the user's config home (the chain head)"
              : "the store directory (SQLite file, receipts sidecar); the user's config home (the chain head) is out of reach",
          }
        : {}),
    },
    root,
    raw: signed ? (files, log) => inspeximusReceiptsRawAccess(files, log, { configHome }) : inspeximusRawAccess,
  });
}
