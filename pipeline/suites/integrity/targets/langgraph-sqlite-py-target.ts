// Target `langgraph-sqlite-py`: LangGraph's Python SqliteSaver (PyPI langgraph-checkpoint-sqlite) through the store driver.
import type { IntegrityTarget } from './integrity-target.js';
import { checkpointRawAccess } from './langgraph-checkpoints-raw.js';
import { createPythonStoreTarget } from './python-store-target.js';

/** Which release: the main venv's (default, `langgraph-sqlite-py`) or a store environment's (`@<version>` rows). */
export interface LanggraphSqlitePyRelease {
  id: string;
  /** The store environment holding that release (backends/python/store-envs.ts). */
  env: string;
}

/**
 * Creates the Python SqliteSaver target (backends/python/store_adapters/langgraph_sqlite_store.py). Its checkpoints
 * are msgpack blobs; the raw edits are the same SQL and same-length byte edits as for the JS saver.
 *
 * @example const target = createLanggraphSqlitePyTarget(process.cwd());
 */
export function createLanggraphSqlitePyTarget(root: string, release?: LanggraphSqlitePyRelease): IntegrityTarget {
  return createPythonStoreTarget({
    id: release?.id ?? 'langgraph-sqlite-py',
    adapter: 'langgraph_sqlite_store',
    config: {},
    root,
    ...(release ? { env: release.env } : {}),
    raw: (files, log) =>
      checkpointRawAccess(
        { path: files.sqlite, dir: files.storeDir, label: 'store/checkpoints.db', threads: files.owners },
        log,
      ),
  });
}
