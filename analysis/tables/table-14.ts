// Table 14 (stale-retrieval.md §12): write-back hops, unsafe rate per hop under default and filtered reads.
import type { WritebackRow } from '../follow-ups/follow-up-summary.types.js';
import type { ModelGroup } from '../grid/grid-index.js';
import type { PaperTable, TableCell } from '../paper-table.js';
import {
  followUpTable,
  paperRows,
  rowCells,
  type Column,
  type FollowUpInput,
} from '../follow-ups/paper-tables-follow-up.js';
import { valueCell } from '../table-cells.js';
import { defineTable } from './table-definition.js';

/** Table 14: write-back hops (Graphiti, direct seeding) from write-back summaries. */
export function buildTable14(inputs: readonly FollowUpInput[], group?: ModelGroup): PaperTable {
  const notes: string[] = [];
  const rows = paperRows<WritebackRow>(inputs, (s) => s.writeback, notes, group);
  const hops = Math.max(0, ...rows.map((r) => r.defaultHops.length));
  const hopColumns = (read: 'default' | 'filter') =>
    Array.from(
      { length: hops },
      (_, i): Column<WritebackRow> => [
        `${read} hop${i + 1}`,
        (r) => (read === 'default' ? r.defaultHops : r.filteredHops)[i] ?? null,
      ],
    );
  const cells: TableCell[] = [];
  // `--taint on` rows sit under their mode as `<mode> + taint`: the same model, seeds and scenarios, journals with provenance.
  const plain = rows.filter((r) => r.taint === undefined);
  const variants = [
    { suffix: '', rows: plain },
    { suffix: ' + taint', rows: rows.filter((r) => r.taint === 'on') },
  ];
  for (const [arm, suffix, set] of ['direct', 'natural'].flatMap((a) =>
    variants.map((v) => [a, v.suffix, v.rows] as const),
  )) {
    const mine = set.filter((r) => r.arm === arm);
    const label = `${arm}${suffix}`;
    cells.push(
      ...rowCells(label, mine, [
        ['stored active', (r) => r.storedActive],
        ...hopColumns('default'),
        ...hopColumns('filter'),
        ['journals stored', (r) => r.journalsStored],
        ['unsafe at filter hop1 | active journal', (r) => r.filteredHop1GivenActive],
      ]),
    );
    const ok = mine.filter((r) => r.status === 'ok' && r.storedActive && r.journalsStored);
    if (ok.length > 0)
      cells.push(
        valueCell(
          label,
          'journals marked superseded',
          ok.reduce((s, r) => s + r.journalsStored!.k - r.storedActive!.k, 0),
          'model-dependent',
        ),
      );
  }
  // Hop 0 precedes every journal: taint rows repeat it, so it is counted once (from the rows without taint).
  const hop0Rows = plain.length > 0 ? plain : rows;
  cells.push(
    ...rowCells('no write-back', hop0Rows, [
      ['default', (r) => r.hop0Unsafe],
      ['filter', (r) => r.hop0FilteredUnsafe],
    ]),
  );
  cells.push(...rowCells('hop 0', hop0Rows, [['poisoned', (r) => r.hop0Unsafe]]));
  notes.push(
    'Hop columns: n = poisoned runs (hop 0 unsafe). "no write-back" = hop 0 of both write-back modes, before any journal exists (the paper prints Table 6\'s Graphiti cell, n = 810). Journals marked superseded = journals stored − stored active.',
  );
  const columns = [
    'stored active',
    ...Array.from({ length: hops }, (_, i) => `default hop${i + 1}`),
    ...Array.from({ length: hops }, (_, i) => `filter hop${i + 1}`),
    'default',
    'filter',
    'poisoned',
    'journals stored',
    'journals marked superseded',
    'unsafe at filter hop1 | active journal',
  ];
  return followUpTable(
    '14',
    'Write-back hops (Graphiti, direct seeding), unsafe rate per hop under default and filtered reads',
    inputs,
    cells,
    columns,
    notes,
    group,
  );
}

/** Table 14, registered: from the write-back runs, one per model group among them. */
export const table14 = defineTable({
  id: '14',
  paper: true,
  scope: 'follow-up',
  experiment: 'writeback',
  build: buildTable14,
});
