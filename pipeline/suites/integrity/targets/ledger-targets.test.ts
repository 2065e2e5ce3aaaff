import { describe, expect, it } from 'vitest';
import { ALL_EDITS } from '../harness/edits.js';
import type { EditSelection } from '../harness/integrity-result.js';
import { createGraphitiEmbeddedTarget } from './graphiti-embedded-target.js';
import { allControlsHeld, measuredRow } from './measured-row.js';
import { createMem0Target } from './mem0-target.js';

const EDITS: EditSelection[] = [
  ...ALL_EDITS.map((edit) => ({ edit, variant: null })),
  { edit: 'T8', variant: 'unrevoke' },
];

// Issue #14 item 4: the same stores as mem0 / graphiti@embedded (every edit accepted there), with the application
// writing and reading through the revocation ledger. Only what the ledger does not bind — a label (T8) — still passes.
describe.each([
  ['mem0+ledger', () => createMem0Target({ ledger: true })],
  ['graphiti+ledger@embedded', () => createGraphitiEmbeddedTarget({ ledger: true })],
])('%s', (id, create) => {
  it('rejects T1–T7, T9 and T8:unrevoke at read with the ledger as reason; T8 (a label it does not bind) is accepted', async () => {
    const target = create();
    expect(target.id).toBe(id);
    expect((await target.describe()).config['revocation ledger']).toMatch(/^on: /);
    const { row, result } = await measuredRow(target, EDITS);
    expect(row).toEqual([
      ...ALL_EDITS.slice(0, 7).map((edit) => `${edit} rejected/read`),
      'T8 accepted',
      'T9 rejected/read',
      'T8:unrevoke rejected/read',
    ]);
    expect(allControlsHeld(result)).toBe(true);
    const reason = (edit: string, variant: string | null = null) =>
      result.cells.find((cell) => cell.edit === edit && cell.variant === variant)?.reason;
    expect(reason('T8', 'unrevoke')).toMatch(
      /: revocation ledger: status not bound: the store serves it as current, the ledger binds its revocation at /,
    );
    expect(reason('T2')).toContain('revocation ledger: bound as written but missing from the read');
    expect(reason('T5')).toContain('revocation ledger: never bound');
    expect(reason('T6')).toContain('revocation ledger: content not bound');
    expect(result.metric).toMatchObject({ n: 8, accepted: 1, t9: 'rejected' });
  }, 180_000);
});
