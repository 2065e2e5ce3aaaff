// Targets of three tamper-evidence packages on the real PyPI code (agmi's rows): Atelya, CONTINUUM, acrf-memory-guard.
import { acrfStoreRawAccess } from './acrf-store-raw.js';
import { atelyaChainRawAccess } from './atelya-chain-raw.js';
import { continuumEventsRawAccess } from './continuum-events-raw.js';
import type { IntegrityTarget } from './integrity-target.js';
import { createPythonStoreTarget } from './python-store-target.js';

/**
 * `atelya-attest` / `atelya-attest-anchored`: atelya-attest 0.1.1 (store environment `atelya-attest`), adapter
 * backends/python/store_adapters/atelya_attest_chain.py. A keyed chain file per context; read = the chain's payloads
 * replayed; audit = verify_chain(), plus, anchored, the package's anchor `check` against a ledger in
 * `<cell>/anchor` (keys in `<cell>/keys`), which the attacker cannot reach.
 *
 * A write rebuilds the context's chain with build_chain() from the payloads it holds plus the new event (the
 * package has no append; the rebuilt prefix is byte-identical), then, anchored, runs the package's anchor command.
 *
 * Measured 2026-12-04: chain alone T1, T3–T8 reported/audit, T2 accepted (a shorter chain is a valid chain);
 * anchored, all eight reported/audit, T2 as "history truncated/vanished below an anchored checkpoint". Both equal
 * agmi's rows. T9, blank in agmi, measured here: accepted by the chain alone (the restored copy is a valid chain one
 * entry short), reported by the anchored row (the ledger outside the store names the newer checkpoint). T5 appends
 * an entry with a random curr_hash: the chain is keyed, so an attacker without the key cannot compute it.
 *
 * @example const target = createAtelyaAttestTarget(process.cwd(), { anchored: true });
 */
export function createAtelyaAttestTarget(root: string, options: { anchored: boolean }): IntegrityTarget {
  return createPythonStoreTarget({
    id: options.anchored ? 'atelya-attest-anchored' : 'atelya-attest',
    adapter: 'atelya_attest_chain',
    config: { anchored: options.anchored },
    root,
    env: 'atelya-attest',
    tooling:
      'JSON-line edits of store/chain-a.jsonl (pipeline/suites/integrity/targets/raw-files.ts jsonlFile); cp of store/ (T9)',
    raw: (files, log) => atelyaChainRawAccess(files, log),
  });
}

/**
 * `continuum` / `continuum-signed`: continuum-agent 0.1.0 with its attest extra (store environment
 * `continuum-agent`), adapter backends/python/store_adapters/continuum_events.py. One run per context in a SQLite
 * events table; read = project() over read_events(); audit = verify_events(), or, signed, `continuum attest-verify`
 * against the Ed25519-signed head in `<cell>/attest` (private key in `<cell>/keys`).
 *
 * Measured 2026-12-04: chain alone T1, T3–T8 reported/audit (TAMPERED_CONTENT, SEQUENCE_GAP, BROKEN_CHAIN), T2
 * accepted; signed, all eight reported/audit (attest-verify ALTERED; T2 as the live head at sequence 4 against the
 * signed 6, chain intact). Both equal agmi's rows. T9, blank in agmi: accepted by the chain alone, reported by the
 * signed row (the attestation outside the store signed one more event). project() never refuses: every edit is
 * served until the audit runs. Differences in form from agmi, not in verdict: a memory is a FINDING_ADDED event
 * (agmi used WORK_COMPLETED, whose text project() drops; a finding's claim is what the projected state serves);
 * T8 changes the signed `source` origin (deterministic → human) where agmi changed the timestamp, both inside the
 * digest. The digest is keyless SHA-256: T5's forged event carries a random hash; an attacker who recomputes it
 * (outside the nine edits, integrity.md §8.2 item 6) passes verify_events, and only the signed head catches that.
 *
 * @example const target = createContinuumTarget(process.cwd(), { signed: true });
 */
export function createContinuumTarget(root: string, options: { signed: boolean }): IntegrityTarget {
  return createPythonStoreTarget({
    id: options.signed ? 'continuum-signed' : 'continuum',
    adapter: 'continuum_events',
    config: { signed: options.signed },
    root,
    env: 'continuum-agent',
    raw: (files, log) => continuumEventsRawAccess(files, log),
  });
}

/**
 * `acrf-memory-guard`: acrf-memory-guard 0.1.0 (store environment `acrf-memory-guard`), adapter
 * backends/python/store_adapters/acrf_memory_guard_store.py. A JSON store of HMAC-signed entries keyed
 * `ctx-A::nn`; read = read_safe() on each entry of the context (detection point read), secret in `<cell>/keys`.
 *
 * Measured 2026-12-04: T1, T5, T8 rejected on read (MemoryIntegrityError); T2, T3, T4, T6, T7 accepted: the HMAC
 * covers one entry's bytes, not its key, its neighbours or the count. Equal to agmi's row. T9, blank in agmi:
 * accepted (every restored entry is genuinely signed). T6 serves ctx-B's entry, whose signed user_id names ctx-B,
 * under ctx-A's key: read_safe() does not compare the owner. T8 changes the signed `source` label (web → user) where
 * agmi changed the timestamp; both are inside the signed entry. T5 copies the tip's `_integrity` onto a new entry.
 *
 * @example const target = createAcrfMemoryGuardTarget(process.cwd());
 */
export function createAcrfMemoryGuardTarget(root: string): IntegrityTarget {
  return createPythonStoreTarget({
    id: 'acrf-memory-guard',
    adapter: 'acrf_memory_guard_store',
    config: {},
    root,
    env: 'acrf-memory-guard',
    tooling:
      'JSON member edits of store/memory_store.json (pipeline/suites/integrity/targets/raw-files.ts jsonObjectFile); cp of store/ (T9)',
    raw: (files, log) => acrfStoreRawAccess(files, log),
  });
}
