// The nine edits of integrity.md §3 as data (name, version, positions) and T1–T8 applied through raw access.
import type { ContextName, RawAccess, RawRecord, TargetDescription } from '../targets/integrity-target.js';
import type { EditId, EditSelection } from './integrity-result.js';

/** Every edit, in column order. */
export const ALL_EDITS: readonly EditId[] = ['T1', 'T2', 'T3', 'T4', 'T5', 'T6', 'T7', 'T8', 'T9'];

/** Name and version of each edit; bump the version whenever what an edit does changes (agmi pins it per result). */
const EDIT_CATALOGUE: Record<EditId, { name: string; version: string }> = {
  T1: { name: 'content tamper', version: 'v1' },
  T2: { name: 'tail truncation', version: 'v1' },
  T3: { name: 'middle deletion', version: 'v1' },
  T4: { name: 'reordering', version: 'v1' },
  T5: { name: 'forged insertion', version: 'v1' },
  T6: { name: 'cross-context replay', version: 'v1' },
  T7: { name: 'rollback replay', version: 'v1' },
  T8: { name: 'metadata tamper', version: 'v1' },
  T9: { name: 'snapshot rollback', version: 'v1' },
};

/** The edit's name (`snapshot rollback` for T9). */
export function editName(edit: EditId): string {
  return EDIT_CATALOGUE[edit].name;
}

/** Versions of the named variants. `T8:unrevoke` clears or moves the revocation fields and nothing else. */
export const VARIANT_VERSIONS: Record<string, string> = { 'T8:unrevoke': 'v1' };

/** `T6@v1`, `T8:unrevoke@v1`. */
export function attackId(selection: EditSelection): string {
  const name = selection.variant ? `${selection.edit}:${selection.variant}` : selection.edit;
  return `${name}@${selection.variant ? (VARIANT_VERSIONS[name] ?? 'v1') : EDIT_CATALOGUE[selection.edit].version}`;
}

/** Each context's records in store order, as the raw reader saw them. */
export type RawLists = Record<ContextName, RawRecord[]>;

/** What C3 must find after the edit (slots are `RawRecord.slot`). */
export type Expectation =
  | { kind: 'content-changed'; slot: string }
  | { kind: 'removed'; slots: string[]; relinked: { slot: string; parent: string } | null }
  | { kind: 'exchanged'; slots: [string, string] }
  | { kind: 'appended'; owner: string; after: number | string }
  | { kind: 'replayed'; victim: string; donor: RawRecord; otherOwner: boolean }
  | { kind: 'relabelled'; slot: string; only: readonly string[] | null };

/** A capability the edit needs is missing: the cell is not evaluable (never n/a, never a pass). */
export class MissingCapabilityError extends Error {}

/** What applying an edit returned. */
export interface AppliedEdit {
  expectation: Expectation;
  /** The form used where the method allows two, else null. */
  form: string | null;
}

const need = <T>(hook: T | undefined, what: string): T => {
  if (hook === undefined) throw new MissingCapabilityError(`the adapter has no ${what}`);
  return hook;
};

/** Positions of integrity.md §3: A = [a0 … a(n−1)], m = floor(n / 2). */
export function positions(records: readonly RawRecord[]): { at: (index: number) => RawRecord; n: number; m: number } {
  const n = records.length;
  if (n < 5) throw new Error(`context A holds ${n} records in the store; the method needs at least 5`);
  return { n, m: Math.floor(n / 2), at: (index) => records[index] as RawRecord };
}

/**
 * Applies one of T1–T8 with raw access only. Throws `MissingCapabilityError` when a hook the edit needs is absent.
 * T9 needs the running system (one more genuine write), so the procedure runs it.
 */
export async function applyEdit(
  selection: EditSelection,
  raw: RawAccess,
  before: RawLists,
  description: TargetDescription,
): Promise<AppliedEdit> {
  const { at, n, m } = positions(before.A);
  switch (selection.edit) {
    case 'T1':
      await need(raw.changeMeaning, 'content hook (changeMeaning)').call(raw, at(m));
      return { expectation: { kind: 'content-changed', slot: at(m).slot }, form: null };
    case 'T2': {
      await raw.remove(at(n - 1));
      await raw.remove(at(n - 2));
      if (!raw.moveHead)
        return {
          expectation: { kind: 'removed', slots: [at(n - 1).slot, at(n - 2).slot], relinked: null },
          form: 'no separate head pointer',
        };
      await raw.moveHead('A', at(n - 3));
      return {
        expectation: { kind: 'removed', slots: [at(n - 1).slot, at(n - 2).slot], relinked: null },
        form: 'head pointer moved to the new tip',
      };
    }
    case 'T3': {
      await raw.remove(at(m));
      if (!raw.relink)
        return { expectation: { kind: 'removed', slots: [at(m).slot], relinked: null }, form: 'plain deletion' };
      await raw.relink(at(m + 1), at(m - 1));
      return {
        expectation: {
          kind: 'removed',
          slots: [at(m).slot],
          relinked: { slot: at(m + 1).slot, parent: at(m - 1).slot },
        },
        form: 'deleted; successor repointed to its predecessor',
      };
    }
    case 'T4':
      await raw.writeBody(at(m - 1), at(m).body);
      await raw.writeBody(at(m), at(m - 1).body);
      return { expectation: { kind: 'exchanged', slots: [at(m - 1).slot, at(m).slot] }, form: null };
    case 'T5':
      await need(raw.forge, 'forging hook (forge)').call(raw, at(n - 1));
      return { expectation: { kind: 'appended', owner: at(n - 1).owner, after: at(n - 1).position }, form: null };
    case 'T6': {
      if (description.contexts < 2)
        throw new MissingCapabilityError('the store exposes one context, so there is no donor from another');
      const donor = before.B.at(-1);
      if (!donor) throw new MissingCapabilityError('context B holds no record to replay');
      await raw.writeBody(at(n - 1), donor.body);
      return { expectation: { kind: 'replayed', victim: at(n - 1).slot, donor, otherOwner: true }, form: null };
    }
    case 'T7':
      await raw.writeBody(at(n - 1), at(0).body);
      return { expectation: { kind: 'replayed', victim: at(n - 1).slot, donor: at(0), otherOwner: false }, form: null };
    case 'T8':
      if (selection.variant === 'unrevoke') {
        const fields = description.revocationFields;
        if (!fields || fields.length === 0) throw new MissingCapabilityError('the store declares no revocation fields');
        await need(raw.unrevoke, 'un-revoke hook (unrevoke)').call(raw, at(m));
        return {
          expectation: { kind: 'relabelled', slot: at(m).slot, only: fields },
          form: `revocation fields cleared: ${fields.join(', ')}`,
        };
      }
      await need(raw.relabel, 'metadata hook (relabel)').call(raw, at(m));
      return { expectation: { kind: 'relabelled', slot: at(m).slot, only: null }, form: null };
    case 'T9':
      throw new Error('T9 is run by the procedure (it needs one more genuine write)');
  }
}
