// Targets of the three tamper-evidence packages (agmi's rows): Atelya Attest, CONTINUUM, acrf-memory-guard, real PyPI code.
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
 * Measured (2026-12-04): chain alone T1, T3–T8 reported/audit, T2 accepted (a shorter chain is a valid chain), T9
 * accepted (not measured by agmi: the whole-store copy is a valid shorter chain); anchored all nine reported/audit,
 * T2 and T9 as history vanished below an anchored checkpoint. Same as agmi's rows on T1–T8.
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
    tooling: 'JSON-line edits of store/chain-a.jsonl (backends/integrity/raw-files.ts jsonlFile)',
    raw: (files, log) => atelyaChainRawAccess(files, log),
  });
}

/**
 * `continuum` / `continuum-signed`: continuum-agent 0.1.0 with its attest extra (store environment
 * `continuum-agent`), adapter backends/python/store_adapters/continuum_events.py. One run per context in a SQLite
 * events table; read = project() over read_events(); audit = verify_events(), or, signed, `continuum attest-verify`
 * against the Ed25519-signed head in `<cell>/attest` (private key in `<cell>/keys`).
 *
 * Measured (2026-12-04): see the test backends/integrity/tamper-evident.stores.test.ts for the pinned row.
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
 * Measured (2026-12-04): see the test backends/integrity/tamper-evident.stores.test.ts for the pinned row.
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
    tooling: 'JSON member edits of store/memory_store.json (backends/integrity/raw-files.ts jsonObjectFile)',
    raw: (files, log) => acrfStoreRawAccess(files, log),
  });
}
