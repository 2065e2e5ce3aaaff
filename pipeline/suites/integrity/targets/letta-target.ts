// Targets `letta` and `letta@0.34.12`: Letta's core-memory checkpoint history (PyPI letta) in-process through the store driver.
import { storeEnvPaths } from '../../../../backends/python/store-envs.js';
import type { IntegrityTarget } from './integrity-target.js';
import { lettaBlockHistoryRawAccess, lettaStorePaths } from './letta-block-history-raw.js';
import { createPythonStoreTarget } from './python-store-target.js';
import { pgserverBin } from './raw-postgres-dir.js';

/**
 * Creates the Letta target (backends/python/store_adapters/letta_block_history.py, environment `letta`). Each context
 * is one core-memory block of its own organization and user; each seeded record is one checkpoint in `block_history`;
 * the read path is agmi's walk (get_block_by_id_async, undo_checkpoint_block to the earliest, redo_checkpoint_block to
 * the highest). The store is PostgreSQL 16.2 from the pgserver wheel; the raw edits start that same server on the
 * stopped data directory and run SQL through psql (T9: `cp -a` of the whole data directory). Measured here on
 * 2026-12-04 as agmi's table has it: T1–T8 accepted; T9, blank in agmi's table, is accepted too (nothing outside the
 * data directory remembers the newer checkpoint). Undo and redo skip missing sequence numbers by design, so deletions
 * read as a shorter history, and redo walks onto a forged checkpoint after the tip.
 *
 * `letta@0.34.12` (environment `letta-latest`) is the newest release of the PyPI name, which is now Letta Code, the
 * terminal CLI (module letta_code, a bundled Node payload; from 0.32.13 on): it ships no Python letta package, so the
 * adapter cannot load and the row is `not-evaluable` with that reason (its cells cannot flip a verdict, or confirm one).
 *
 * @example const target = createLettaTarget(process.cwd(), { id: 'letta', env: 'letta' });
 */
export function createLettaTarget(root: string, options: { id: string; env: string }): IntegrityTarget {
  return createPythonStoreTarget({
    id: options.id,
    adapter: 'letta_block_history',
    config: {},
    root,
    env: options.env,
    tooling:
      "SQL through psql on store/pgdata (a server started with the pgserver wheel's pg_ctl on the stopped data directory); cp -a of store/pgdata (T9)",
    raw: (files, log) =>
      lettaBlockHistoryRawAccess(
        {
          ...lettaStorePaths(files.storeDir),
          bin: pgserverBin(storeEnvPaths(root, options.env).venv) ?? 'pgserver-binaries-not-installed',
          database: 'letta',
          label: 'store/pgdata',
          blocks: files.owners,
        },
        log,
      ),
  });
}
