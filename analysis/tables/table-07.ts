// Table 7 (stale-retrieval.md §15): unsafe rate per decision model, direct insertion, the exposed systems pooled.
import { indexGrid, pool, type ModelGroup } from '../grid/grid-index.js';
import type { LoadedRun } from '../load-run.js';
import type { PaperTable, TableCell } from '../paper-table.js';
import { table, unsafeCell } from '../table-cells.js';
import {
  EXPOSED_SYSTEMS,
  extrasOf,
  indexNotes,
  modelRowLabel,
  present,
  runIds,
  systemLabel,
} from './grid-table-parts.js';
import { defineTable } from './table-definition.js';

/** The arms of Table 7 and their column labels. */
const TABLE7_ARMS: [string, string][] = [
  ['none', 'no defense'],
  ['store-filter', 'filter'],
  ['prompt-hardening', 'prompt hardening'],
  ['output-filter', 'output filter'],
];

/** Table 7: per decision model, direct, pooled over the exposed systems (graphiti + mem0 (exp.)). */
export function buildTable7(runs: readonly LoadedRun[], group?: ModelGroup): PaperTable {
  const index = indexGrid(runs, group);
  const systems = present(index, EXPOSED_SYSTEMS);
  const cells: TableCell[] = [];
  for (const model of index.models)
    for (const [arm, column] of TABLE7_ARMS) {
      const tally = pool(index, { systems, arm, model: model.id });
      if (tally.completed + tally.errors > 0) cells.push(unsafeCell(modelRowLabel(model), column, tally));
    }
  if (cells.length > 0)
    for (const [arm, column] of TABLE7_ARMS) {
      const tally = pool(index, { systems, arm });
      if (tally.completed + tally.errors > 0) cells.push(unsafeCell('column total', column, tally));
    }
  const notes = [
    `Pooled over ${systems.map(systemLabel).join(' + ') || 'no exposed system'} (the paper: graphiti + mem0 (exp.)), all scenarios, direct insertion.`,
    ...indexNotes(index),
  ];
  if (index.simulated) notes.push('Model column: sim (simulated) is the offline simulator.');
  return table(
    '7',
    'Per decision model, direct insertion, both exposed systems pooled',
    cells,
    TABLE7_ARMS.map(([, c]) => c),
    index.simulated,
    runIds(runs, group),
    notes,
    extrasOf(group),
  );
}

/** Table 7, registered: one per model group of the grid runs. */
export const table7 = defineTable({
  id: '7',
  paper: true,
  scope: 'grid',
  perModelGroup: true,
  build: (inputs, group) => buildTable7(inputs.grid, group),
});
