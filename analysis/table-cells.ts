// Cell and table constructors shared by the table builders (paper tables, follow-up tables, the defence table).
import type { Dependence, PaperTable, TableCell } from './paper-table.js';
import { proportion, unsafeCounts, type UnsafeTally } from './unsafe-counts.js';

const SIM_NOTE =
  'sim: built from simulated runs (offline simulator); not a measurement of any model and not a reproduction of the paper.';

/** A proportion cell (k/n, rate, Wilson 95 %). */
export function proportionCell(
  row: string,
  column: string,
  p: { k: number; n: number },
  dependence: Dependence,
  extra: Partial<TableCell> = {},
): TableCell {
  const { k, n, rate, low, high } = proportion(p.k, p.n);
  return { row, column, k, n, rate, low, high, dependence, status: 'ok', ...extra };
}

/**
 * An unsafe-rate cell from a tally, through the one counting function (analysis/unsafe-counts.ts): the paper's
 * k/n as the cell's headline, with its parse failures, errors and among-parsed rate attached.
 */
export function unsafeCell(row: string, column: string, tally: UnsafeTally, extra: Partial<TableCell> = {}): TableCell {
  const counts = unsafeCounts(tally);
  return {
    ...proportionCell(row, column, counts.unsafe, 'model-dependent'),
    parseFailures: counts.parseFailures,
    errors: counts.errors,
    amongParsed: counts.unsafeAmongParsed,
    ...extra,
  };
}

export const valueCell = (
  row: string,
  column: string,
  value: number,
  dependence: Dependence,
  isP = false,
): TableCell => ({ row, column, value, ...(isP ? { isP } : {}), dependence, status: 'ok' });

export const missingCell = (
  row: string,
  column: string,
  dependence: Dependence,
  reason: string,
  status: 'n/a' | 'error' = 'n/a',
  unsupported = false,
): TableCell => ({ row, column, dependence, status, reason, ...(unsupported ? { unsupported } : {}) });

/** Extra table-level facts: which model group the cells pool, and caveats every format must show. */
export interface TableExtras {
  modelGroup?: 'real' | 'sim';
  caveats?: string[];
}

/** A table: rows in first-seen order, only the columns some cell uses, `sim` in the title and notes when simulated. */
export function table(
  id: string,
  title: string,
  cells: TableCell[],
  columns: string[],
  simulated: boolean,
  runs: string[],
  notes: string[],
  extras: TableExtras = {},
): PaperTable {
  const rows = [...new Set(cells.map((cell) => cell.row))];
  const used = columns.filter((column) => cells.some((cell) => cell.column === column));
  const groupTitle = extras.modelGroup === 'sim' ? ' — sim (simulated) models only, apart from the real models' : '';
  const simTitle = simulated && extras.modelGroup !== 'sim' ? ' — sim (simulated)' : '';
  return {
    id,
    title: `${title}${groupTitle}${simTitle}`,
    rows,
    columns: used,
    cells,
    simulated,
    runs,
    notes: simulated ? [SIM_NOTE, ...notes] : notes,
    ...(extras.modelGroup ? { modelGroup: extras.modelGroup } : {}),
    ...(extras.caveats && extras.caveats.length > 0 ? { caveats: extras.caveats } : {}),
  };
}
