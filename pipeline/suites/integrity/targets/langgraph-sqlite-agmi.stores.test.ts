// The SqliteSaver row at the version agmi measured (langgraph-checkpoint-sqlite 3.1.1) beside the main venv's 3.1.2
// (issue #28 item 3): a version change that flipped a verdict would be a finding.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ALL_EDITS } from '../harness/edits.js';
import { createLanggraphSqlitePyTarget } from './langgraph-sqlite-py-target.js';
import { allControlsHeld, measuredRow } from './measured-row.js';

const root = join(import.meta.dirname, '..', '..', '..', '..');
const target = createLanggraphSqlitePyTarget(root, { id: 'langgraph-sqlite-py@3.1.1', env: 'langgraph-sqlite-3.1.1' });
const reason = (await target.unavailable?.())?.reason ?? null;
if (reason) console.log(`[stores] langgraph-sqlite-py@3.1.1 skipped: ${reason}`);

describe("LangGraph Python SqliteSaver at agmi's version", () => {
  it.skipIf(reason !== null)(
    'langgraph-checkpoint-sqlite 3.1.1: every edit accepted, as agmi published and as 3.1.2 measures; C1–C3 hold',
    async () => {
      expect((await target.describe()).versions['langgraph-checkpoint-sqlite']).toBe('3.1.1');
      const { row, result } = await measuredRow(
        target,
        ALL_EDITS.map((edit) => ({ edit, variant: null })),
      );
      expect(row).toEqual(ALL_EDITS.map((edit) => `${edit} accepted`));
      expect(allControlsHeld(result)).toBe(true);
      expect(result.cells[0]?.observation).toBe('served 5 records; 1 of 1 edited contents among them');
    },
    600_000,
  );
});
