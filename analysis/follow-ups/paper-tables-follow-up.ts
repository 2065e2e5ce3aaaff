// What the paper's follow-up Tables 14–16 (stale-retrieval.md §12–§14, analysis/tables/table-1{4,5,6}.ts) share: inputs,
// the rows in the paper's layout, the table frame and the cells of one row.
import { isPooledModel } from './follow-up-summary.js';
import type { FollowUpRowKey, FollowUpSummary } from './follow-up-summary.types.js';
import type { ModelGroup } from '../grid/grid-index.js';
import type { Dependence, PaperTable, TableCell } from '../paper-table.js';
import { missingCell, proportionCell, table, unsafeCell } from '../table-cells.js';
import { addTallies, tallyOf, type Proportion, type UnsafeCounts } from '../unsafe-counts.js';

/** A follow-up run's summary (Tables 14–16) with the run it came from. */
export interface FollowUpInput {
  runId: string;
  /** The decision model (or, for natural write-back, the extractor) was the offline simulator. */
  simulated: boolean;
  summary: FollowUpSummary;
  /** The run's embedder, named on its retrieval-only cells (`manifest.embedder`). */
  embedder?: string;
}

/** The inputs by follow-up experiment (their run kind), each in the order given. */
export function followUpsByExperiment(
  inputs: readonly FollowUpInput[],
): ReadonlyMap<FollowUpSummary['experiment'], FollowUpInput[]> {
  const groups = new Map<FollowUpSummary['experiment'], FollowUpInput[]>();
  for (const input of inputs)
    groups.set(input.summary.experiment, [...(groups.get(input.summary.experiment) ?? []), input]);
  return groups;
}

/** The system the paper ran its follow-up experiments on (Tables 14–16; spec §12–§14): layout data, not dispatch. */
const PAPER_FOLLOW_UP_SYSTEMS: readonly string[] = ['graphiti'];

const rowsOf = (summary: FollowUpSummary): FollowUpRowKey[] => [
  ...(summary.writeback ?? []),
  ...(summary.propagation ?? []),
  ...(summary.tools ?? []),
];

/** The model groups the inputs' per-model rows fall in, real first. */
export function followUpGroups(inputs: readonly FollowUpInput[]): ModelGroup[] {
  const rows = inputs.flatMap(({ summary }) => rowsOf(summary)).filter((r) => !isPooledModel(r.model));
  return (['real', 'sim'] as const).filter((group) => rows.some((r) => r.simulated === (group === 'sim')));
}

/**
 * The follow-up rows in the paper's layout: every per-model row of the group (the simulator never pooled with a real
 * model), guard and PoEM axes off (those rows are in the follow-up defence table), Graphiti and direct seeding when
 * present (the paper's setup).
 */
export function paperRows<R extends FollowUpRowKey>(
  inputs: readonly FollowUpInput[],
  pick: (s: FollowUpSummary) => R[] | undefined,
  notes: string[],
  group?: ModelGroup,
): R[] {
  const perModel = inputs.flatMap(({ summary }) =>
    (pick(summary) ?? []).filter(
      (r) => !isPooledModel(r.model) && (group === undefined || r.simulated === (group === 'sim')),
    ),
  );
  const all = perModel.filter((r) => r.guard === 'off' && r.poem === 'off');
  if (all.length < perModel.length)
    notes.push(
      `${perModel.length - all.length} row(s) with --guard on or --poem on are not in the paper's layout; they are in the follow-up defence table.`,
    );
  const system = all.find((r) => PAPER_FOLLOW_UP_SYSTEMS.includes(r.system))?.system ?? all[0]?.system;
  const mode = all.some((r) => r.system === system && r.mode === 'direct')
    ? 'direct'
    : all.find((r) => r.system === system)?.mode;
  const chosen = all.filter((r) => r.system === system && r.mode === mode);
  if (chosen.length < all.length)
    notes.push(
      `Rows of other systems or seeding modes are not in the paper's layout and are left out (kept: ${system ?? '–'}, ${mode ?? '–'}).`,
    );
  return chosen;
}

/** A follow-up table: the pooled-counting note first, the runs of the group, the embedder on retrieval-only cells. */
export function followUpTable(
  id: string,
  title: string,
  inputs: readonly FollowUpInput[],
  cells: TableCell[],
  columns: string[],
  notes: string[],
  group?: ModelGroup,
): PaperTable {
  const simulated = group === 'sim' || inputs.some((i) => i.simulated || i.summary.simulated);
  const embedders = [...new Set(inputs.map((i) => i.embedder).filter((e): e is string => e !== undefined))];
  const embedder = embedders.join(' + ') || undefined;
  const named = cells.map((cell) =>
    cell.dependence === 'model-independent' && embedder ? { ...cell, embedder } : cell,
  );
  const pooled =
    'Pooled over models and runs; k/n with Wilson 95 % intervals; decision columns count as the paper does (a reply that gives no action is not unsafe and stays in n; errored units are in no n).';
  const runs = inputs
    .filter(
      (i) =>
        group === undefined ||
        rowsOf(i.summary).some((r) => !isPooledModel(r.model) && r.simulated === (group === 'sim')),
    )
    .map((i) => i.runId);
  return table(id, title, named, columns, simulated, runs, [pooled, ...notes], group ? { modelGroup: group } : {});
}

/** One column of a follow-up row: its label, what it reads (a proportion, or decision counts), and its dependence. */
export type Column<R> = [string, (row: R) => Proportion | UnsafeCounts | null | undefined, Dependence?];

const isCounts = (value: Proportion | UnsafeCounts): value is UnsafeCounts => 'unsafeAmongParsed' in value;

/** The cells of one row label over the given rows: pooled proportions or decision counts, n/a when none is usable. */
export function rowCells<R extends FollowUpRowKey>(
  row: string,
  rows: readonly R[],
  columns: readonly Column<R>[],
): TableCell[] {
  if (rows.length === 0) return [];
  const usable = rows.filter((r) => r.status === 'ok');
  if (usable.length === 0)
    return columns.map(([column, , dependence]) =>
      missingCell(
        row,
        column,
        dependence ?? 'model-dependent',
        rows[0]!.reason ?? rows[0]!.status,
        rows[0]!.status === 'error' ? 'error' : 'n/a',
        rows[0]!.status === 'n/a',
      ),
    );
  return columns.flatMap(([column, get, dependence]) => {
    const values = usable.map(get).filter((v): v is Proportion | UnsafeCounts => v !== null && v !== undefined);
    if (values.length === 0)
      return [
        missingCell(row, column, dependence ?? 'model-dependent', 'not observable on this system (no record listing)'),
      ];
    if (values.every(isCounts)) return [unsafeCell(row, column, addTallies(...values.map(tallyOf)))];
    const total = (values as Proportion[]).reduce((sum, v) => ({ k: sum.k + v.k, n: sum.n + v.n }), { k: 0, n: 0 });
    return [proportionCell(row, column, total, dependence ?? 'model-dependent')];
  });
}
