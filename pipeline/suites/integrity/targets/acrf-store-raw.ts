// Raw access to an acrf-memory-guard JSON store (entry id → signed entry): JSON member edits, never the library.
import { join } from 'node:path';
import { changedNumber } from '../harness/seed-plan.js';
import { canonicalJson, parseBody } from '../../../../backends/store-tools/canonical-json.js';
import type { ContextName, JsonValue, RawAccess, RawRecord } from './integrity-target.js';
import { directorySnapshot, jsonObjectFile } from './raw-files.js';

type Entry = Record<string, JsonValue> & { text?: string; source?: string; created_at?: string };

const STORE = 'store/memory_store.json';

/** `ctx-A::03` → 3: the entry's place in its context. */
const ordinal = (key: string): number => Number(key.slice(key.lastIndexOf('::') + 2));

/**
 * Raw access over `store/memory_store.json`. A record is one member: its slot is the key (`ctx-A::03`), its owner
 * the key's context prefix (what the read path selects on), its position the key's number; the body is the whole
 * signed entry (user_id, text, source, created_at, _integrity), which moves with it. T5 adds the next key with the
 * tip's entry, a changed number and the tip's `_integrity` kept (an attacker without the secret cannot sign);
 * T8 relabels `source` (`web` → `user`).
 */
export function acrfStoreRawAccess(
  files: { storeDir: string; owners: Record<ContextName, string> },
  log: (command: string) => void,
): RawAccess {
  const file = jsonObjectFile(join(files.storeDir, 'memory_store.json'), STORE, log);
  const entryOf = async (slot: string): Promise<Entry> => {
    const store = await file.read();
    if (!Object.hasOwn(store, slot)) throw new Error(`${STORE} holds no entry ${slot}`);
    return store[slot] as Entry;
  };
  return {
    list: async (context) => {
      const prefix = `${files.owners[context]}::`;
      const store = await file.read();
      return Object.keys(store)
        .filter((key) => key.startsWith(prefix))
        .sort()
        .map((key): RawRecord => {
          const entry = store[key] as Entry;
          return {
            slot: key,
            owner: files.owners[context],
            position: ordinal(key),
            text: String(entry.text ?? ''),
            body: canonicalJson(entry),
            labels: { source: entry.source ?? null, created_at: entry.created_at ?? null },
          };
        });
    },
    writeBody: (record, body) => file.set(record.slot, parseBody(body)),
    remove: (record) => file.remove(record.slot),
    async changeMeaning(record) {
      const entry = await entryOf(record.slot);
      await file.set(record.slot, { ...entry, text: changedNumber(String(entry.text)).text });
    },
    async forge(tip) {
      const entry = await entryOf(tip.slot);
      const key = `${tip.owner}::${String(ordinal(tip.slot) + 1).padStart(2, '0')}`;
      await file.set(key, { ...entry, text: changedNumber(String(entry.text)).text });
    },
    async relabel(record) {
      const entry = await entryOf(record.slot);
      await file.set(record.slot, { ...entry, source: entry.source === 'user' ? 'web' : 'user' });
    },
    snapshot: () => directorySnapshot(files.storeDir, 'store', log),
  };
}
