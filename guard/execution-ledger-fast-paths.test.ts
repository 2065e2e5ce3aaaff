// The grounding check's fast paths (issue #18): the ASCII shortcut of subject normalisation and the idle start of the
// ledger's one-at-a-time queue change no result and no order.
import { describe, expect, test } from 'vitest';
import { normalizeSubject } from './execution-ledger-encoding.js';
import { createMemoryLedgerStorage } from './execution-ledger-storage.js';
import { createExecutionLedger } from './execution-ledger.js';

const KEY = Buffer.from(Array.from({ length: 32 }, (_, index) => (index * 11 + 5) % 256));

/** Subject normalisation v1 as specified (poem.md §2.1), with no shortcut: the oracle. */
function specified(subject: string): string {
  return subject.normalize('NFC').replace(/\s+/gu, ' ').trim().toLowerCase().normalize('NFC');
}

describe('normalizeSubject', () => {
  test('gives the specified normalisation for every kind of subject, ASCII or not', () => {
    const alphabet = [
      'a',
      'Z',
      '0',
      '-',
      ':',
      '~',
      '!',
      ' ',
      '  ',
      '\t',
      '\n',
      '\u00a0',
      'É',
      'e\u0301',
      'İ',
      'ẞ',
      '\u2028',
    ];
    let seed = 7;
    const random = () => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed / 2 ** 31;
    };
    const subjects = [
      'request 1',
      'Request  1',
      ' request 1',
      'request 1 ',
      'REQUEST\t1',
      'grid/x/trial-1/decision #ab',
    ];
    for (let index = 0; index < 5000; index += 1)
      subjects.push(
        Array.from(
          { length: 1 + Math.floor(random() * 8) },
          () => alphabet[Math.floor(random() * alphabet.length)],
        ).join(''),
      );
    for (const subject of subjects) {
      const expected = specified(subject);
      if (expected === '') expect(() => normalizeSubject(subject)).toThrow(/empty after normalisation/);
      else expect(normalizeSubject(subject), JSON.stringify(subject)).toBe(expected);
    }
  });
});

describe('the ledger queue', () => {
  test('calls made without awaiting run in call order: a check issued after an append sees it, one issued before does not', async () => {
    const { writer, reader } = createExecutionLedger({ key: KEY, storage: createMemoryLedgerStorage() });
    const before = reader.contains('dual-approval', 'request 1');
    const appended = writer.append({ action: 'dual-approval', subject: 'Request 1' });
    const after = reader.contains('dual-approval', 'request 1');
    const other = reader.contains('dual-approval', 'request 2');
    const second = writer.append({ action: 'dual-approval', subject: 'request 2' });
    const afterSecond = reader.contains('dual-approval', 'REQUEST 2');
    expect(await Promise.all([before, after, other, afterSecond])).toEqual([false, true, false, true]);
    expect((await appended).step).toBe(0);
    expect((await second).step).toBe(1);
  });

  test('a failing task does not stall or reorder the ones queued behind it', async () => {
    const { writer, reader } = createExecutionLedger({ key: KEY, storage: createMemoryLedgerStorage() });
    const bad = writer.append({ action: 'Not Kebab', subject: 'x' });
    const good = writer.append({ action: 'dual-approval', subject: 'x' });
    const seen = reader.contains('dual-approval', 'x');
    await expect(bad).rejects.toThrow(/kebab-case/);
    expect((await good).step).toBe(0);
    expect(await seen).toBe(true);
  });
});
