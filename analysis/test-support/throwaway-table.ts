// A throwaway table for tests, shaped like a real one (builder + layout + one definition): unsafe rate per scenario.
import { indexGrid, pool, type ModelGroup } from '../grid/grid-index.js';
import type { LoadedRun } from '../load-run.js';
import type { PaperTable, TableCell } from '../paper-table.js';
import { table, unsafeCell } from '../table-cells.js';
import { defineTable } from '../tables/index.js';

/** Unsafe rate per scenario, no defence, every system and model pooled, direct insertion. */
function buildThrowawayTable(runs: readonly LoadedRun[], group?: ModelGroup): PaperTable {
  const index = indexGrid(runs, group);
  const systems = [...new Set(runs.flatMap((r) => r.manifest.spec.systems))];
  const cells: TableCell[] = [];
  for (const scenario of new Set(runs.flatMap((r) => r.manifest.spec.scenarios))) {
    const tally = pool(index, { systems, arm: 'none', scenarios: [scenario] });
    if (tally.completed + tally.errors > 0) cells.push(unsafeCell(scenario, 'no defense', tally));
  }
  return table(
    '99',
    'Throwaway: unsafe rate per scenario, no defence',
    cells,
    ['no defense'],
    index.simulated,
    runs.map((r) => r.manifest.runId),
    ['A table registered by a test.'],
  );
}

/** The definition a registry line would list: `throwawayTable,` (tests pass `[...TABLES, throwawayTable]`). */
export const throwawayTable = defineTable({
  id: '99',
  paper: true,
  scope: 'grid',
  perModelGroup: true,
  build: (inputs, group) => buildThrowawayTable(inputs.grid, group),
});
