// Execution ledger: encoding v1 vectors, subject normalisation, key handling, the writer/reader split and the cached head.
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { InvalidInputError } from '#core/errors.js';
import {
  computeLedgerMac,
  encodeLedgerEvent,
  GENESIS_MAC,
  normalizeSubject,
  parseLedgerLine,
} from './execution-ledger-encoding.js';
import {
  generateLedgerKey,
  LEDGER_KEY_ENV_VARIABLE,
  ledgerKeyFromEnv,
  parseLedgerKey,
} from './execution-ledger-key.js';
import { createMemoryLedgerStorage } from './execution-ledger-storage.js';
import type { MacComputation } from './execution-ledger-types.js';
import { createExecutionLedger } from './execution-ledger.js';

const KEY = Buffer.from(Array.from({ length: 32 }, (_, index) => index));
const MAC_0 = '9539b49491585d07f7295df41db5eee08d59b278c4682989a2764540f19fe2f0';
const MAC_1 = '823bc4922dd1b5c7e8b1d6373b481256d74791fb637a3dc05530c3dc5901ab58';

describe('encoding v1', () => {
  test('MAC input layout and HMAC-SHA-256 vectors (reproduced independently with Python hmac/struct)', () => {
    const event = { action: 'mfa-challenge', subject: 'user:alice', step: 0, prev: GENESIS_MAC };
    expect(encodeLedgerEvent(event).toString('hex')).toBe(
      '0000001e' +
        Buffer.from('stalebench/execution-ledger/v1').toString('hex') +
        '0000000d' +
        Buffer.from('mfa-challenge').toString('hex') +
        '0000000a' +
        Buffer.from('user:alice').toString('hex') +
        '0000000000000000' +
        '00000020' +
        '00'.repeat(32),
    );
    expect(computeLedgerMac(KEY, event)).toBe(MAC_0);
    expect(computeLedgerMac(KEY, { ...event, step: 1, prev: MAC_0 })).toBe(MAC_1);
    expect(GENESIS_MAC).toBe('00'.repeat(32));
  });

  test('field boundaries are unambiguous, and every field is covered by the MAC', () => {
    const base = { action: 'a-b', subject: 'c', step: 0, prev: GENESIS_MAC };
    const macs = [base, { ...base, action: 'a', subject: '-bc' }, { ...base, step: 1 }, { ...base, prev: MAC_0 }].map(
      (event) => computeLedgerMac(KEY, event),
    );
    expect(new Set(macs).size).toBe(4);
  });

  test('the stored line is canonical compact JSON of about 200 bytes; anything else is rejected', async () => {
    const storage = createMemoryLedgerStorage();
    await createExecutionLedger({ key: KEY, storage }).writer.append({
      action: 'mfa-challenge',
      subject: '  User:Alice ',
    });
    const line = `{"v":1,"step":0,"action":"mfa-challenge","subject":"user:alice","prev":"${GENESIS_MAC}","mac":"${MAC_0}"}`;
    expect(Buffer.from(storage.bytes()).toString('utf8')).toBe(`${line}\n`);
    expect(line.length).toBeGreaterThan(180);
    expect(line.length).toBeLessThan(230);
    expect(parseLedgerLine(line)).toEqual({ event: JSON.parse(line) as object });
    const variants = [
      line.replace('"step":0,', '"step":0 ,'),
      line.replace('"step":0', '"step":0.0'),
      line.replace('user:alice', 'user:\\u0061lice'),
      line.replace('user:alice', 'User:alice'),
      line.replace(MAC_0, MAC_0.toUpperCase()),
      line.replace('{"v":1,"step":0,', '{"step":0,"v":1,'),
      line.replace('}', ',"note":"x"}'),
    ];
    for (const variant of variants) expect(parseLedgerLine(variant)).toMatchObject({ failure: 'unparseable' });
    expect(parseLedgerLine(line.replace('"v":1', '"v":2'))).toMatchObject({ failure: 'unsupported-version' });
  });

  test('subject normalisation: NFC, whitespace collapsed, trimmed, lower-cased; idempotent; empty is an error', () => {
    expect(normalizeSubject('  Host\t WEB-3\n')).toBe('host web-3');
    expect(normalizeSubject('Jose\u0301')).toBe('jos\u00e9');
    expect(normalizeSubject('ÉLODIE')).toBe('élodie');
    for (const subject of ['  Host\t WEB-3\n', 'Jose\u0301', 'İstanbul', 'ẞ Straße']) {
      expect(normalizeSubject(normalizeSubject(subject))).toBe(normalizeSubject(subject));
    }
    expect(() => normalizeSubject(' \t ')).toThrow(InvalidInputError);
    expect(() => normalizeSubject('a\ud800b')).toThrow(/lone surrogate/);
  });
});

describe('key', () => {
  const hex = KEY.toString('hex');

  test('parsed from hex or STALEBENCH_LEDGER_KEY; unset is null; errors never echo the value', () => {
    expect(parseLedgerKey(hex.toUpperCase())).toEqual(KEY);
    expect(ledgerKeyFromEnv({ [LEDGER_KEY_ENV_VARIABLE]: hex })).toEqual(KEY);
    expect(ledgerKeyFromEnv({})).toBeNull();
    expect(ledgerKeyFromEnv({ [LEDGER_KEY_ENV_VARIABLE]: '' })).toBeNull();
    const secret = `${'ab'.repeat(16).slice(0, 30)}zz`;
    for (const bad of [hex.slice(0, 62), secret, `${hex}0`, '11'.repeat(32)]) {
      const error = (() => {
        try {
          return ledgerKeyFromEnv({ [LEDGER_KEY_ENV_VARIABLE]: bad });
        } catch (caught) {
          return caught;
        }
      })();
      expect(error).toBeInstanceOf(InvalidInputError);
      expect((error as Error).message).not.toContain(bad);
    }
    expect(() => createExecutionLedger({ key: KEY.subarray(0, 31) })).toThrow(/at least 32 bytes/);
    expect(generateLedgerKey()).toHaveLength(32);
  });

  describe('on disk', () => {
    let dir = '';
    beforeEach(async () => {
      dir = await mkdtemp(join(tmpdir(), 'stalebench-ledger-'));
    });
    afterEach(async () => {
      await rm(dir, { recursive: true, force: true });
    });

    test('the key appears nowhere: not in the file (hex, base64, raw), not beside it, not on the ledger objects', async () => {
      const key = generateLedgerKey();
      const path = join(dir, 'ledger.jsonl');
      const ledger = createExecutionLedger({ key, path });
      for (let step = 0; step < 20; step += 1)
        await ledger.writer.append({ action: 'retention-check', subject: `bucket ${step}` });
      expect(await ledger.reader.verifyChain()).toMatchObject({ ok: true, head: { length: 20 } });
      const bytes = await readFile(path);
      const text = bytes.toString('utf8');
      for (const form of [
        key.toString('hex'),
        key.toString('hex').toUpperCase(),
        key.toString('base64'),
        key.toString('base64url'),
      ]) {
        expect(text).not.toContain(form);
      }
      expect(bytes.indexOf(key)).toBe(-1);
      expect(await readdir(dir)).toEqual(['ledger.jsonl']);
      expect(JSON.stringify(ledger)).not.toContain(key.toString('hex'));
      expect(Object.keys(ledger.reader).sort()).toEqual([
        'contains',
        'readUnverified',
        'verifyAppended',
        'verifyChain',
      ]);
      expect(Object.keys(ledger.writer)).toEqual(['append']);
      // A second process with the same key verifies the file from genesis.
      expect(await createExecutionLedger({ key, path }).reader.contains('retention-check', 'Bucket 7')).toBe(true);
    });
  });
});

describe('writer', () => {
  test('concurrent appends are serialised into one valid chain; invalid entries are rejected before anything is written', async () => {
    const storage = createMemoryLedgerStorage();
    const { writer, reader } = createExecutionLedger({ key: KEY, storage });
    const written = await Promise.all(
      Array.from({ length: 10 }, (_, index) =>
        writer.append({ action: 'access-approval', subject: `account ${index}` }),
      ),
    );
    expect(written.map((event) => event.step)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    expect(await createExecutionLedger({ key: KEY, storage }).reader.verifyChain()).toMatchObject({
      ok: true,
      head: { length: 10, mac: written[9]?.mac },
    });
    await expect(writer.append({ action: 'Access Approval', subject: 'x' })).rejects.toThrow(InvalidInputError);
    await expect(writer.append({ action: 'access-approval', subject: '   ' })).rejects.toThrow(InvalidInputError);
    expect(await reader.verifyChain()).toMatchObject({ ok: true, head: { length: 10 } });
  });
});

describe('cached head (poem.md §2.3)', () => {
  test('verification recomputes MACs only for events appended since the last verified head', async () => {
    const storage = createMemoryLedgerStorage();
    const counted = () => {
      const calls: MacComputation[] = [];
      const ledger = createExecutionLedger({ key: KEY, storage, onMac: (call) => calls.push(call) });
      const take = (purpose: MacComputation['purpose']) =>
        calls
          .splice(0)
          .filter((call) => call.purpose === purpose)
          .map((call) => call.step);
      return { ...ledger, take };
    };
    const first = counted();
    for (let step = 0; step < 5; step += 1)
      await first.writer.append({ action: 'dual-approval', subject: `transfer ${step}` });
    expect(first.take('append')).toEqual([0, 1, 2, 3, 4]);
    expect(await first.reader.verifyChain()).toMatchObject({ ok: true, verifiedFrom: 5, head: { length: 5 } });
    expect(first.take('verify')).toEqual([]); // the writer's own appends extend the cached head

    const second = counted(); // process start: full verify
    expect(await second.reader.verifyChain()).toMatchObject({ ok: true, verifiedFrom: 0 });
    expect(second.take('verify')).toEqual([0, 1, 2, 3, 4]);
    for (let step = 5; step < 8; step += 1)
      await second.writer.append({ action: 'dual-approval', subject: `transfer ${step}` });

    expect(await first.reader.verifyChain()).toMatchObject({ ok: true, verifiedFrom: 5, head: { length: 8 } });
    expect(first.take('verify')).toEqual([5, 6, 7]);
    expect(await first.reader.contains('dual-approval', 'transfer 6')).toBe(true);
    expect(first.take('verify')).toEqual([]);

    const bytes = Buffer.from(storage.bytes());
    bytes[40] = bytes[40] === 0x61 ? 0x62 : 0x61; // a change inside the verified prefix forces a full verify, which fails
    storage.replace(bytes);
    expect(await first.reader.verifyChain()).toMatchObject({ ok: false, line: 1 });
  });
});
