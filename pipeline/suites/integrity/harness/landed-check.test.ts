import { describe, expect, it } from 'vitest';
import type { RawRecord } from '../targets/integrity-target.js';
import type { RawLists } from './edits.js';
import { checkLanded, checkRestored } from './landed-check.js';

const record = (
  owner: 'A' | 'B',
  position: number,
  text = `${owner} record ${position}`,
  labels: Record<string, string> = { source: 'web' },
): RawRecord => ({
  slot: `${owner}:${position}`,
  owner,
  position,
  text,
  labels,
  body: JSON.stringify({ text, labels }),
});
const store = (): RawLists => ({
  A: [0, 1, 2, 3, 4].map((i) => record('A', i)),
  B: [0, 1, 2, 3, 4].map((i) => record('B', i)),
});
const withBody = (source: RawRecord, from: RawRecord): RawRecord => ({
  ...source,
  text: from.text,
  labels: from.labels,
  body: from.body,
});
const replace = (lists: RawLists, context: 'A' | 'B', index: number, next: RawRecord): RawLists => ({
  ...lists,
  [context]: lists[context].map((item, i) => (i === index ? next : item)),
});

describe('C3: the edit landed exactly', () => {
  it('T6: a replay whose donor shares the victim owner is a no-op at the owner level and fails (the agmi T6 bug)', () => {
    const before = store();
    const sameOwnerDonor = before.A[3] as RawRecord;
    const after = replace(before, 'A', 4, withBody(before.A[4] as RawRecord, sameOwnerDonor));
    expect(
      checkLanded(before, after, { kind: 'replayed', victim: 'A:4', donor: sameOwnerDonor, otherOwner: true }),
    ).toMatchObject({ ok: false, detail: expect.stringContaining('share the owner A') });
  });

  it('T6: a copy of the victim onto itself is a no-op and fails', () => {
    const before = store();
    expect(
      checkLanded(before, before, {
        kind: 'replayed',
        victim: 'A:4',
        donor: before.A[4] as RawRecord,
        otherOwner: true,
      }).ok,
    ).toBe(false);
  });

  it('T6: a real cross-context replay passes and says what moved', () => {
    const before = store();
    const donor = before.B[4] as RawRecord;
    const after = replace(before, 'A', 4, withBody(before.A[4] as RawRecord, donor));
    expect(checkLanded(before, after, { kind: 'replayed', victim: 'A:4', donor, otherOwner: true })).toEqual({
      ok: true,
      detail: 'A:4 (owner A) now holds the body of B:4 (owner B); 9 other records unchanged',
    });
  });

  it('T4: a reorder that writes each record back under its own key fails', () => {
    const before = store();
    expect(checkLanded(before, before, { kind: 'exchanged', slots: ['A:1', 'A:2'] }).detail).toContain(
      'were not exchanged',
    );
  });

  it('any collateral change fails, even when the intended change landed', () => {
    const before = store();
    let after = replace(before, 'A', 2, { ...(before.A[2] as RawRecord), text: 'changed', body: 'changed' });
    after = replace(after, 'B', 0, { ...(before.B[0] as RawRecord), body: 'also changed' });
    expect(checkLanded(before, after, { kind: 'content-changed', slot: 'A:2' })).toMatchObject({
      ok: false,
      detail: expect.stringContaining('record B:0 (not targeted) changed'),
    });
  });

  it('T1 fails when the labels moved with the content; T8 fails when the content moved with the labels', () => {
    const before = store();
    const both = { ...(before.A[2] as RawRecord), text: 'changed', labels: { source: 'user' }, body: 'changed' };
    expect(
      checkLanded(before, replace(before, 'A', 2, both), { kind: 'content-changed', slot: 'A:2' }).detail,
    ).toContain('labels of A:2 changed too');
    expect(
      checkLanded(before, replace(before, 'A', 2, both), { kind: 'relabelled', slot: 'A:2', only: null }).detail,
    ).toContain('content of A:2 changed');
  });

  it('T8 unrevoke: only the declared revocation fields may change', () => {
    const before = replace(
      store(),
      'A',
      2,
      record('A', 2, 'A record 2', { source: 'web', expiration_date: '2026-01-01' }),
    );
    const cleared = replace(before, 'A', 2, record('A', 2, 'A record 2', { source: 'web' }));
    expect(checkLanded(before, cleared, { kind: 'relabelled', slot: 'A:2', only: ['expiration_date'] }).ok).toBe(true);
    const more = replace(before, 'A', 2, record('A', 2, 'A record 2', { source: 'user' }));
    expect(checkLanded(before, more, { kind: 'relabelled', slot: 'A:2', only: ['expiration_date'] }).detail).toContain(
      'outside the revocation fields changed: source',
    );
  });

  it('T2/T5: removed records must be gone and exactly one record appended after the tip', () => {
    const before = store();
    const truncated: RawLists = { ...before, A: before.A.slice(0, 4) };
    expect(checkLanded(before, truncated, { kind: 'removed', slots: ['A:4', 'A:3'], relinked: null }).detail).toContain(
      'record A:3 is still there',
    );
    const early: RawLists = { ...before, A: [...before.A, { ...record('A', 9), position: -1, slot: 'A:x' }] };
    expect(checkLanded(before, early, { kind: 'appended', owner: 'A', after: 4 }).detail).toContain(
      'is not after the tip',
    );
  });

  it('T9: the restored store must equal the snapshot and miss the later genuine record (found by slot, not text)', () => {
    const snapshot = store();
    const later = record('A', 5, 'THE LATER ONE, as the store normalised it');
    const grown: RawLists = { ...snapshot, A: [...snapshot.A, later] };
    expect(checkRestored(snapshot, grown, snapshot)).toEqual({
      ok: true,
      detail: 'the store equals the snapshot (10 records) and the later genuine record A:5 is gone',
    });
    expect(checkRestored(snapshot, snapshot, snapshot).detail).toContain('never reached the store');
    expect(checkRestored(snapshot, grown, grown).detail).toContain('A:5 is still there');
    expect(
      checkRestored(snapshot, grown, replace(snapshot, 'B', 1, { ...(snapshot.B[1] as RawRecord), body: 'x' })).detail,
    ).toContain('B:1 differs');
    expect(checkRestored(snapshot, grown, { ...snapshot, B: snapshot.B.slice(1) }).detail).toContain(
      'holds 9 records, the snapshot 10',
    );
  });
});
