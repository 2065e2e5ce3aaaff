// Tables 8 and 11 (stale-retrieval.md §15): unsafe rate per scenario and per rule group, the exposed systems pooled.
// Which scenarios come in which order, and which get an "excluding" row, is scenario data (scenarios/policy/index.json).
import { indexGrid, pool, type ModelGroup } from '../grid/grid-index.js';
import type { LoadedRun } from '../load-run.js';
import type { PaperTable, TableCell } from '../paper-table.js';
import { table, unsafeCell } from '../table-cells.js';
import { EXPOSED_SYSTEMS, extrasOf, indexNotes, present, runIds, systemLabel } from './grid-table-parts.js';
import { defineTable, type ScenarioLabel } from './table-definition.js';

/** The arms of Tables 8/11 and their column labels. */
const ARMS: [string, string][] = [
  ['none', 'no defense'],
  ['store-filter', 'filter'],
];

/** The rule groups, in the paper's order: the scenario family, its row prefix, and the label of its pooled row. */
const GROUPS: [ScenarioLabel['family'], string, string][] = [
  ['scenario', 'with rule', 'pooled'],
  ['payload', 'no rule', 'pooled (incl. directive)'],
];

/**
 * Tables 8/11: per scenario and per rule group (with rule = scenario family, no rule = payload), exposed systems pooled.
 * A group lists its scenarios by `table8.rank` (unranked ones after, in the order given), then its pooled row, then one
 * pooled row without each scenario that names `table8.pooledWithout`.
 */
export function buildTable8(
  runs: readonly LoadedRun[],
  scenarios: readonly ScenarioLabel[],
  group?: ModelGroup,
): PaperTable {
  const index = indexGrid(runs, group);
  const systems = present(index, EXPOSED_SYSTEMS);
  const inRuns = new Set(runs.flatMap((r) => r.manifest.spec.scenarios));
  const known = scenarios.filter((s) => inRuns.has(s.id) && s.family !== null);
  const order = (s: ScenarioLabel) => s.table8?.rank ?? Number.POSITIVE_INFINITY;
  const cells: TableCell[] = [];
  const emit = (row: string, ids: readonly string[]) => {
    for (const [arm, column] of ARMS) {
      const tally = pool(index, { systems, arm, scenarios: ids });
      if (tally.completed + tally.errors > 0) cells.push(unsafeCell(row, column, tally));
    }
  };
  for (const [family, ruleGroup, pooledLabel] of GROUPS) {
    const members = known.filter((s) => s.family === family).sort((a, b) => order(a) - order(b));
    for (const s of members) emit(`${ruleGroup}: ${s.short}`, [s.id]);
    if (members.length === 0) continue;
    emit(
      `${ruleGroup}: ${pooledLabel}`,
      members.map((s) => s.id),
    );
    if (members.length < 2) continue;
    for (const excluded of members) {
      const label = excluded.table8?.pooledWithout;
      if (label)
        emit(
          `${ruleGroup}: ${label}`,
          members.filter((s) => s !== excluded).map((s) => s.id),
        );
    }
  }
  const unlabelled = [...inRuns].filter((id) => !known.some((s) => s.id === id));
  const notes = [
    `Pooled over ${systems.map(systemLabel).join(' + ') || 'no exposed system'} and all models, direct insertion. "with rule" = scenarios with a guardrail (family "scenario"); "no rule" = payload scenarios. The groups are not a controlled comparison (spec §15).`,
    ...indexNotes(index),
  ];
  if (unlabelled.length > 0) notes.push(`Scenarios without a family label are left out: ${unlabelled.join(', ')}.`);
  return table(
    '8/11',
    'Per scenario and per rule group, both exposed systems pooled',
    cells,
    ARMS.map(([, c]) => c),
    index.simulated,
    runIds(runs, group),
    notes,
    extrasOf(group),
  );
}

/** Tables 8/11, registered: one per model group of the grid runs. */
export const table8 = defineTable({
  id: '8/11',
  paper: true,
  scope: 'grid',
  perModelGroup: true,
  build: (inputs, group) => buildTable8(inputs.grid, inputs.scenarios, group),
});
