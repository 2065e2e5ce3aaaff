// What every cell seeds (integrity.md §2.2): five records per context, FA in A, FB in B, the same label on each.
import type { ContextName, SeedRecord } from '../targets/integrity-target.js';

/** Records per context; the method asks for at least five. */
export const RECORDS_PER_CONTEXT = 5;

/** The distinctive facts the controls look for (C1, C2). */
export const DISTINCTIVE_FACT: Record<ContextName, string> = { A: 'orchid-4417', B: 'walrus-9023' };

const CONTEXT_WORD: Record<ContextName, string> = { A: 'alpha', B: 'beta' };

/**
 * The records of one context, oldest first. Record 0 carries the context's distinctive fact; record i states a
 * limit of (i + 1) × 100 EUR, the number T1 changes. With `revokedIndex`, that record is written revoked through
 * the target's own revocation primitive (the `T8:unrevoke` variant).
 */
export function seedRecords(context: ContextName, count = RECORDS_PER_CONTEXT, revokedIndex?: number): SeedRecord[] {
  const word = CONTEXT_WORD[context];
  return Array.from({ length: count }, (_, index) => {
    const fact = index === 0 ? ` Fact F${context}: the ${word} vault phrase is ${DISTINCTIVE_FACT[context]}.` : '';
    const record: SeedRecord = {
      text: `Context ${word} record ${index}: the approved transfer limit is ${(index + 1) * 100} EUR.${fact}`,
      labels: { source: 'web' },
    };
    return index === revokedIndex ? { ...record, revoked: true } : record;
  });
}

/** The one more genuine record T9 writes after the snapshot. */
export function laterRecord(context: ContextName, index = RECORDS_PER_CONTEXT): SeedRecord {
  return {
    text: `Context ${CONTEXT_WORD[context]} record ${index}: the approved transfer limit is ${(index + 1) * 100} EUR.`,
    labels: { source: 'web' },
  };
}

/**
 * T1's meaningful change: the last number of `text` (the limit) with its first digit moved, same length, so any
 * encoding that held the text still holds it. Returns the changed text and the exact substrings swapped.
 *
 * @example changedNumber('limit is 300 EUR.') // { text: 'limit is 900 EUR.', from: '300 EUR.', to: '900 EUR.' }
 */
export function changedNumber(text: string): { text: string; from: string; to: string } {
  const match = /(\d+)(\D*)$/.exec(text);
  if (!match || match.index === undefined) throw new Error(`no number to change in ${JSON.stringify(text)}`);
  const digits = match[1] ?? '';
  const swapped = `${digits[0] === '9' ? '1' : '9'}${digits.slice(1)}`;
  const from = text.slice(match.index);
  const to = `${swapped}${match[2] ?? ''}`;
  return { text: `${text.slice(0, match.index)}${to}`, from, to };
}
