// Targets `inspeximus` (receipts off, the default), `inspeximus-receipts-unsigned` and the two keyed receipts rows
// (`inspeximus-receipts-keyed`, `inspeximus-receipts-keyed-confighome`): the real PyPI library.
import { inspeximusRawAccess } from './inspeximus-raw.js';
import { inspeximusReceiptsRawAccess } from './inspeximus-receipts-raw.js';
import type { IntegrityTarget } from './integrity-target.js';
import { createPythonStoreTarget } from './python-store-target.js';

/**
 * Which inspeximus row: its configuration and what the attacker holds (measured on 3.23.1, pinned in
 * python-targets.test.ts; agmi measured 3.0.0).
 * - `default`: receipts off (the library default); the attacker edits the SQLite file.
 * - `receipts-unsigned`: receipts on WITHOUT a key (an unsigned hash chain); the edits touch the SQLite file only and
 *   leave the receipts sidecar untouched, so this row overstates what the chain protects against an attacker who
 *   holds the store's directory (one who rewrites the sidecar too can rewrite an unsigned chain with it).
 * - `receipts-keyed`: receipts signed with an Ed25519 key minted by `new_receipt_keypair()` and kept in `<cell>/key/`,
 *   off the store and off the config home; audit `verify_writes(expected_pubkey=...)`. The attacker holds the store
 *   directory, sidecar included: T2/T3 delete the removed records' receipts too (the rest keep their signatures:
 *   re-signing needs the key), T9 rolls back the whole directory. T1–T8 and T9 reported (agmi: T1–T5, T7–T8
 *   reported, T9 blank); T2 and T9 by "write log shrank below the head kept outside the store", the head inspeximus
 *   keeps in the user's config home, out of this attacker's reach.
 * - `receipts-keyed-confighome`: as keyed, and the attacker also holds the config home: each removal rewrites the
 *   head to the cut chain, T9 copies and restores the config home with the store. T1–T8 reported, T9 accepted (agmi
 *   blank). agmi reports T2 accepted; here it is reported because the store holds ONE chain over both contexts and
 *   the harness seeds B after A: A's newest records are not the chain's tail, and B's first receipt links to the
 *   removed one inside its signed payload ("broken chain link"). Cutting the chain's own tail (B's newest two) with
 *   the head passes `verify_writes()`; python-targets.test.ts shows it, which is agmi's accepted cell.
 * agmi marks T6 `error` on the receipts rows (its own harness's no-op edit, its note); ours lands (C3) and every
 * receipts row reports it: the victim's text no longer matches its receipt. T8:unrevoke (a retired record set back to
 * active) passes the audit on every receipts row.
 *
 * `pinned` runs the row in a store environment of its own (backends/python/store-envs.ts) and suffixes the id with its
 * version: `inspeximus-receipts-keyed@3.0.0` runs agmi's version (inspeximus-agmi.stores.test.ts): T1–T9 as on 3.23.1,
 * T8:unrevoke not evaluable (3.0.0 has no retire()).
 *
 * @example const target = createInspeximusTarget(process.cwd(), 'receipts-keyed');
 */
export function createInspeximusTarget(
  root: string,
  row: 'default' | 'receipts-unsigned' | 'receipts-keyed' | 'receipts-keyed-confighome',
  pinned?: { env: string; version: string },
): IntegrityTarget {
  const signed = row === 'receipts-keyed' || row === 'receipts-keyed-confighome';
  const configHome = row === 'receipts-keyed-confighome';
  return createPythonStoreTarget({
    id: `${row === 'default' ? 'inspeximus' : `inspeximus-${row}`}${pinned ? `@${pinned.version}` : ''}`,
    adapter: 'inspeximus_store',
    ...(pinned ? { env: pinned.env } : {}),
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
    ...(signed
      ? {
          tooling: configHome
            ? 'SQL through better-sqlite3 on store/memory.db; JSON rewrite of store/memory.db.receipts.json and of the head file home/.config/inspeximus/heads/<tag>.json (T2, T3); cp of store/ and home/ (T9)'
            : 'SQL through better-sqlite3 on store/memory.db; JSON rewrite of store/memory.db.receipts.json (T2, T3); cp of store/ (T9)',
        }
      : {}),
    raw: signed ? (files, log) => inspeximusReceiptsRawAccess(files, log, { configHome }) : inspeximusRawAccess,
  });
}
