// Control C3 (integrity.md §4): the store before and after an edit differ exactly as the edit intends, nothing else moved.
import { canonicalJson } from '../../../../backends/store-tools/canonical-json.js';
import type { RawRecord } from '../targets/integrity-target.js';
import type { Expectation, RawLists } from './edits.js';
import type { ControlResult } from './integrity-result.js';

type Slots = Map<string, RawRecord>;

const bySlot = (lists: RawLists): Slots => new Map([...lists.A, ...lists.B].map((record) => [record.slot, record]));
const labelsOf = (record: RawRecord): string => canonicalJson(record.labels);
const placeOf = (record: RawRecord): string => canonicalJson([record.owner, record.position, record.parent ?? null]);
const identical = (a: RawRecord, b: RawRecord): boolean => placeOf(a) === placeOf(b) && a.body === b.body;
const later = (a: number | string, b: number | string): boolean =>
  typeof a === 'number' && typeof b === 'number' ? a > b : String(a) > String(b);

class NotLanded extends Error {}
const fail = (message: string): never => {
  throw new NotLanded(message);
};

/** Every slot outside `touched` is present before and after and byte-identical; returns how many were checked. */
function othersUnchanged(
  before: Slots,
  after: Slots,
  touched: ReadonlySet<string>,
  added: ReadonlySet<string> = new Set(),
): number {
  let checked = 0;
  for (const [slot, record] of before) {
    if (touched.has(slot)) continue;
    const now = after.get(slot);
    if (!now) fail(`record ${slot} (not targeted) disappeared`);
    else if (!identical(record, now)) fail(`record ${slot} (not targeted) changed`);
    checked += 1;
  }
  for (const slot of after.keys())
    if (!before.has(slot) && !added.has(slot)) fail(`an unexpected record ${slot} appeared`);
  return checked;
}

const present = (slots: Slots, slot: string, when: string): RawRecord =>
  slots.get(slot) ?? fail(`record ${slot} is missing ${when} the edit`);

function samePlace(before: RawRecord, after: RawRecord): void {
  if (placeOf(before) !== placeOf(after)) fail(`record ${before.slot} changed its owner, position or parent`);
}

function check(before: Slots, after: Slots, expectation: Expectation): string {
  switch (expectation.kind) {
    case 'content-changed': {
      const [was, now] = [present(before, expectation.slot, 'before'), present(after, expectation.slot, 'after')];
      samePlace(was, now);
      if (was.text === now.text) fail(`the content of ${expectation.slot} is unchanged`);
      if (labelsOf(was) !== labelsOf(now)) fail(`the labels of ${expectation.slot} changed too`);
      return `content of ${expectation.slot} changed (${JSON.stringify(now.text)}); ${othersUnchanged(before, after, new Set([expectation.slot]))} other records unchanged`;
    }
    case 'removed': {
      for (const slot of expectation.slots) if (after.has(slot)) fail(`record ${slot} is still there`);
      const touched = new Set(expectation.slots);
      const relinked = expectation.relinked;
      if (relinked) {
        const [was, now] = [present(before, relinked.slot, 'before'), present(after, relinked.slot, 'after')];
        if (now.parent !== relinked.parent) fail(`record ${relinked.slot} does not point at ${relinked.parent}`);
        if (was.body !== now.body || was.owner !== now.owner || was.position !== now.position)
          fail(`record ${relinked.slot} changed beyond its parent link`);
        touched.add(relinked.slot);
      }
      return `removed ${expectation.slots.join(', ')}${relinked ? `; ${relinked.slot} repointed to ${relinked.parent}` : ''}; ${othersUnchanged(before, after, touched)} other records unchanged`;
    }
    case 'exchanged': {
      const [first, second] = expectation.slots;
      const [a, b] = [present(before, first, 'before'), present(before, second, 'before')];
      const [a2, b2] = [present(after, first, 'after'), present(after, second, 'after')];
      if (a.body === b.body) fail(`${first} and ${second} held the same body, so exchanging them changes nothing`);
      if (a2.body !== b.body || b2.body !== a.body) fail(`the bodies of ${first} and ${second} were not exchanged`);
      samePlace(a, a2);
      samePlace(b, b2);
      return `exchanged the bodies of ${first} and ${second}; ${othersUnchanged(before, after, new Set(expectation.slots))} other records unchanged`;
    }
    case 'appended': {
      const added = [...after.keys()].filter((slot) => !before.has(slot));
      if (added.length !== 1) fail(`${added.length} records were added, not exactly one`);
      const forged = after.get(added[0] as string) as RawRecord;
      if (forged.owner !== expectation.owner)
        fail(`the forged record belongs to ${forged.owner}, not ${expectation.owner}`);
      if (!later(forged.position, expectation.after))
        fail(`the forged record (position ${forged.position}) is not after the tip (${expectation.after})`);
      return `appended ${forged.slot} after the tip; ${othersUnchanged(before, after, new Set(), new Set(added))} other records unchanged`;
    }
    case 'replayed': {
      const { victim, donor } = expectation;
      const [was, now] = [present(before, victim, 'before'), present(after, victim, 'after')];
      if (was.body === donor.body) fail(`victim ${victim} already held the donor's body: a no-op`);
      if (now.body !== donor.body) fail(`victim ${victim} does not hold donor ${donor.slot}'s body`);
      samePlace(was, now);
      if (expectation.otherOwner && donor.owner === was.owner) fail(`donor and victim share the owner ${donor.owner}`);
      if (!expectation.otherOwner && donor.owner !== was.owner) fail(`donor ${donor.slot} belongs to another context`);
      return `${victim} (owner ${was.owner}) now holds the body of ${donor.slot} (owner ${donor.owner}); ${othersUnchanged(before, after, new Set([victim]))} other records unchanged`;
    }
    case 'relabelled': {
      const [was, now] = [present(before, expectation.slot, 'before'), present(after, expectation.slot, 'after')];
      samePlace(was, now);
      if (was.text !== now.text) fail(`the content of ${expectation.slot} changed`);
      const changed = Object.keys({ ...was.labels, ...now.labels }).filter(
        (key) => canonicalJson(was.labels[key]) !== canonicalJson(now.labels[key]),
      );
      if (changed.length === 0) fail(`no label of ${expectation.slot} changed`);
      const outside = expectation.only ? changed.filter((key) => !expectation.only?.includes(key)) : [];
      if (outside.length > 0) fail(`labels outside the revocation fields changed: ${outside.join(', ')}`);
      return `labels ${changed.join(', ')} of ${expectation.slot} changed, content untouched; ${othersUnchanged(before, after, new Set([expectation.slot]))} other records unchanged`;
    }
  }
}

/**
 * Compares raw snapshots around a T1–T8 edit. A failure is an error cell (the harness is at fault, never a pass
 * or a fail): a copy onto the record it came from, a reorder that writes records back unchanged, a replay whose
 * donor shares the victim's owner, or any collateral change.
 */
export function checkLanded(before: RawLists, after: RawLists, expectation: Expectation): ControlResult {
  try {
    return { ok: true, detail: check(bySlot(before), bySlot(after), expectation) };
  } catch (error) {
    if (error instanceof NotLanded) return { ok: false, detail: `the edit did not land as intended: ${error.message}` };
    throw error;
  }
}

/**
 * T9's landed control: the later genuine write added a record after the snapshot, and the restored store equals the
 * snapshot exactly (so that record is gone again). The new record is found by its slot, never by its text, since a
 * store may normalise what it keeps.
 */
export function checkRestored(snapshot: RawLists, beforeRestore: RawLists, after: RawLists): ControlResult {
  const [was, grown, now] = [bySlot(snapshot), bySlot(beforeRestore), bySlot(after)];
  const added = [...grown.keys()].filter((slot) => !was.has(slot));
  if (added.length === 0)
    return { ok: false, detail: 'the later genuine record never reached the store, so the rollback removes nothing' };
  const survivors = added.filter((slot) => now.has(slot));
  if (survivors.length > 0)
    return { ok: false, detail: `the later genuine record ${survivors.join(', ')} is still there after the restore` };
  if (was.size !== now.size)
    return { ok: false, detail: `the restored store holds ${now.size} records, the snapshot ${was.size}` };
  for (const [slot, record] of was) {
    const restored = now.get(slot);
    if (!restored || !identical(record, restored))
      return { ok: false, detail: `record ${slot} differs from the snapshot` };
  }
  return {
    ok: true,
    detail: `the store equals the snapshot (${was.size} records) and the later genuine record ${added.join(', ')} is gone`,
  };
}
