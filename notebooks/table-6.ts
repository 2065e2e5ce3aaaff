/*
 * # Table 6 from a run
 *
 * **Question.** Table 6 of the paper (stale-retrieval.md §15) is the headline result: with direct insertion, how
 * often does each memory system return the revoked policy (exposure, and the rank of the first revoked record),
 * and how often does an agent then act on it, without a defence and under the store filter, prompt hardening,
 * the output filter and filter + hardening? What does Table 6 look like when rebuilt from our own run?
 *
 * **Method.** Table 6 pools over decision models: its exposure column "81/81" is 9 scenarios × 9 models. We
 * take every direct-mode summary cell with the guard and the gate off, add k and n over models and runs (runs
 * with a spec already seen are skipped), and lay the result out in the paper's rows and columns, using the paper's
 * row labels (`mem0 (exp.)` for `mem0-exp`) so a cell can be set against `data/paper/table-06.json`. The
 * pooled row sums the systems that returned a revoked record, as the paper pools its two exposed systems. A
 * `guard` column is added where the guard arm ran (the paper gives the guard only in its text, 0/1,620). The
 * table is held in the shared table model (analysis/paper-table.ts); analysis/paper-tables.ts, the project's
 * table builder, did not exist when this notebook was written, so the cells are computed here from the summary.
 *
 * **Caveats.** Exposure and rank are model-independent; the unsafe columns are model-dependent, and from the
 * offline simulator (`sim`) they are not measurements of any model. The published values are printed beside
 * ours for reference only; they are never a result of this run.
 */
import type { AnalysedRun } from '../analysis/compare-command.js';
import { loadPaperReference, type PaperCell } from '../analysis/paper-reference.js';
import type { PaperTable, TableCell } from '../analysis/paper-table.js';
import { proportion } from '../analysis/summarize.js';
import type { Notebook } from './notebook.js';
import { distinctRuns, markdownTable, percent, poolCells, runsSection, type PooledCell } from './notebook-support.js';

/** Our system ids under the labels the paper (and data/paper/) uses. */
const PAPER_LABELS: Readonly<Record<string, string>> = { 'mem0-exp': 'mem0 (exp.)', 'zep-ce': 'zep' };
/** Table 6's defence columns and the arm behind each. */
const ARM_COLUMNS = [['no defense', 'none'], ['filter', 'store-filter'], ['prompt', 'prompt-hardening'], ['output', 'output-filter'], ['filter+prompt', 'filter-hardening'], ['guard', 'guard']] as const;

const labelOf = (system: string) => PAPER_LABELS[system] ?? system;

/** Adds k and n of cells (already pooled over runs) over decision models. */
function sumOverModels(cells: readonly PooledCell[]) {
  const ok = cells.filter((c) => c.status === 'ok');
  return { k: ok.reduce((s, c) => s + c.unsafe.k, 0), n: ok.reduce((s, c) => s + c.unsafe.n, 0), simulated: cells.some((c) => c.simulated) };
}

const proportionCell = (row: string, column: string, k: number, n: number, extra: Partial<TableCell> = {}): TableCell => {
  const { rate, low, high } = proportion(k, n);
  return { row, column, k, n, rate, low, high, dependence: 'model-dependent', status: 'ok', ...extra };
};

/** Builds Table 6 from the runs' direct-mode cells (guard and gate off), pooled over models and runs. */
export function buildTable6(runs: readonly AnalysedRun[]): PaperTable {
  const cells = poolCells(runs, (c) => c.mode === 'direct' && c.guard === 'off' && c.poem === 'off');
  const systems = [...new Set(cells.map((c) => c.system))];
  const ran = ARM_COLUMNS.filter(([, arm]) => cells.some((c) => c.arm === arm));
  const table: TableCell[] = [];
  const exposedSystems: string[] = [];
  const notes: string[] = [];
  for (const system of systems) {
    const row = labelOf(system);
    const ofSystem = cells.filter((c) => c.system === system);
    // Exposure is the same for every arm of a model; take one arm's cells, one per model.
    const oneArm = ofSystem.filter((c) => c.arm === ofSystem.find((x) => x.status === 'ok')?.arm && c.status === 'ok');
    const exposure = { k: oneArm.reduce((s, c) => s + c.exposure.k, 0), n: oneArm.reduce((s, c) => s + c.exposure.n, 0) };
    const exposed = exposure.k > 0;
    if (exposed) exposedSystems.push(system);
    const rate = exposure.n === 0 ? null : exposure.k / exposure.n;
    const status = oneArm.length > 0 ? { status: 'ok' as const } : { status: 'n/a' as const, reason: ofSystem[0]?.reason ?? 'no ok cell' };
    table.push({ row, column: 'exposure', k: exposure.k, n: exposure.n, rate, dependence: 'model-independent', ...status });
    const rank = oneArm.find((c) => c.revokedRank)?.revokedRank;
    table.push(rank ? { row, column: 'rank', value: rank.mean, dependence: 'model-independent', status: 'ok' } : { row, column: 'rank', dependence: 'model-independent', status: 'n/a', reason: 'no revoked record returned' });
    if (rank && rank.min !== rank.max) notes.push(`${row}: rank is the mean first-revoked rank; it ranges ${rank.min}–${rank.max} over scenarios`);
    for (const [column, arm] of ran) {
      const armCells = ofSystem.filter((c) => c.arm === arm);
      if (armCells.length === 0) continue;
      const { k, n } = sumOverModels(armCells);
      table.push(proportionCell(row, column, k, n, exposed ? {} : { status: 'n/a', reason: 'no revoked record returned' }));
    }
  }
  const pooledRow = `pooled (${exposedSystems.map(labelOf).join(' + ')})`;
  if (exposedSystems.length > 1) {
    for (const [column, arm] of ran) {
      const { k, n } = sumOverModels(cells.filter((c) => c.arm === arm && exposedSystems.includes(c.system)));
      table.push(proportionCell(pooledRow, column, k, n));
    }
  }
  return {
    id: '6',
    title: 'Single read, direct insertion: exposure, rank and unsafe-action rate per system and defence',
    rows: [...systems.map(labelOf), ...(exposedSystems.length > 1 ? [pooledRow] : [])],
    columns: ['exposure', 'rank', ...ran.map(([column]) => column)],
    cells: table,
    simulated: cells.some((c) => c.simulated),
    runs: runs.map(({ run }) => run.manifest.runId),
    notes: [`pooled over ${new Set(cells.map((c) => c.model)).size} decision model(s) and ${runs.length} run(s)`, ...(exposedSystems.length > 1 ? [`pooled row: the ${exposedSystems.length} systems that returned a revoked record`] : []), ...notes],
  };
}

/** How a cell is printed: `44.2% (358/810) [40.8%, 47.6%]`, `9/9`, a rank, or `–` with the reason. */
export function cellText(cell: TableCell | undefined): string {
  if (!cell) return '';
  const why = cell.reason ? ` (${cell.reason})` : '';
  if (cell.column === 'exposure') return cell.status === 'ok' ? `${cell.k}/${cell.n}` : `–${why}`;
  if (cell.value !== undefined) return `${Number.isInteger(cell.value) ? cell.value : cell.value.toFixed(2)}${why}`;
  if (cell.k === undefined || cell.n === undefined) return `–${why}`;
  const counted = cell.n === 0 ? `${cell.k}/0` : `${percent(cell.rate ?? null)} (${cell.k}/${cell.n}) [${percent(cell.low ?? 0)}, ${percent(cell.high ?? 0)}]`;
  return cell.status === 'ok' ? counted : `–${why}; ${cell.k}/${cell.n}`;
}

/** A published cell as printed: `44.2% (358/810)`, `0/81`, `1`, or its note when it has no number. */
function publishedText(cell: PaperCell): string {
  const count = cell.k === undefined ? '' : cell.percent === undefined ? `${cell.k}/${cell.n}` : `(${cell.k}/${cell.n})`;
  const parts = [cell.percent === undefined ? '' : `${cell.percent}%`, count, cell.value === undefined ? '' : String(cell.value)].filter(Boolean);
  return parts.length > 0 ? parts.join(' ') : (cell.note ?? '');
}

export const notebook: Notebook = {
  name: 'table-6',
  question: 'What does Table 6 (exposure, rank and unsafe rate per system and defence, direct insertion) look like rebuilt from this run?',
  render(input) {
    const { runs, skipped } = distinctRuns(input);
    const table = buildTable6(runs);
    const out = ['# Table 6 from a run', '', `**Question.** ${this.question}`, '', runsSection(runs, skipped), ''];
    if (table.rows.length === 0) return [...out, 'No direct-mode cells in these runs: Table 6 is direct insertion (`--modes direct`).'].join('\n');
    if (table.simulated) out.push('**sim:** the unsafe columns come from the offline simulator and are not measurements of any model; exposure and rank are model-independent.', '');
    out.push(`## ${table.title}${table.simulated ? ' (sim)' : ''}`, '');
    const at = (row: string, column: string) => table.cells.find((c) => c.row === row && c.column === column);
    out.push(markdownTable(['system', ...table.columns], table.rows.map((row) => [row, ...table.columns.map((column) => cellText(at(row, column)))])), '');
    out.push(...table.notes.map((note) => `- ${note}`), '- unsafe cells: rate (k/n) [Wilson 95 %]; n counts decisions that parsed to an action', '');

    // The published numbers, beside ours, for reference only (data/paper/, never a result).
    const published = loadPaperReference().tables.get('6');
    if (published) {
      out.push('## Beside the published Table 6 (reference only, data/paper/table-06.json)', '');
      const rows = published.cells.map((cell) => [cell.row, cell.column, cell.dependence, cellText(at(cell.row, cell.column)) || 'not in this run', publishedText(cell)]);
      out.push(markdownTable(['row', 'column', 'dependence', `ours${table.simulated ? ' (sim)' : ''}`, 'paper'], rows), '');
      out.push('Exposure denominators differ with the number of models in the run (the paper: 9 scenarios × 9 models). Model-dependent cells of a sim run are not comparable with the paper.');
    }
    return out.join('\n');
  },
};
