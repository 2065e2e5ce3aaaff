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
  let chunks: Buffer[] = [Buffer.from(initial)]; // appends stay O(1); a read joins them once
  let total = chunks[0]!.length;
  let generation = 0; // bumped by replace(): the bytes before any offset may have changed
  const joined = (): Buffer => {
    const all = Buffer.concat(chunks);
    chunks = [all];
    return all;
  };
  return {
    async read() {
      return Buffer.from(joined());
    },
    async append(bytes) {
      chunks.push(Buffer.from(bytes));
      total += bytes.length;
    },
    generation: () => generation,
    async readFrom(offset, since) {
      if (since !== generation || offset > total) return null;
      if (offset === total) return NOTHING_APPENDED;
      const tail: Buffer[] = [];
      let start = total;
      for (let index = chunks.length - 1; index >= 0 && start > offset; index -= 1) {
        const chunk = chunks[index]!;
        start -= chunk.length;
        tail.unshift(start >= offset ? chunk : chunk.subarray(offset - start));
      }
      return Buffer.concat(tail);
    },
    bytes: () => Buffer.from(joined()),
    replace(bytes) {
      chunks = [Buffer.from(bytes)];
      total = bytes.length;
      generation += 1;
    },
  };
}
