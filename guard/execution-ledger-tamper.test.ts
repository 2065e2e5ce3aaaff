// Execution ledger under attack: forgery without the key, every single-byte change, truncation, reordering, rewrites.
import { createHmac } from 'node:crypto';
import { describe, expect, test } from 'vitest';
import { computeLedgerMac, formatLedgerLine } from './execution-ledger-encoding.js';
import { createMemoryLedgerStorage, type MemoryLedgerStorage } from './execution-ledger-storage.js';
import type { LedgerEvent } from './execution-ledger-types.js';
import { createExecutionLedger, LedgerBrokenError } from './execution-ledger.js';

const KEY = Buffer.from(Array.from({ length: 32 }, (_, index) => 255 - index));
const ENTRIES = [
  { action: 'mfa-challenge', subject: 'user:alice' },
  { action: 'dual-approval', subject: 'transfer t-17' },
  { action: 'ciso-approval', subject: 'host web-3' },
];

/** A genuine three-event ledger on a raw medium, plus a reader that has already verified it (cached head set). */
async function genuine(
  entries = ENTRIES,
): Promise<{ storage: MemoryLedgerStorage; original: Buffer; cached: ReturnType<typeof createExecutionLedger> }> {
  const storage = createMemoryLedgerStorage();
  const cached = createExecutionLedger({ key: KEY, storage });
  for (const entry of entries) await cached.writer.append(entry);
  expect(await cached.reader.verifyChain()).toMatchObject({ ok: true, head: { length: entries.length } });
  return { storage, original: Buffer.from(storage.bytes()), cached };
}

const fresh = (storage: MemoryLedgerStorage) => createExecutionLedger({ key: KEY, storage }).reader;
const lines = (bytes: Uint8Array): string[] => Buffer.from(bytes).toString('utf8').split('\n').slice(0, -1);
const file = (content: readonly string[]): Buffer => Buffer.from(content.map((line) => `${line}\n`).join(''), 'utf8');
const events = (bytes: Uint8Array): LedgerEvent[] => lines(bytes).map((line) => JSON.parse(line) as LedgerEvent);

describe('attack A: a forged event written without the key', () => {
  test('a well-formed forgery (right step, right prev, guessed or wrongly keyed MAC) is detected', async () => {
    const { storage, original, cached } = await genuine();
    const last = events(original).at(-1) as LedgerEvent;
    const unsigned = { action: 'mfa-challenge', subject: 'user:mallory', step: 3, prev: last.mac };
    const attackerKey = Buffer.alloc(32, 7);
    const attackerMac = createHmac('sha256', attackerKey).update(JSON.stringify(unsigned)).digest('hex');
    for (const mac of ['f'.repeat(64), attackerMac, computeLedgerMac(Buffer.from(KEY).reverse(), unsigned)]) {
      storage.replace(Buffer.concat([original, Buffer.from(`${formatLedgerLine({ v: 1, ...unsigned, mac })}\n`)]));
      for (const reader of [cached.reader, fresh(storage)]) {
        expect(await reader.verifyChain()).toMatchObject({ ok: false, failure: 'mac-mismatch', line: 4 });
        expect(await reader.contains('mfa-challenge', 'user:mallory')).toBe(false);
        expect(await reader.contains('mfa-challenge', 'user:alice')).toBe(false); // a broken ledger proves nothing
      }
    }
    // The unverified read (NaivePoEM's view) sees the forgery; that is the point of the ablation.
    expect(await cached.reader.readUnverified()).toContainEqual({ action: 'mfa-challenge', subject: 'user:mallory' });
    await expect(
      createExecutionLedger({ key: KEY, storage }).writer.append(ENTRIES[0] ?? { action: 'x', subject: 'y' }),
    ).rejects.toThrow(LedgerBrokenError);
  });
});

describe('one byte changed anywhere', () => {
  test('every position, several replacement bytes, fresh and cached readers: all detected', async () => {
    const { storage, original, cached } = await genuine();
    let checked = 0;
    for (let position = 0; position < original.length; position += 1) {
      const byte = original[position] as number;
      const replacements = new Set([byte ^ 0x01, byte ^ 0x20, byte ^ 0x80, 0x20, 0x0a, 0x30, 0x22, 0x7d]);
      replacements.delete(byte);
      for (const replacement of replacements) {
        const changed = Buffer.from(original);
        changed[position] = replacement;
        storage.replace(changed);
        for (const reader of [fresh(storage), cached.reader]) {
          const result = await reader.verifyChain();
          if (result.ok) throw new Error(`undetected: byte ${position} ${byte} → ${replacement}`);
          checked += 1;
        }
      }
    }
    expect(checked).toBeGreaterThan(original.length * 10);
    storage.replace(original);
    expect(await cached.reader.verifyChain()).toMatchObject({ ok: true, verifiedFrom: 3 }); // the cached head survived the failures
  });

  test('invalid UTF-8 and a byte-order mark are unparseable', async () => {
    const { storage, original } = await genuine();
    const withBadByte = Buffer.from(original);
    withBadByte[original.indexOf('alice')] = 0xff;
    storage.replace(withBadByte);
    expect(await fresh(storage).verifyChain()).toMatchObject({ ok: false, failure: 'unparseable' });
    storage.replace(Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), original]));
    expect(await fresh(storage).verifyChain()).toMatchObject({ ok: false, failure: 'unparseable', line: 1 });
  });
});

describe('truncation, reordering, rewriting', () => {
  test('cutting events below the cached head is detected; a cut mid-line is unparseable', async () => {
    const { storage, original, cached } = await genuine();
    for (const kept of [2, 1, 0]) {
      storage.replace(file(lines(original).slice(0, kept)));
      expect(await cached.reader.verifyChain()).toMatchObject({ ok: false, failure: 'truncated' });
    }
    storage.replace(original.subarray(0, original.length - 1));
    expect(await cached.reader.verifyChain()).toMatchObject({ ok: false, failure: 'unparseable', line: 3 });
    // Without a cached head (a new process) a tail cut is a shorter valid ledger: it only removes genuine events,
    // so it can only deny skips (poem.md §8.4), never allow one.
    storage.replace(file(lines(original).slice(0, 2)));
    expect(await fresh(storage).verifyChain()).toMatchObject({ ok: true, head: { length: 2 } });
    expect(await fresh(storage).contains('ciso-approval', 'host web-3')).toBe(false);
  });

  test('swapping two lines is detected, with or without renumbering their steps', async () => {
    const { storage, original, cached } = await genuine();
    const [first, second, third] = lines(original) as [string, string, string];
    storage.replace(file([first, third, second]));
    for (const reader of [fresh(storage), cached.reader])
      expect(await reader.verifyChain()).toMatchObject({ ok: false, failure: 'step-mismatch', line: 2 });
    const renumbered = [second.replace('"step":1', '"step":0'), first.replace('"step":0', '"step":1'), third];
    storage.replace(file(renumbered));
    expect(await fresh(storage).verifyChain()).toMatchObject({ ok: false, failure: 'chain-mismatch', line: 1 });
  });

  test('a different genuine chain under the same key (e.g. another run’s file) is a rewrite for the cached reader', async () => {
    const { storage, cached } = await genuine();
    const other = await genuine(ENTRIES.map((entry) => ({ ...entry, subject: `${entry.subject} (other run)` })));
    storage.replace(other.original);
    expect(await cached.reader.verifyChain()).toMatchObject({ ok: false, failure: 'rewritten' });
    storage.replace(Buffer.concat([other.original, other.original]));
    expect(await cached.reader.verifyChain()).toMatchObject({ ok: false, failure: 'step-mismatch', line: 4 });
  });

  test('an unreadable medium is a failure, not an empty ledger', async () => {
    const storage = { read: () => Promise.reject(new Error('EACCES')), append: () => Promise.resolve() };
    expect(await createExecutionLedger({ key: KEY, storage }).reader.verifyChain()).toMatchObject({
      ok: false,
      failure: 'unreadable',
      line: null,
    });
  });
});
