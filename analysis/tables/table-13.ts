// Table 13 (stale-retrieval.md §15): mem0's within-system A/B of the retrieval policy, direct insertion.
import { indexGrid, type ModelGroup } from '../grid/grid-index.js';
import type { LoadedRun } from '../load-run.js';
import type { PaperTable } from '../paper-table.js';
import { table } from '../table-cells.js';
import { embedderNote, extrasOf, indexNotes, runIds, systemRow, TABLE6_ARMS } from './grid-table-parts.js';
import { defineTable } from './table-definition.js';

/** Table 13: mem0's within-system A/B of the retrieval policy (expired filtered vs returned), direct. */
export function buildTable13(runs: readonly LoadedRun[], group?: ModelGroup): PaperTable {
  const index = indexGrid(runs, group);
  const cells = [
    ...systemRow(index, 'mem0', 'expired filtered (default)', false),
    ...systemRow(index, 'mem0-exp', 'expired returned', false),
  ];
  const notes = [
    'Same store and data, one boolean apart (show_expired). Exposure counted over (model, scenario) pairs as in Table 6.',
    ...embedderNote(cells),
    ...indexNotes(index),
  ];
  return table(
    '13',
    'mem0 within-system A/B of the retrieval policy, direct insertion',
    cells,
    ['exposure', ...TABLE6_ARMS.map(([, c]) => c)],
    index.simulated,
    runIds(runs, group),
    notes,
    extrasOf(group),
  );
}

/** Table 13, registered: one per model group of the grid runs. */
export const table13 = defineTable({
  id: '13',
  paper: true,
  scope: 'grid',
  perModelGroup: true,
  build: (inputs, group) => buildTable13(inputs.grid, group),
});
