// Target `langgraph-sqlite-encrypted`: SqliteSaver with LangGraph's EncryptedSerializer (AES via pycryptodome).
import { randomBytes } from 'node:crypto';
import type { IntegrityTarget } from './integrity-target.js';
import { checkpointRawAccess } from './langgraph-checkpoints-raw.js';
import { createPythonStoreTarget } from './python-store-target.js';

/**
 * Creates the encrypted SqliteSaver target (backends/python/store_adapters/langgraph_encrypted_store.py, environment
 * `langgraph-encrypted`): the checkpointer built with `EncryptedSerializer.from_pycryptodome_aes()`, whose key comes
 * from `LANGGRAPH_AES_KEY`. The key is drawn fresh per target object and given to the store process only: it is in
 * no file, and the raw edits run without it, as the threat model's attacker does.
 *
 * T1 on ciphertext: without the key no number can be changed, so the edit flips one ciphertext byte; the default
 * AES-EAX mode authenticates the blob and the read path raises `MAC check failed` (rejected on read). T5 forges a
 * plaintext `json` checkpoint, which `EncryptedSerializer.loads_typed` loads unencrypted (a type without `+aes`).
 *
 * Measured (sqlite-family.stores.test.ts): T1 rejected on read; T2–T9 accepted: moved or removed genuine ciphertext
 * (T2, T3, T4, T6, T7, T9), a plaintext forgery (T5) and a plain-JSON metadata edit (T8). The same plaintext
 * downgrade on a_m is T1 by other means and is served (pinned there too). agmi has no such row.
 *
 * @example const target = createLanggraphEncryptedTarget(process.cwd());
 */
export function createLanggraphEncryptedTarget(root: string): IntegrityTarget {
  return createPythonStoreTarget({
    id: 'langgraph-sqlite-encrypted',
    adapter: 'langgraph_encrypted_store',
    config: {},
    root,
    env: 'langgraph-encrypted',
    // 32 hex characters: the 32-byte key (AES-256) the variable must hold.
    processEnv: { LANGGRAPH_AES_KEY: randomBytes(16).toString('hex') },
    raw: (files, log) =>
      checkpointRawAccess(
        {
          path: files.sqlite,
          dir: files.storeDir,
          label: 'store/checkpoints.db',
          threads: files.owners,
          encrypted: true,
        },
        log,
      ),
  });
}
