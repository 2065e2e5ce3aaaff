// The in-memory ledger medium (issue #18: one growing buffer): contents, copies and generations across growth.
import { describe, expect, test } from 'vitest';
import { createMemoryLedgerStorage } from './execution-ledger-storage.js';

const line = (index: number) => Buffer.from(`{"line":${index},"pad":"${'x'.repeat(index % 97)}"}\n`);

describe('createMemoryLedgerStorage', () => {
  test('holds exactly what was appended, across many capacity doublings, from any offset', async () => {
    const storage = createMemoryLedgerStorage(Buffer.from('head\n'));
    const expected = [Buffer.from('head\n')];
    for (let index = 0; index < 3000; index += 1) {
      const bytes = line(index);
      await storage.append(bytes);
      expected.push(bytes);
      bytes.fill(0x21); // the caller reusing its buffer changes nothing stored
    }
    const all = Buffer.concat(expected.map((b, i) => (i === 0 ? b : line(i - 1))));
    expect(Buffer.from(await storage.read()).equals(all)).toBe(true);
    expect(Buffer.from(storage.bytes()).equals(all)).toBe(true);
    for (const offset of [0, 5, 4096, all.length - 10, all.length])
      expect(Buffer.from((await storage.readFrom!(offset, 0))!).equals(all.subarray(offset))).toBe(true);
    expect(await storage.readFrom!(all.length + 1, 0)).toBeNull();
  });

  test('every read is a copy; replace bumps the generation, so a stale offset reads nothing', async () => {
    const storage = createMemoryLedgerStorage();
    await storage.append(Buffer.from('abc\n'));
    const read = await storage.read();
    read.fill(0x7a);
    (await storage.readFrom!(0, 0))!.fill(0x7a);
    expect(Buffer.from(await storage.read()).toString()).toBe('abc\n');
    storage.replace(Buffer.from('xyz\n'));
    expect(storage.generation!()).toBe(1);
    expect(await storage.readFrom!(0, 0)).toBeNull();
    expect(Buffer.from((await storage.readFrom!(1, 1))!).toString()).toBe('yz\n');
    await storage.append(Buffer.from('more\n'));
    expect(Buffer.from(await storage.read()).toString()).toBe('xyz\nmore\n');
  });
});
