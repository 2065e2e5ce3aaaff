// Targets `memory-blackbox-alive` and `memory-blackbox-restarted`: memory-blackbox's memory.md watcher (PyPI), scan audit.
import type { IntegrityTarget, TargetPosition } from './integrity-target.js';
import { memoryMdRawAccess } from './memory-md-raw.js';
import { createPythonStoreTarget } from './python-store-target.js';

/** Which row: the process position during the edit, and the store environment (the package version). */
export interface MemoryBlackboxTargetSettings {
  /** `alive`: the watcher's process stays up across the edit; `restarted`: stopped, edited, started, then scanned. */
  position: TargetPosition;
  /** Registry id. */
  id: string;
  /** Store environment: `memory-blackbox` (0.1.1) or `memory-blackbox-0.1.0`. */
  env: string;
}

/**
 * memory-blackbox (backends/python/store_adapters/memory_blackbox_store.py): the agent's memory is MEMORY.md (A) and
 * AGENTS.md (B); each agent write is captured by `MemoryMdAdapter.scan()` as a signed write in the tool's ledger. The
 * raw edits change the memory files only (file bytes, logged line by line; T9 copies `store/`): the ledger and key
 * are the tool's own trusted state in its profile beside the store, which agmi never edits either.
 *
 * Measured (memory-blackbox 0.1.1): both rows report T1–T9 on the scan audit, agmi's T1–T8 cells; T9, blank in
 * agmi's table, is reported too because the restored file no longer matches the ledger's last write. On 0.1.0 the
 * restarted row accepts all nine, because `baseline()` then took the file bytes as the trusted state (agmi's finding,
 * fixed in 0.1.1 by baselining from the ledger). Detection is an audit in every row: the read path is the file.
 *
 * @example const target = createMemoryBlackboxTarget(process.cwd(), { id: 'memory-blackbox-alive', position: 'alive', env: 'memory-blackbox' });
 */
export function createMemoryBlackboxTarget(root: string, settings: MemoryBlackboxTargetSettings): IntegrityTarget {
  return createPythonStoreTarget({
    id: settings.id,
    adapter: 'memory_blackbox_store',
    config: {},
    root,
    env: settings.env,
    position: settings.position,
    tooling:
      'file edits (read, change one line, write back) on store/MEMORY.md and store/AGENTS.md (the ledger in the profile is never touched); cp of store/ (T9)',
    raw: (files, log) => memoryMdRawAccess({ storeDir: files.storeDir, owners: files.owners }, log),
  });
}
