// The grounding check's incremental verification (issue #18 item 3): only appended bytes are read and MACed while the
// medium vouches for the verified prefix; an edit to that prefix is still found by verifyChain and after a reopen.
import { describe, expect, test } from 'vitest';
import { createMemoryLedgerStorage, type MemoryLedgerStorage } from './execution-ledger-storage.js';
import type { LedgerStorage, MacComputation } from './execution-ledger-types.js';
import { createExecutionLedger } from './execution-ledger.js';

const KEY = Buffer.from(Array.from({ length: 32 }, (_, index) => (index * 7 + 3) % 256));

/** A medium that counts full reads and bytes read by `readFrom`. */
function counting(inner: MemoryLedgerStorage) {
  const counts = { fullReads: 0, tailBytes: 0 };
  const storage: LedgerStorage = {
    read: () => {
      counts.fullReads += 1;
      return inner.read();
    },
    append: (bytes) => inner.append(bytes),
    generation: () => inner.generation!(),
    readFrom: async (offset, generation) => {
      const tail = await inner.readFrom!(offset, generation);
      counts.tailBytes += tail?.length ?? 0;
      return tail;
    },
  };
  return { storage, counts };
}

/**
 * A medium whose bytes can be edited in place without it noticing (its generation never changes), like a file edited
 * by another process: the worst case for a check that trusts the medium for the verified prefix.
 */
function blindMedium(inner: MemoryLedgerStorage): LedgerStorage & { editInPlace(at: number): void } {
  return {
    read: () => inner.read(),
    append: (bytes) => inner.append(bytes),
    generation: () => 0,
    readFrom: async (offset) => Buffer.from(await inner.read()).subarray(offset),
    editInPlace(at) {
      const bytes = Buffer.from(inner.bytes());
      bytes[at] = bytes[at] === 0x61 ? 0x62 : 0x61;
      inner.replace(bytes);
    },
  };
}

describe('verifyAppended: O(new events) per grounding check', () => {
  test('after the first (full) check, only appended bytes are read and only their MACs computed', async () => {
    const inner = createMemoryLedgerStorage();
    const { storage, counts } = counting(inner);
    const macs: MacComputation[] = [];
    const { writer, reader } = createExecutionLedger({ key: KEY, storage, onMac: (call) => macs.push(call) });
    for (let step = 0; step < 50; step += 1) await writer.append({ action: 'dual-approval', subject: `t ${step}` });
    expect(counts.fullReads).toBe(1); // the writer's open
    expect(await reader.verifyAppended()).toMatchObject({ ok: true, verifiedFrom: 50, head: { length: 50 } });
    expect(await reader.contains('dual-approval', 'T 49')).toBe(true);
    expect([counts.fullReads, counts.tailBytes]).toEqual([1, 0]);
    expect(macs.filter((call) => call.purpose === 'verify')).toEqual([]);

    // Another writer (a second process on the same medium) appends three events: the check MACs exactly those.
    const before = inner.bytes().length;
    const other = createExecutionLedger({ key: KEY, storage: inner });
    for (let step = 50; step < 53; step += 1)
      await other.writer.append({ action: 'dual-approval', subject: `t ${step}` });
    expect(await reader.verifyAppended()).toMatchObject({ ok: true, verifiedFrom: 50, head: { length: 53 } });
    expect(macs.filter((call) => call.purpose === 'verify').map((call) => call.step)).toEqual([50, 51, 52]);
    expect(counts.fullReads).toBe(1);
    expect(counts.tailBytes).toBe(inner.bytes().length - before);
  });

  test('a forged line appended without the key is found by the next check (fail closed)', async () => {
    const storage = createMemoryLedgerStorage();
    const { writer, reader } = createExecutionLedger({ key: KEY, storage });
    await writer.append({ action: 'mfa-challenge', subject: 'user:alice' });
    expect(await reader.contains('mfa-challenge', 'user:alice')).toBe(true);
    const last = JSON.parse(Buffer.from(storage.bytes()).toString('utf8').trim()) as { mac: string };
    const forged = {
      v: 1,
      step: 1,
      action: 'mfa-challenge',
      subject: 'user:mallory',
      prev: last.mac,
      mac: 'ab'.repeat(32),
    };
    await storage.append(Buffer.from(`${JSON.stringify(forged)}\n`));
    expect(await reader.verifyAppended()).toMatchObject({ ok: false, failure: 'mac-mismatch', line: 2 });
    expect(await reader.contains('mfa-challenge', 'user:alice')).toBe(false);
  });
});

describe('an edit to an already-verified prefix', () => {
  const entries = Array.from({ length: 6 }, (_, step) => ({ action: 'ciso-approval', subject: `host web-${step}` }));

  test('on the memory medium (replace bumps its generation): the next incremental check, verifyChain and a reopen all find it', async () => {
    const storage = createMemoryLedgerStorage();
    const { writer, reader } = createExecutionLedger({ key: KEY, storage });
    for (const entry of entries) await writer.append(entry);
    expect(await reader.verifyAppended()).toMatchObject({ ok: true, head: { length: 6 } });
    const edited = Buffer.from(storage.bytes());
    edited[edited.indexOf('web-2')] = 0x57; // 'w' → 'W', inside event 3
    storage.replace(edited);
    expect(await reader.verifyAppended()).toMatchObject({ ok: false, failure: 'unparseable', line: 3 });
    expect(await reader.contains('ciso-approval', 'host web-0')).toBe(false);
    expect(await reader.verifyChain()).toMatchObject({ ok: false, line: 3 });
    expect(await createExecutionLedger({ key: KEY, storage }).reader.verifyAppended()).toMatchObject({
      ok: false,
      line: 3,
    });
  });

  test('on a medium blind to in-place edits: verifyChain finds it, and so does the next check after a reopen', async () => {
    const inner = createMemoryLedgerStorage();
    const storage = blindMedium(inner);
    const { writer, reader } = createExecutionLedger({ key: KEY, storage });
    for (const entry of entries) await writer.append(entry);
    expect(await reader.verifyAppended()).toMatchObject({ ok: true, head: { length: 6 } });
    storage.editInPlace(Buffer.from(inner.bytes()).indexOf('"subject":"host web-1"') + 12); // a byte inside event 2
    // The incremental check trusts the medium for the verified prefix; its index still holds only verified events.
    expect(await reader.verifyAppended()).toMatchObject({ ok: true, verifiedFrom: 6 });
    expect(await reader.verifyChain()).toMatchObject({ ok: false, line: 2 });
    const reopened = createExecutionLedger({ key: KEY, storage });
    expect(await reopened.reader.verifyAppended()).toMatchObject({ ok: false, line: 2 });
    expect(await reopened.reader.contains('ciso-approval', 'host web-5')).toBe(false);
    await expect(reopened.writer.append(entries[0]!)).rejects.toThrow(/failed verification/);
  });
});
