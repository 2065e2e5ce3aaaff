// Table 6 (stale-retrieval.md §15): exposure, rank and unsafe rate per system and defence, direct insertion.
import { indexGrid, pool, type ModelGroup } from '../grid/grid-index.js';
import type { LoadedRun } from '../load-run.js';
import type { PaperTable } from '../paper-table.js';
import { table, unsafeCell } from '../table-cells.js';
import {
  CLEAN_SYSTEMS,
  embedderNote,
  EXPOSED_SYSTEMS,
  extrasOf,
  indexNotes,
  present,
  runIds,
  systemLabel,
  systemRow,
  TABLE6_ARMS,
} from './grid-table-parts.js';
import { defineTable } from './table-definition.js';

/** The paper's row order; systems of the runs that it does not name follow. */
const TABLE6_SYSTEMS = ['graphiti', 'mem0-exp', 'cognee', 'langmem', 'mem0', 'zep-ce'];

/** Table 6: per system, all models and scenarios pooled, direct insertion; plus the pooled exposed row. */
export function buildTable6(runs: readonly LoadedRun[], group?: ModelGroup): PaperTable {
  const index = indexGrid(runs, group);
  const systems = [...TABLE6_SYSTEMS, ...new Set(runs.flatMap((r) => r.manifest.spec.systems))].filter(
    (s, i, all) => all.indexOf(s) === i,
  );
  const cells = systems.flatMap((system) => systemRow(index, system, systemLabel(system), true));
  const notes = [
    'Exposure is counted over (model, scenario) pairs, as the paper does (81/81 = 9 scenarios × 9 models): a 9-model run gives n = 81, a 1-model run n = 9; it is decision-model-independent.',
    'Rank = mean 1-based position of the first revoked record in the default read, over exposed scenarios.',
    ...embedderNote(cells),
    ...indexNotes(index),
  ];
  const exposed = present(index, EXPOSED_SYSTEMS);
  if (exposed.length === EXPOSED_SYSTEMS.length) {
    const row = 'pooled (graphiti + mem0 (exp.))';
    for (const [arm, column] of TABLE6_ARMS) {
      const tally = pool(index, { systems: EXPOSED_SYSTEMS, arm });
      if (tally.completed + tally.errors > 0) cells.push(unsafeCell(row, column, tally));
    }
  }
  if (present(index, CLEAN_SYSTEMS).length === CLEAN_SYSTEMS.length) {
    const tally = pool(index, { systems: CLEAN_SYSTEMS, arm: 'none' });
    if (tally.completed + tally.errors > 0)
      cells.push(unsafeCell('three clean-context baselines', 'no defense', tally));
    notes.push(
      '"three clean-context baselines" is our reading (cognee + langmem + mem0, no defence); the paper does not identify them (spec §16 item 6).',
    );
  }
  const others = systems.filter(
    (s) =>
      !EXPOSED_SYSTEMS.includes(s) &&
      cells.some((c) => c.row === systemLabel(s) && c.column === 'exposure' && (c.k ?? 0) > 0),
  );
  if (others.length > 0)
    notes.push(
      `Also exposed in these runs but not pooled (the paper pools graphiti + mem0 (exp.)): ${others.map(systemLabel).join(', ')}.`,
    );
  return table(
    '6',
    'Single read, direct insertion: exposure, rank and unsafe-action rate per system and defence',
    cells,
    ['exposure', 'rank', ...TABLE6_ARMS.map(([, c]) => c)],
    index.simulated,
    runIds(runs, group),
    notes,
    extrasOf(group),
  );
}

/** Table 6, registered: one per model group of the grid runs. */
export const table6 = defineTable({
  id: '6',
  paper: true,
  scope: 'grid',
  perModelGroup: true,
  build: (inputs, group) => buildTable6(inputs.grid, group),
});
