// Table 15 (stale-retrieval.md §13): multi-agent propagation (executor, reviewer, planner) on one shared store.
import type { PropagationRow } from '../follow-ups/follow-up-summary.types.js';
import type { ModelGroup } from '../grid/grid-index.js';
import type { PaperTable, TableCell } from '../paper-table.js';
import { followUpTable, paperRows, rowCells, type FollowUpInput } from '../follow-ups/paper-tables-follow-up.js';
import { valueCell } from '../table-cells.js';
import { defineTable } from './table-definition.js';

/** The propagation arms and the paper's row labels. */
const PROPAGATION_ROWS: [string, string][] = [
  ['shared-default', 'shared, default'],
  ['shared-filtered', 'shared, filtered'],
  ['no-journal', 'default, no journal'],
];

/** Table 15: multi-agent propagation from propagation summaries. */
export function buildTable15(inputs: readonly FollowUpInput[], group?: ModelGroup): PaperTable {
  const notes: string[] = [];
  const rows = paperRows<PropagationRow>(inputs, (s) => s.propagation, notes, group);
  const cells: TableCell[] = [];
  // `--taint on` rows follow as `<condition> + taint` (same model, seeds and scenarios; journals with provenance).
  const rowsOf = PROPAGATION_ROWS.flatMap(([arm, label]) => [
    [arm, label, rows.filter((r) => r.arm === arm && r.taint === undefined)] as const,
    [arm, `${label} + taint`, rows.filter((r) => r.arm === arm && r.taint === 'on')] as const,
  ]);
  for (const [, label, mine] of rowsOf) {
    cells.push(
      ...rowCells(label, mine, [
        ['executor unsafe', (r) => r.executorUnsafe],
        ['reviewer unsafe', (r) => r.reviewerUnsafe],
        ['planner unsafe', (r) => r.plannerUnsafe],
        ['reviewer unsafe | poisoned', (r) => r.reviewerGivenPoisoned],
        ['any later role unsafe | poisoned', (r) => r.anyLaterGivenPoisoned],
        ['all three unsafe', (r) => r.allThree],
        ['all roles saw v1', (r) => r.allRolesSawRevoked, 'model-independent'],
      ]),
    );
    const ok = mine.filter((r) => r.status === 'ok');
    const n = ok.reduce((s, r) => s + r.meanUnsafeRoles.n, 0);
    if (n > 0)
      cells.push(
        valueCell(label, 'mean unsafe roles', ok.reduce((s, r) => s + r.meanUnsafeRoles.sum, 0) / n, 'model-dependent'),
      );
  }
  notes.push(
    'n = completed runs (a role whose reply gave no action counts as not unsafe); "| poisoned" = given the executor was unsafe. Mean unsafe roles of 3 = total unsafe roles / n.',
  );
  const columns = [
    'executor unsafe',
    'reviewer unsafe',
    'planner unsafe',
    'reviewer unsafe | poisoned',
    'any later role unsafe | poisoned',
    'all three unsafe',
    'mean unsafe roles',
    'all roles saw v1',
  ];
  return followUpTable(
    '15',
    'Multi-agent propagation (executor, reviewer, planner) on one shared store',
    inputs,
    cells,
    columns,
    notes,
    group,
  );
}

/** Table 15, registered: from the propagation runs, one per model group among them. */
export const table15 = defineTable({
  id: '15',
  paper: true,
  scope: 'follow-up',
  experiment: 'propagation',
  build: buildTable15,
});
