// Raw ledger media: a JSONL file or an in-memory buffer. Neither knows the key; both can be written by anyone holding them.
import { open, readFile } from 'node:fs/promises';
import type { LedgerStorage } from './execution-ledger-types.js';

/** What `readFrom` returns when nothing was appended since `offset` (empty, so shared). */
const NOTHING_APPENDED = new Uint8Array(0);

/**
 * A JSONL file, one event per line. A missing file reads as empty; each append is flushed to disk (`datasync`)
 * before it resolves. One writer per file: a second process appending to it breaks the chain, which fails closed.
 *
 * @example const storage = createFileLedgerStorage('data/runs/<run>/ledger.jsonl');
 */
export function createFileLedgerStorage(path: string): LedgerStorage {
  return {
    async read() {
      try {
        return await readFile(path);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'ENOENT') return new Uint8Array(0);
        throw error;
      }
    },
    async append(bytes) {
      const file = await open(path, 'a');
      try {
        await file.write(bytes);
        await file.datasync();
      } finally {
        await file.close();
      }
    },
  };
}

/** An in-memory medium; `bytes()` and `replace()` expose the raw contents, as an attacker with raw access would see them. */
export interface MemoryLedgerStorage extends LedgerStorage {
  /** A copy of the current contents. */
  bytes(): Uint8Array;
  /** Overwrites the contents (tests and attack simulations: truncation, reordering, byte changes). */
  replace(bytes: Uint8Array): void;
}

/**
 * An in-memory medium; every read returns a copy, so no caller can change the contents behind the ledger's back.
 * `replace` bumps its generation, so a check that reads only appended bytes falls back to a full read after it.
 *
 * @example const { writer, reader } = createExecutionLedger({ key, storage: createMemoryLedgerStorage() });
 */
export function createMemoryLedgerStorage(initial: Uint8Array = new Uint8Array(0)): MemoryLedgerStorage {
  // One buffer with spare room (capacity doubles, so appends stay amortised O(1)). Not one small Buffer per line:
  // those are slices of Node's shared 8 KiB pool, and each kept slice would keep its whole pool block alive.
  let data = Buffer.alloc(Math.max(initial.length, 4096));
  data.set(initial);
  let total = initial.length;
  let generation = 0; // bumped by replace(): the bytes before any offset may have changed
  const copy = (from: number): Buffer => Buffer.from(data.subarray(from, total));
  return {
    async read() {
      return copy(0);
    },
    async append(bytes) {
      if (data.length - total < bytes.length) {
        const grown = Buffer.alloc(Math.max(data.length * 2, total + bytes.length));
        data.copy(grown, 0, 0, total);
        data = grown;
      }
      data.set(bytes, total);
      total += bytes.length;
    },
    generation: () => generation,
    async readFrom(offset, since) {
      if (since !== generation || offset > total) return null;
      if (offset === total) return NOTHING_APPENDED;
      return copy(offset);
    },
    bytes: () => copy(0),
    replace(bytes) {
      data = Buffer.alloc(Math.max(bytes.length, 4096));
      data.set(bytes);
      total = bytes.length;
      generation += 1;
    },
  };
}
