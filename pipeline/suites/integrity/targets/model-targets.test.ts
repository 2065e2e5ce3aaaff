import { describe, expect, it } from 'vitest';
import { ALL_EDITS } from '../harness/edits.js';
import { createCogneeTarget } from './cognee-target.js';
import { createGraphitiEmbeddedTarget } from './graphiti-embedded-target.js';
import { createLangmemTarget } from './langmem-target.js';
import { allControlsHeld, measuredRow } from './measured-row.js';

const everyEdit = [
  ...ALL_EDITS.slice(0, 8).map((edit) => ({ edit, variant: null as 'unrevoke' | null })),
  { edit: 'T8' as const, variant: 'unrevoke' as const },
  { edit: 'T9' as const, variant: null },
];

// Our systems on their embedded engines (model rows): none has an integrity check, so every edit is served.
describe('model targets on the persisted embedded engines', () => {
  it('graphiti@embedded: T1–T9 accepted with C1–C3 holding; T8:unrevoke clears expired_at and invalid_at only', async () => {
    const target = createGraphitiEmbeddedTarget();
    expect((await target.describe()).label).toContain('(model)');
    const { row, result } = await measuredRow(target, everyEdit);
    expect(row).toEqual([
      ...ALL_EDITS.slice(0, 8).map((edit) => `${edit} accepted`),
      'T8:unrevoke accepted',
      'T9 accepted',
    ]);
    expect(allControlsHeld(result)).toBe(true);
    expect(result.cells.find((cell) => cell.variant === 'unrevoke')?.controls.c3.detail).toMatch(
      /^labels invalid_at, expired_at of .* changed, content untouched/,
    );
  }, 60_000);

  for (const create of [createLangmemTarget, createCogneeTarget]) {
    it(`${create().id}: T1–T9 accepted with C1–C3 holding; no revocation field, so T8:unrevoke is not evaluable`, async () => {
      const target = create();
      expect((await target.describe()).label).toContain('(model)');
      const { row, result } = await measuredRow(target, everyEdit);
      expect(row).toEqual([
        ...ALL_EDITS.slice(0, 8).map((edit) => `${edit} accepted`),
        'T8:unrevoke not-evaluable',
        'T9 accepted',
      ]);
      expect(result.cells.find((cell) => cell.variant === 'unrevoke')?.reason).toBe(
        'not evaluable: the store declares no revocation fields to clear',
      );
      expect(result.metric).toMatchObject({ value: 0, n: 8 });
    }, 60_000);
  }
});
