// Target `langgraph-ledger`: langgraph-ledger's TracingCheckpointSaver over SqliteSaver, verify_thread() as the audit.
import type { IntegrityTarget } from './integrity-target.js';
import { checkpointRawAccess } from './langgraph-checkpoints-raw.js';
import { createPythonStoreTarget } from './python-store-target.js';

/**
 * Creates the langgraph-ledger target (backends/python/store_adapters/langgraph_ledger_store.py, environment
 * `langgraph-ledger`). Seeding goes through TracingCheckpointSaver.put(), which logs each checkpoint's SHA-256 into
 * a hash-chained JSONL ledger per thread in `<cell>/ledger/`, beside the store directory; the read path is the inner
 * SqliteSaver, unchanged; the audit is verify_thread(). The edits (and T9's copy) touch `store/` only, as agmi's.
 *
 * Measured (sqlite-family.stores.test.ts), agmi's row exactly: T1–T4, T6, T7 and T9 reported on audit (a logged
 * checkpoint drifted or is missing from the saver; after T9 the ledger, off the store, still names the newer
 * checkpoint); T5 accepted (the forged head was never logged, so the audit never looks for it) and T8 accepted (the
 * digest covers the checkpoint, not its metadata column). Every edit is served on the read path until the audit.
 *
 * @example const target = createLanggraphLedgerTarget(process.cwd());
 */
export function createLanggraphLedgerTarget(root: string): IntegrityTarget {
  return createPythonStoreTarget({
    id: 'langgraph-ledger',
    adapter: 'langgraph_ledger_store',
    config: {},
    root,
    env: 'langgraph-ledger',
    raw: (files, log) =>
      checkpointRawAccess(
        { path: files.sqlite, dir: files.storeDir, label: 'store/checkpoints.db', threads: files.owners },
        log,
      ),
  });
}
