import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ALL_EDITS } from '../harness/edits.js';
import { runTarget } from '../harness/run-integrity.js';
import { createReferenceTarget } from './reference-target.js';
import { IntegrityViolationError, openReferenceStore } from './reference-store.js';

const dir = mkdtempSync(join(tmpdir(), 'reference-store-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const key = Buffer.from(Array.from({ length: 32 }, (_, index) => index * 7 + 1));
const all = ALL_EDITS.map((edit) => ({ edit, variant: null }));

describe('self-validation (integrity.md §7.5): the reference store catches every edit it is built to catch', () => {
  it('with the off-store witness: T1–T9 all rejected on the read path, metric 1.0', async () => {
    const result = await runTarget(createReferenceTarget({ witness: true }), all, () => undefined);
    expect(result.cells.map((cell) => `${cell.edit}:${cell.verdict}:${cell.detection}`)).toEqual(
      ALL_EDITS.map((edit) => `${edit}:rejected:read`),
    );
    expect(result.metric).toMatchObject({ value: 1, n: 8, t9: 'rejected' });
    expect(result.cells.at(-1)?.reason).toContain('older than its off-store witness');
  });

  it('without it: T1–T8 still rejected, T9 accepted (a head beside the records rolls back with them)', async () => {
    const result = await runTarget(createReferenceTarget({ witness: false }), all, () => undefined);
    expect(
      result.cells
        .filter((cell) => cell.edit !== 'T9')
        .every((cell) => cell.verdict === 'rejected' && cell.detection === 'read'),
    ).toBe(true);
    expect(result.cells.at(-1)).toMatchObject({ edit: 'T9', verdict: 'accepted', controls: { c3: { ok: true } } });
    expect(result.metric.value).toBe(1);
  });
});

describe('reference store', () => {
  const fresh = (name: string, witness = true) => {
    const base = join(dir, name);
    return { storeDir: join(base, 'store'), witnessPath: witness ? join(base, 'witness.json') : undefined };
  };

  it('reads back what it wrote and refuses to open with another key', () => {
    const { storeDir, witnessPath } = fresh('key');
    const store = openReferenceStore({ dir: storeDir, key, witnessPath });
    store.append('A', 'one', { source: 'web' });
    expect(store.read('A').map((record) => record.content)).toEqual(['one']);
    expect(() => openReferenceStore({ dir: storeDir, key: Buffer.from(key).reverse(), witnessPath })).toThrow(
      IntegrityViolationError,
    );
  });

  it('an attacker who also rewrites the head file cannot re-sign it', () => {
    const { storeDir } = fresh('head', false);
    const store = openReferenceStore({ dir: storeDir, key });
    for (const text of ['a', 'b', 'c']) store.append('A', text, {});
    const lines = readFileSync(join(storeDir, 'records.jsonl'), 'utf8').split('\n').filter(Boolean);
    writeFileSync(join(storeDir, 'records.jsonl'), `${lines.slice(0, 2).join('\n')}\n`);
    const heads = JSON.parse(readFileSync(join(storeDir, 'head.json'), 'utf8'));
    heads.A = { length: 2, tag: JSON.parse(lines[1] as string).tag, sig: 'f'.repeat(64) };
    writeFileSync(join(storeDir, 'head.json'), JSON.stringify(heads));
    expect(() => openReferenceStore({ dir: storeDir, key })).toThrow(/head's signature does not verify/);
  });

  it('the witness refuses a rolled-back or forked store, and is not fooled by a missing head', () => {
    const { storeDir, witnessPath } = fresh('witness');
    const store = openReferenceStore({ dir: storeDir, key, witnessPath });
    store.append('A', 'a', {});
    const older = readFileSync(join(storeDir, 'records.jsonl'));
    const olderHead = readFileSync(join(storeDir, 'head.json'));
    store.append('A', 'b', {});
    writeFileSync(join(storeDir, 'records.jsonl'), older);
    writeFileSync(join(storeDir, 'head.json'), olderHead);
    expect(() => openReferenceStore({ dir: storeDir, key, witnessPath })).toThrow(/rolled back/);
    expect(() => openReferenceStore({ dir: storeDir, key })).not.toThrow(); // without the witness the rollback is invisible
    rmSync(storeDir, { recursive: true });
    expect(() => openReferenceStore({ dir: storeDir, key, witnessPath })).toThrow(
      /witness holds a head the store does not/,
    );
  });
});
