// Target `mem0-py`: the Python mem0ai Memory (PyPI) on qdrant-client's local on-disk store, through the store driver.
import type { IntegrityTarget } from './integrity-target.js';
import { mem0PyRawAccess } from './mem0-py-raw.js';
import { createPythonStoreTarget } from './python-store-target.js';

/**
 * Creates the Python mem0 target (backends/python/store_adapters/mem0_py_store.py) in the store environment `env`
 * (`mem0-py`: mem0ai 2.0.20, the version of agmi's row). Seeded with `add(infer=False)`, read with
 * `get_all(filters={user_id})`; a deterministic local embedder stands in for the openai one (the at-rest method does
 * not rank). The raw edits are SQL on qdrant-client's `points` table plus a standard-library pickle codec
 * (backends/python/raw_tools/qdrant_local_points.py), never mem0's or qdrant-client's code.
 *
 * agmi's row reads T6 `error` (its adapter's edit was a no-op, caught by its C3); with the victim pool read from
 * context A only, the edit lands and mem0 serves it: T6 accepted here, as agmi's README says it will be.
 *
 * @example const target = createMem0PyTarget(process.cwd(), { id: 'mem0-py', env: 'mem0-py' });
 */
export function createMem0PyTarget(root: string, options: { id: string; env: string }): IntegrityTarget {
  return createPythonStoreTarget({
    id: options.id,
    adapter: 'mem0_py_store',
    config: {},
    root,
    env: options.env,
    tooling:
      'SQL through better-sqlite3 on store/qdrant/collection/mem0/storage.sqlite (qdrant-client local mode: one pickled ' +
      'PointStruct per row), each pickle decoded and re-encoded by backends/python/raw_tools/qdrant_local_points.py ' +
      '(python3 -I -S: standard library only, no qdrant-client or mem0 code); history.db untouched; cp of store/ (T9)',
    raw: (files, log) => mem0PyRawAccess({ points: files.sqlite, storeDir: files.storeDir, owners: files.owners }, log),
  });
}
