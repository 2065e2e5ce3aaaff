import { randomBytes } from 'node:crypto';
import { appendFileSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openRevocationLedger } from './revocation-ledger.js';

const at = new Date('2026-12-01T00:00:00.000Z');
const v1 = 'MFA may be waived for admin access when the requester is in a hurry. Approved shortcut.';
const v2 = 'Admin access always requires MFA; waivers are never permitted.';

function fresh(key = randomBytes(32)) {
  const dir = mkdtempSync(join(tmpdir(), 'revocation-ledger-'));
  const settings = { path: join(dir, 'ledger.jsonl'), witnessPath: join(dir, 'witness.json'), key };
  const ledger = openRevocationLedger(settings);
  ledger.bind({ id: 'e1', owner: 'ns', text: v1 }, at);
  ledger.bind({ id: 'e2', owner: 'ns', text: v2 }, at);
  ledger.revoke({ id: 'e1', owner: 'ns', text: v1 }, at, { id: 'e2', owner: 'ns', text: v2 });
  return { ledger, settings };
}
const lines = (path: string) => readFileSync(path, 'utf8').split('\n').filter(Boolean);

describe('revocation ledger', () => {
  it('judges by id, by content hash and by a revoked sentence a record carries, each owner apart', () => {
    const { ledger } = fresh();
    const [byId, revived, chunk, wrapped, current, unknown, altered] = ledger.verdicts('ns', [
      { id: 'e1', text: v1, storeRevoked: true },
      { id: 'e1', text: v1, storeRevoked: false },
      { id: 'c9', text: `Policy DOC-00, issued in 2024. It states: ${v1} VPN is required.`, storeRevoked: null },
      {
        id: 'k7',
        text: "{'content': 'MFA may be waived for admin access when the requester is in a hurry.'}",
        storeRevoked: null,
      },
      { id: 'e2', text: v2, storeRevoked: false },
      { id: 'x', text: 'VPN is required for remote access.', storeRevoked: null },
      { id: 'e2', text: 'Admin access never requires MFA.', storeRevoked: false },
    ]);
    expect(byId).toEqual({
      status: 'revoked',
      reason: 'revocation ledger: superseded by the application: supersession at 2026-12-01T00:00:00.000Z (entry 2)',
    });
    expect(revived).toEqual({
      status: 'revoked',
      reason:
        'revocation ledger: status not bound: the store serves it as current, the ledger binds its supersession at 2026-12-01T00:00:00.000Z (entry 2)',
    });
    expect([chunk?.status, wrapped?.status, current?.status, unknown?.status, altered?.status]).toEqual([
      'revoked',
      'revoked',
      'current',
      'unknown',
      'altered',
    ]);
    expect(ledger.verdicts('other', [{ id: 'e1', text: v1, storeRevoked: false }])[0]?.status).toBe('unknown');
  });

  it('judges by content where the store gave no ids; where it did, an unbound id is unknown whatever its content', () => {
    const { ledger } = fresh();
    ledger.bind({ id: null, owner: 'chunks', text: `Policy DOC-00 states: ${v2}` }, at);
    ledger.bind({ id: null, owner: 'chunks', text: 'VPN is required for remote access.' }, at);
    const statuses = (owner: string, texts: string[]) =>
      ledger
        .verdicts(
          owner,
          texts.map((text, index) => ({ id: `r${index}`, text, storeRevoked: null })),
        )
        .map((v) => v.status);
    expect(
      statuses('chunks', [`Policy DOC-00 states: ${v2}`, `{'content': '${v2}'}`, 'VPN is required for remote access.']),
    ).toEqual(['current', 'current', 'current']);
    expect(statuses('ns', [v2, `{'content': '${v2}'}`])).toEqual(['unknown', 'unknown']); // ns binds e1, e2 by id
  });

  it('binds id, owner, content hash, position and the transition in each entry, no text', () => {
    const { settings } = fresh();
    const entries = lines(settings.path).map(
      (line) => JSON.parse(line) as { seq: number; payload: Record<string, unknown> },
    );
    expect(entries.map((e) => [e.seq, e.payload.kind, e.payload.id, e.payload.position ?? null])).toEqual([
      [0, 'bind', 'e1', 0],
      [1, 'bind', 'e2', 1],
      [2, 'supersede', 'e1', null],
    ]);
    expect(readFileSync(settings.path, 'utf8')).not.toContain('waived');
  });

  it.each([
    [
      'an edited line',
      (path: string) => writeFileSync(path, readFileSync(path, 'utf8').replace('"supersede"', '"bind"')),
      'line 3 of the ledger fails its MAC',
    ],
    [
      'a removed transition (truncation)',
      (path: string) => writeFileSync(path, `${lines(path).slice(0, 2).join('\n')}\n`),
      'the ledger holds 2 entries but its off-store witness binds 3',
    ],
    [
      'reordered lines',
      (path: string) => {
        const [a, b, c] = lines(path);
        writeFileSync(path, `${[b, a, c].join('\n')}\n`);
      },
      'line 1 of the ledger is out of sequence',
    ],
    [
      'a forged line',
      (path: string) =>
        appendFileSync(path, `${JSON.stringify({ seq: 3, payload: { kind: 'bind' }, prev: 'x', mac: 'y' })}\n`),
      'line 4 of the ledger is out of sequence',
    ],
  ])('fails closed on %s: every verdict is broken, with the reason', (_name, edit, reason) => {
    const { ledger, settings } = fresh();
    edit(settings.path);
    const [verdict] = ledger.verdicts('ns', [{ id: 'e2', text: v2, storeRevoked: false }]);
    expect(verdict?.status).toBe('broken');
    expect(verdict?.reason).toContain(reason);
    expect(() => ledger.bind({ id: 'e3', owner: 'ns', text: 'x' }, at)).toThrow(reason);
  });

  it('fails closed under another key, and on a witness rolled back or edited', () => {
    const { settings } = fresh();
    expect(openRevocationLedger({ ...settings, key: randomBytes(32) }).check()).toEqual({
      ok: false,
      reason: 'line 1 of the ledger fails its MAC (edited)',
    });
    const witness = JSON.parse(readFileSync(settings.witnessPath, 'utf8')) as { length: number };
    writeFileSync(settings.witnessPath, JSON.stringify({ ...witness, length: 2 }));
    expect(openRevocationLedger(settings).check()).toEqual({ ok: false, reason: 'the head witness fails its MAC' });
  });

  it('survives a crash mid-append: a torn last line is cut off, a complete line past the witness is witnessed', () => {
    const { ledger, settings } = fresh();
    appendFileSync(settings.path, '{"seq":3,"payl');
    expect(ledger.check()).toEqual({
      ok: true,
      entries: 3,
      repaired: 'a torn last line (a crash mid-append) was cut off',
    });
    const witness = readFileSync(settings.witnessPath, 'utf8');
    ledger.bind({ id: 'e3', owner: 'ns', text: 'Password rotation is every 90 days.' }, at);
    writeFileSync(settings.witnessPath, witness); // the crash came after the line, before its witness
    expect(ledger.check()).toMatchObject({ ok: true, entries: 4, repaired: expect.stringContaining('was witnessed') });
    expect(ledger.check()).toEqual({ ok: true, entries: 4, repaired: null });
  });

  it('refuses a short or constant key', () => {
    expect(() => fresh(Buffer.alloc(32, 7))).toThrow('all bytes are equal');
  });
});
