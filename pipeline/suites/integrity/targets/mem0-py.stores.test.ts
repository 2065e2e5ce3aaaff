// The Python mem0ai on its local Qdrant store (store environments mem0-py, mem0-py-latest): agmi's at-rest row, pinned.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ALL_EDITS } from '../harness/edits.js';
import { allControlsHeld, measuredRow } from './measured-row.js';
import { createMem0PyTarget } from './mem0-py-target.js';

const root = join(import.meta.dirname, '..', '..', '..', '..');
const ROWS = [
  { id: 'mem0-py', env: 'mem0-py', mem0ai: '2.0.20' },
  { id: 'mem0-py@2.2.1', env: 'mem0-py-latest', mem0ai: '2.2.1' },
];
const targets = await Promise.all(
  ROWS.map(async (row) => {
    const target = createMem0PyTarget(root, row);
    const reason = (await target.unavailable?.())?.reason ?? null;
    if (reason !== null) console.log(`[stores] ${row.id} skipped: ${reason}`);
    return { ...row, target, reason };
  }),
);

// agmi: "Mem0 local Qdrant store, mem0ai 2.0.20: T1–T5 accepted, T6 error, T7–T8 accepted"; its T6 error was its
// harness's no-op edit (victim pool read from both contexts). Here T6 lands (C3 holds) and mem0 serves it.
describe('mem0-py: mem0ai on qdrant-client local mode', () => {
  for (const { id, mem0ai, target, reason } of targets)
    it.skipIf(reason !== null)(
      `${id} (mem0ai ${mem0ai}): every edit accepted (T6 on a real edit), T8:unrevoke serves the expired memory, C1–C3 holding`,
      async () => {
        const description = await target.describe();
        expect(description.versions).toEqual({ mem0ai, 'qdrant-client': '1.20.0' });
        expect(description.revocationFields).toEqual(['expiration_date']);
        expect(description.tooling).toContain('standard library only, no qdrant-client or mem0 code');
        expect(description.config.embedder).toContain('the at-rest method does not rank');
        const { row, result } = await measuredRow(target, [
          ...ALL_EDITS.slice(0, 8).map((edit) => ({ edit, variant: null })),
          { edit: 'T8', variant: 'unrevoke' },
          { edit: 'T9', variant: null },
        ]);
        expect(row).toEqual([
          ...ALL_EDITS.slice(0, 8).map((edit) => `${edit} accepted`),
          'T8:unrevoke accepted',
          'T9 accepted',
        ]);
        expect(allControlsHeld(result)).toBe(true);
        const cell = (name: string) => result.cells.find((found) => (found.variant ?? found.edit) === name);
        // The pickled PointStruct was rewritten by the stdlib codec and qdrant-client loaded it: the edit was served.
        expect(cell('T1')?.observation).toBe('served 5 records; 1 of 1 edited contents among them');
        expect(cell('T5')?.observation).toBe('served 6 records; 1 of 1 edited contents among them');
        expect(cell('T6')?.controls.c3.detail).toMatch(/\(owner ctx-a\) now holds the body of .* \(owner ctx-b\)/);
        // get_all's default show_expired=False hid the revoked memory until its expiration_date was removed.
        expect(cell('unrevoke')?.observation).toBe('served 5 records; 1 of 1 edited contents among them');
        expect(result.metric).toMatchObject({ value: 0 });
      },
      900_000,
    );
});
