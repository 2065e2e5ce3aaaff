// Raw edits of an attacker who holds a receipted inspeximus store's directory (the SQLite file and the receipts
// sidecar), and optionally the user's config home (the chain's head): plain file operations, never the library.
import { existsSync } from 'node:fs';
import { readdir, readFile, writeFile } from 'node:fs/promises';
import { dirname, join, relative } from 'node:path';
import type { JsonValue, RawAccess, RawSnapshot } from './integrity-target.js';
import { inspeximusRawAccess } from './inspeximus-raw.js';
import type { PythonStoreFiles } from './python-store-target.js';
import { directorySnapshot } from './raw-files.js';

type Receipt = { memory_id?: JsonValue; hash?: JsonValue } & Record<string, JsonValue>;
type Head = { path?: JsonValue; n_writes?: JsonValue; writes_tip?: JsonValue } & Record<string, JsonValue>;

/** What the attacker holds besides the store directory. */
export interface ReceiptsAttacker {
  /** Also the user's config home, where inspeximus keeps the chain's head (`inspeximus/heads/<tag>.json`). */
  configHome: boolean;
}

const readJson = async (path: string): Promise<unknown> => JSON.parse(await readFile(path, 'utf8')) as unknown;

/**
 * Raw access over the records table (as `inspeximusRawAccess`) plus the evidence the attacker can reach. Removing a
 * record (T2, T3) also deletes every receipt naming it from `<store>.receipts.json`, as an attacker without the key
 * can (the remaining receipts keep their own hashes, links and signatures: re-signing needs the key). With
 * `configHome`, each removal also rewrites the head file whose `path` is the store (n_writes and writes_tip set to
 * the cut sidecar's), and T9 copies and restores the config home with the store directory.
 */
export function inspeximusReceiptsRawAccess(
  files: PythonStoreFiles,
  log: (command: string) => void,
  attacker: ReceiptsAttacker,
): RawAccess {
  const base = inspeximusRawAccess(files, log);
  const cell = dirname(files.storeDir);
  const sidecar = `${files.sqlite}.receipts.json`;
  const headsDir = join(files.home, '.config', 'inspeximus', 'heads');
  const receipts = async (): Promise<Receipt[]> => {
    const tail = `${files.sqlite}.receipts.tail.jsonl`;
    if (existsSync(tail)) throw new Error(`${tail} exists: the snapshot-plus-tail receipt format is not modelled`);
    const parsed = await readJson(sidecar);
    if (!Array.isArray(parsed)) throw new Error(`${sidecar} is not a JSON array of receipts`);
    return parsed as Receipt[];
  };
  const headFile = async (): Promise<{ path: string; head: Head }> => {
    const found: { path: string; head: Head }[] = [];
    for (const name of await readdir(headsDir)) {
      const path = join(headsDir, name);
      const head = (await readJson(path)) as Head;
      if (head.path === files.sqlite) found.push({ path, head });
    }
    const [only, ...more] = found;
    if (!only || more.length > 0)
      throw new Error(`${headsDir}: ${found.length} head files name ${files.sqlite}; expected exactly one`);
    return only;
  };
  const alignHead = async (chain: readonly Receipt[]): Promise<void> => {
    const { path, head } = await headFile();
    const tip = chain.at(-1)?.hash ?? null;
    await writeFile(path, JSON.stringify({ ...head, n_writes: chain.length, writes_tip: tip }));
    log(
      `file ${relative(cell, path)}: n_writes ${String(head.n_writes)} -> ${chain.length}, writes_tip ${String(head.writes_tip)} -> ${String(tip)}`,
    );
  };
  return {
    ...base,
    async remove(record) {
      await base.remove(record);
      const chain = await receipts();
      const dropped = chain.flatMap((receipt, index) => (receipt.memory_id === record.slot ? [index] : []));
      if (dropped.length === 0) throw new Error(`${sidecar}: no receipt names memory ${record.slot}`);
      const kept = chain.filter((receipt) => receipt.memory_id !== record.slot);
      await writeFile(sidecar, JSON.stringify(kept));
      log(
        `file ${relative(cell, sidecar)}: delete the receipt(s) of memory ${record.slot} (entries ${dropped.join(', ')} of ${chain.length})`,
      );
      if (attacker.configHome) await alignHead(kept);
    },
    ...(attacker.configHome
      ? {
          async snapshot(): Promise<RawSnapshot> {
            const store = await directorySnapshot(files.storeDir, 'store', log);
            const home = await directorySnapshot(files.home, relative(cell, files.home), log);
            return {
              async restore() {
                await store.restore();
                await home.restore();
              },
            };
          },
        }
      : {}),
  };
}
