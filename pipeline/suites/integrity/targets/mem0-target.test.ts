import { describe, expect, it } from 'vitest';
import { ALL_EDITS } from '../harness/edits.js';
import { allControlsHeld, measuredRow } from './measured-row.js';
import { createMem0Target } from './mem0-target.js';

// Pinned measurement (agmi practice): when mem0ai moves, this test fails; re-measure and update the row and version.
describe('mem0 target (real mem0ai on its SQLite files)', () => {
  it('mem0ai 3.3.1 serves every edit: T1–T9 accepted with C1–C3 holding; T8:unrevoke revives the expired memory', async () => {
    const target = createMem0Target();
    expect((await target.describe()).versions.mem0ai).toBe('3.3.1');
    const edits = ALL_EDITS.map((edit) => ({ edit, variant: null as 'unrevoke' | null }));
    edits.splice(8, 0, { edit: 'T8', variant: 'unrevoke' });
    const { row, result } = await measuredRow(target, edits);
    expect(row).toEqual([
      ...ALL_EDITS.slice(0, 8).map((edit) => `${edit} accepted`),
      'T8:unrevoke accepted',
      'T9 accepted',
    ]);
    expect(allControlsHeld(result)).toBe(true);
    expect(result.metric).toMatchObject({ value: 0, n: 8, accepted: 8, t9: 'accepted' });
    const unrevoke = result.cells.find((cell) => cell.variant === 'unrevoke');
    // Before the edit mem0's default read hid the expired memory (4 of 5 served); after it, all 5 are served.
    expect(unrevoke?.controls.c1.detail).toContain('(4 records)');
    expect(unrevoke?.observation).toBe('served 5 records; 1 of 1 edited contents among them');
    expect(unrevoke?.commands.join('\n')).toMatch(
      /^sqlite3 mem0\/vector_store.db "UPDATE vectors SET payload = \? WHERE id = \?" -- "\{(?!.*expiration_date)/,
    );
    const t6 = result.cells.find((cell) => cell.edit === 'T6');
    expect(t6?.controls.c3.detail).toMatch(/\(owner ctx-a\) now holds the body of .* \(owner ctx-b\)/);
  }, 120_000);
});
