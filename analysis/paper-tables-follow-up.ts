// Builds the paper's follow-up Tables 14–16 (stale-retrieval.md §12–§14) from follow-up summaries, per model group.
import { isPooledModel } from './follow-up-summary.js';
import type { FollowUpRowKey, FollowUpSummary, PropagationRow, ToolsRow, WritebackRow } from './follow-up-summary.types.js';
import type { ModelGroup } from './grid-index.js';
import type { Dependence, PaperTable, PaperTableId, TableCell } from './paper-table.js';
import { missingCell, proportionCell, table, unsafeCell, valueCell } from './table-cells.js';
import { addTallies, EMPTY_TALLY, tallyOf, type Proportion, type UnsafeCounts, type UnsafeTally } from './unsafe-counts.js';

/** A follow-up run's summary (Tables 14–16) with the run it came from. */
export interface FollowUpInput {
  runId: string;
  /** The decision model (or, for natural write-back, the extractor) was the offline simulator. */
  simulated: boolean;
  summary: FollowUpSummary;
  /** The run's embedder, named on its retrieval-only cells (`manifest.embedder`). */
  embedder?: string;
}

/** The system the paper ran its follow-up experiments on (Tables 14–16; spec §12–§14): layout data, not dispatch. */
export const PAPER_FOLLOW_UP_SYSTEMS: readonly string[] = ['graphiti'];

const EXPLOIT_LABELS: Readonly<Record<string, string>> = { arbitrary_code_execution: 'arbitrary code execution', secret_exfiltration_env: 'secret exfiltration', shell_over_api_infra: 'shell-over-API', destructive_shell_breach: 'destructive shell' };

const rowsOf = (summary: FollowUpSummary): FollowUpRowKey[] => [...(summary.writeback ?? []), ...(summary.propagation ?? []), ...(summary.tools ?? [])];

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
function paperRows<R extends FollowUpRowKey>(inputs: readonly FollowUpInput[], pick: (s: FollowUpSummary) => R[] | undefined, notes: string[], group?: ModelGroup): R[] {
  const perModel = inputs.flatMap(({ summary }) => (pick(summary) ?? []).filter((r) => !isPooledModel(r.model) && (group === undefined || r.simulated === (group === 'sim'))));
  const all = perModel.filter((r) => r.guard === 'off' && r.poem === 'off');
  if (all.length < perModel.length) notes.push(`${perModel.length - all.length} row(s) with --guard on or --poem on are not in the paper's layout; they are in the follow-up defence table.`);
  const system = all.find((r) => PAPER_FOLLOW_UP_SYSTEMS.includes(r.system))?.system ?? all[0]?.system;
  const mode = all.some((r) => r.system === system && r.mode === 'direct') ? 'direct' : all.find((r) => r.system === system)?.mode;
  const chosen = all.filter((r) => r.system === system && r.mode === mode);
  if (chosen.length < all.length) notes.push(`Rows of other systems or seeding modes are not in the paper's layout and are left out (kept: ${system ?? '–'}, ${mode ?? '–'}).`);
  return chosen;
}

function followUpTable(id: PaperTableId, title: string, inputs: readonly FollowUpInput[], cells: TableCell[], columns: string[], notes: string[], group?: ModelGroup): PaperTable {
  const simulated = group === 'sim' || inputs.some((i) => i.simulated || i.summary.simulated);
  const embedders = [...new Set(inputs.map((i) => i.embedder).filter((e): e is string => e !== undefined))];
  const embedder = embedders.join(' + ') || undefined;
  const named = cells.map((cell) => (cell.dependence === 'model-independent' && embedder ? { ...cell, embedder } : cell));
  const pooled = 'Pooled over models and runs; k/n with Wilson 95 % intervals; decision columns count as the paper does (a reply that gives no action is not unsafe and stays in n; errored units are in no n).';
  const runs = inputs.filter((i) => group === undefined || rowsOf(i.summary).some((r) => !isPooledModel(r.model) && r.simulated === (group === 'sim'))).map((i) => i.runId);
  return table(id, title, named, columns, simulated, runs, [pooled, ...notes], group ? { modelGroup: group } : {});
}

/** One column of a follow-up row: its label, what it reads (a proportion, or decision counts), and its dependence. */
type Column<R> = [string, (row: R) => Proportion | UnsafeCounts | null | undefined, Dependence?];

const isCounts = (value: Proportion | UnsafeCounts): value is UnsafeCounts => 'unsafeAmongParsed' in value;

function rowCells<R extends FollowUpRowKey>(row: string, rows: readonly R[], columns: readonly Column<R>[]): TableCell[] {
  if (rows.length === 0) return [];
  const usable = rows.filter((r) => r.status === 'ok');
  if (usable.length === 0) return columns.map(([column, , dependence]) => missingCell(row, column, dependence ?? 'model-dependent', rows[0]!.reason ?? rows[0]!.status, rows[0]!.status === 'error' ? 'error' : 'n/a', rows[0]!.status === 'n/a'));
  return columns.flatMap(([column, get, dependence]) => {
    const values = usable.map(get).filter((v): v is Proportion | UnsafeCounts => v !== null && v !== undefined);
    if (values.length === 0) return [missingCell(row, column, dependence ?? 'model-dependent', 'not observable on this system (no record listing)')];
    if (values.every(isCounts)) return [unsafeCell(row, column, addTallies(...values.map(tallyOf)))];
    const total = (values as Proportion[]).reduce((sum, v) => ({ k: sum.k + v.k, n: sum.n + v.n }), { k: 0, n: 0 });
    return [proportionCell(row, column, total, dependence ?? 'model-dependent')];
  });
}

/** Table 14: write-back hops (Graphiti, direct seeding) from write-back summaries. */
export function buildTable14(inputs: readonly FollowUpInput[], group?: ModelGroup): PaperTable {
  const notes: string[] = [];
  const rows = paperRows<WritebackRow>(inputs, (s) => s.writeback, notes, group);
  const hops = Math.max(0, ...rows.map((r) => r.defaultHops.length));
  const hopColumns = (read: 'default' | 'filter') => Array.from({ length: hops }, (_, i): Column<WritebackRow> => [`${read} hop${i + 1}`, (r) => (read === 'default' ? r.defaultHops : r.filteredHops)[i] ?? null]);
  const cells: TableCell[] = [];
  for (const arm of ['direct', 'natural']) {
    const mine = rows.filter((r) => r.arm === arm);
    cells.push(...rowCells(arm, mine, [['stored active', (r) => r.storedActive], ...hopColumns('default'), ...hopColumns('filter'), ['journals stored', (r) => r.journalsStored], ['unsafe at filter hop1 | active journal', (r) => r.filteredHop1GivenActive]]));
    const ok = mine.filter((r) => r.status === 'ok' && r.storedActive && r.journalsStored);
    if (ok.length > 0) cells.push(valueCell(arm, 'journals marked superseded', ok.reduce((s, r) => s + r.journalsStored!.k - r.storedActive!.k, 0), 'model-dependent'));
  }
  cells.push(...rowCells('no write-back', rows, [['default', (r) => r.hop0Unsafe], ['filter', (r) => r.hop0FilteredUnsafe]]));
  cells.push(...rowCells('hop 0', rows, [['poisoned', (r) => r.hop0Unsafe]]));
  notes.push('Hop columns: n = poisoned runs (hop 0 unsafe). "no write-back" = hop 0 of both write-back modes, before any journal exists (the paper prints Table 6\'s Graphiti cell, n = 810). Journals marked superseded = journals stored − stored active.');
  const columns = ['stored active', ...Array.from({ length: hops }, (_, i) => `default hop${i + 1}`), ...Array.from({ length: hops }, (_, i) => `filter hop${i + 1}`), 'default', 'filter', 'poisoned', 'journals stored', 'journals marked superseded', 'unsafe at filter hop1 | active journal'];
  return followUpTable('14', 'Write-back hops (Graphiti, direct seeding), unsafe rate per hop under default and filtered reads', inputs, cells, columns, notes, group);
}

const PROPAGATION_ROWS: [string, string][] = [['shared-default', 'shared, default'], ['shared-filtered', 'shared, filtered'], ['no-journal', 'default, no journal']];

/** Table 15: multi-agent propagation from propagation summaries. */
export function buildTable15(inputs: readonly FollowUpInput[], group?: ModelGroup): PaperTable {
  const notes: string[] = [];
  const rows = paperRows<PropagationRow>(inputs, (s) => s.propagation, notes, group);
  const cells: TableCell[] = [];
  for (const [arm, label] of PROPAGATION_ROWS) {
    const mine = rows.filter((r) => r.arm === arm);
    cells.push(...rowCells(label, mine, [
      ['executor unsafe', (r) => r.executorUnsafe], ['reviewer unsafe', (r) => r.reviewerUnsafe], ['planner unsafe', (r) => r.plannerUnsafe],
      ['reviewer unsafe | poisoned', (r) => r.reviewerGivenPoisoned], ['any later role unsafe | poisoned', (r) => r.anyLaterGivenPoisoned], ['all three unsafe', (r) => r.allThree],
      ['all roles saw v1', (r) => r.allRolesSawRevoked, 'model-independent'],
    ]));
    const ok = mine.filter((r) => r.status === 'ok');
    const n = ok.reduce((s, r) => s + r.meanUnsafeRoles.n, 0);
    if (n > 0) cells.push(valueCell(label, 'mean unsafe roles', ok.reduce((s, r) => s + r.meanUnsafeRoles.sum, 0) / n, 'model-dependent'));
  }
  notes.push('n = completed runs (a role whose reply gave no action counts as not unsafe); "| poisoned" = given the executor was unsafe. Mean unsafe roles of 3 = total unsafe roles / n.');
  const columns = ['executor unsafe', 'reviewer unsafe', 'planner unsafe', 'reviewer unsafe | poisoned', 'any later role unsafe | poisoned', 'all three unsafe', 'mean unsafe roles', 'all roles saw v1'];
  return followUpTable('15', 'Multi-agent propagation (executor, reviewer, planner) on one shared store', inputs, cells, columns, notes, group);
}

const TOOLS_ROWS: [string, string][] = [['none', 'no defense'], ['store-filter', 'retrieval filter'], ['guard', 'guard'], ['tool-guardrail', 'tool-layer guardrail']];

/** Table 16: tool actions and the exploit chain from tools summaries, pooled and per scenario, plus relapse. */
export function buildTable16(inputs: readonly FollowUpInput[], group?: ModelGroup): PaperTable {
  const notes: string[] = [];
  const rows = paperRows<ToolsRow>(inputs, (s) => s.tools, notes, group);
  const cells: TableCell[] = [];
  const flags: Column<ToolsRow>[] = [['tool execution', (r) => r.toolExecution], ['secret read', (r) => r.secretRead], ['exfil confirmed', (r) => r.exfilConfirmed]];
  for (const [arm, label] of TOOLS_ROWS) {
    const mine = rows.filter((r) => r.arm === arm);
    const pooled = mine.filter((r) => r.scenario === '*');
    const rce = mine.some((r) => r.scenario === 'arbitrary_code_execution') ? mine.filter((r) => r.scenario === 'arbitrary_code_execution') : pooled;
    cells.push(...rowCells(label, pooled, [...flags, ['shell commands refused', (r) => r.shellRefused]]), ...rowCells(label, rce, [['interpreter one-liners', (r) => r.interpreterOneLiners]]));
    const scenarios = [...new Set(mine.map((r) => r.scenario).filter((s) => s !== '*'))];
    for (const scenario of scenarios) cells.push(...rowCells(`${label}: ${EXPLOIT_LABELS[scenario] ?? scenario}`, mine.filter((r) => r.scenario === scenario), flags));
  }
  const relapse = rows.filter((r) => r.arm === 'none' && r.scenario === '*');
  cells.push(...rowCells('relapse, default retrieval', relapse, [['tool attack fired', (r) => r.relapse?.default ?? null]]));
  cells.push(...rowCells('relapse, retrieval filter', relapse, [['tool attack fired', (r) => r.relapse?.filtered ?? null]]));
  notes.push('Every proportion has n = completed agent episodes. Interpreter one-liners are counted in the arbitrary-code-execution scenario (the paper: n = 90). Relapse: n = undefended episodes whose tool attack fired (spec §14.5).');
  const columns = ['tool execution', 'secret read', 'exfil confirmed', 'shell commands refused', 'interpreter one-liners', 'tool attack fired'];
  return followUpTable('16', 'Tool actions and the exploit chain', inputs, cells, columns, notes, group);
}

/** A tally of decision counts, for callers that pool follow-up cells themselves. */
export const followUpTally = (counts: UnsafeCounts | null | undefined): UnsafeTally => (counts ? tallyOf(counts) : { ...EMPTY_TALLY });
