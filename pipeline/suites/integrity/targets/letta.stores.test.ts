// Pins the `letta` row (Letta 0.16.8 core-memory checkpoint history) measured on the real PyPI package in its own venv.
import { describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { ALL_EDITS } from '../harness/edits.js';
import { createLettaTarget } from './letta-target.js';
import { allControlsHeld, measuredRow } from './measured-row.js';

const root = join(import.meta.dirname, '..', '..', '..', '..');
const letta = createLettaTarget(root, { id: 'letta', env: 'letta' });
const reason = (await letta.unavailable?.())?.reason ?? null;
if (reason !== null) console.log(`[stores] letta skipped: ${reason}`);

describe('Letta core-memory checkpoint history (environment letta)', () => {
  it.skipIf(reason !== null)(
    'letta 0.16.8 on PostgreSQL 16.2: T1–T8 accepted as agmi measured, and T9 accepted, every control holding',
    async () => {
      const description = await letta.describe();
      expect(description.versions).toMatchObject({ letta: '0.16.8', pgserver: '0.1.4' });
      expect(description.store).toContain('PostgreSQL) 16.2');
      expect(description.detection).toBe('read');
      const { row, result } = await measuredRow(
        letta,
        ALL_EDITS.map((edit) => ({ edit, variant: null })),
      );
      expect(row).toEqual(ALL_EDITS.map((edit) => `${edit} accepted`));
      expect(allControlsHeld(result)).toBe(true);
      const cells = Object.fromEntries(result.cells.map((cell) => [cell.edit, cell]));
      // The edited checkpoint's content is what the read walk serves (undo/redo copy it into the block).
      expect(cells.T1?.observation).toBe('served 5 records; 1 of 1 edited contents among them');
      expect(cells.T2?.form).toBe('head pointer moved to the new tip');
      expect(cells.T2?.observation).toBe('served 3 records');
      expect(cells.T3?.observation).toBe('served 4 records');
      // The forged checkpoint after the tip: redo walks onto it, so the block ends holding the attacker's text.
      expect(cells.T4?.observation).toBe('served 5 records; 2 of 2 edited contents among them');
      expect(cells.T5?.observation).toBe('served 6 records; 1 of 1 edited contents among them');
      // B's newest checkpoint in A's newest slot: the walk serves it beside A's own values (the block row kept A's).
      expect(cells.T6?.observation).toBe('served 6 records; 1 of 1 edited contents among them');
      expect(cells.T9?.observation).toBe('served 5 records');
      // Every raw command is logged, the server started and stopped around the SQL.
      expect(
        cells.T1?.commands.some((command) =>
          command.startsWith('psql -h store/pgdata -U postgres -d letta -c "UPDATE block_history SET value'),
        ),
      ).toBe(true);
      expect(cells.T9?.commands.some((command) => command.startsWith('cp -a '))).toBe(true);
    },
    1_800_000,
  );
});

const latest = createLettaTarget(root, { id: 'letta@0.34.12', env: 'letta-latest' });
const latestUnavailable = await latest.unavailable?.();
const latestSkip = latestUnavailable?.missingPrerequisite ? latestUnavailable.reason : null;
if (latestSkip !== null) console.log(`[stores] letta@0.34.12 skipped: ${latestSkip}`);

describe('letta@0.34.12, the newest letta on PyPI (environment letta-latest)', () => {
  it.skipIf(latestSkip !== null)(
    'is Letta Code, not the server library: every cell not evaluable, naming why (no verdict can flip)',
    async () => {
      expect(latestUnavailable?.reason).toBe(
        'letta 0.34.12 on PyPI is Letta Code, the terminal CLI (module letta_code, a bundled Node payload): it ships no ' +
          'Python letta package, so there is no BlockManager, block_history, archival memory or server to run ' +
          'in-process (0.16.8 is the newest release of the server library under that name)',
      );
      const { row, result } = await measuredRow(latest);
      expect(row).toEqual(ALL_EDITS.map((edit) => `${edit} not-evaluable`));
      for (const cell of result.cells) expect(cell.reason).toBe(`not evaluable: ${latestUnavailable?.reason}`);
    },
    120_000,
  );
});
