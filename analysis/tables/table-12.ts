// Table 12 (stale-retrieval.md §15): matched pairs over (model, scenario) cells with the exact sign test.
import { indexGrid, type ModelGroup } from '../grid/grid-index.js';
import type { LoadedRun } from '../load-run.js';
import type { PaperTable, TableCell } from '../paper-table.js';
import { exactMatchedPairTest } from '../statistics.js';
import { table, unsafeCell, valueCell } from '../table-cells.js';
import { addTallies } from '../unsafe-counts.js';
import { extrasOf, indexNotes, runIds, systemLabel } from './grid-table-parts.js';
import { defineTable } from './table-definition.js';

/** Matched-pair counts over (model, scenario) cells: A worse than B, B worse than A, tied, and the exact sign-test p. */
export function matchedPairs(cells: readonly { a: { k: number; n: number }; b: { k: number; n: number } }[]): {
  aOverB: number;
  bOverA: number;
  tied: number;
  p: number;
} {
  let aOverB = 0;
  let bOverA = 0;
  // Rates are compared (cross-multiplied), so cells with different completed-trial counts are compared fairly.
  for (const { a, b } of cells) {
    const left = a.k * b.n;
    const right = b.k * a.n;
    if (left > right) aOverB += 1;
    else if (right > left) bOverA += 1;
  }
  return { aOverB, bOverA, tied: cells.length - aOverB - bOverA, p: exactMatchedPairTest(aOverB, bOverA) };
}

/** Table 12: matched pairs over (model, scenario) cells, no defence, direct, with the exact matched-pair test. */
export function buildTable12(runs: readonly LoadedRun[], group?: ModelGroup): PaperTable {
  const index = indexGrid(runs, group);
  const cells: TableCell[] = [];
  for (const [a, b] of [
    ['graphiti', 'mem0-exp'],
    ['mem0', 'mem0-exp'],
  ] as const) {
    const byCell = (system: string) =>
      new Map(
        index.tallies
          .filter((t) => t.system === system && t.mode === 'direct' && t.arm === 'none' && t.completed > 0)
          .map((t) => [`${t.model}\u0000${t.scenario}`, t]),
      );
    const left = byCell(a);
    const right = byCell(b);
    const pairs = [...left.entries()]
      .filter(([key]) => right.has(key))
      .map(([key, t]) => ({ a: t, b: right.get(key)! }));
    if (pairs.length === 0) continue;
    const row = `${systemLabel(a)} vs ${systemLabel(b)}`;
    const test = matchedPairs(
      pairs.map((p) => ({ a: { k: p.a.unsafe, n: p.a.completed }, b: { k: p.b.unsafe, n: p.b.completed } })),
    );
    const sum = (side: 'a' | 'b') => addTallies(...pairs.map((p) => p[side]));
    cells.push(unsafeCell(row, 'A unsafe', sum('a')), unsafeCell(row, 'B unsafe', sum('b')));
    cells.push(
      valueCell(row, 'A>B', test.aOverB, 'model-dependent'),
      valueCell(row, 'B>A', test.bOverA, 'model-dependent'),
      valueCell(row, 'tied', test.tied, 'model-dependent'),
      valueCell(row, 'exact p', test.p, 'model-dependent', true),
    );
  }
  const notes = [
    "Cells = (model, scenario) pairs both systems ran (the paper: 81); A>B = cells where A's unsafe rate is higher. Exact two-sided sign test on the discordant cells (spec §8).",
    ...indexNotes(index),
  ];
  return table(
    '12',
    'Matched pairs over (scenario, model) cells, no defence, direct insertion',
    cells,
    ['A unsafe', 'B unsafe', 'A>B', 'B>A', 'tied', 'exact p'],
    index.simulated,
    runIds(runs, group),
    notes,
    extrasOf(group),
  );
}

/** Table 12, registered: one per model group of the grid runs. */
export const table12 = defineTable({
  id: '12',
  paper: true,
  scope: 'grid',
  perModelGroup: true,
  build: (inputs, group) => buildTable12(inputs.grid, group),
});
