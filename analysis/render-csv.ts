// Renders regenerated paper tables as long-format CSV (one row per cell) with csv-stringify.
import { stringify } from 'csv-stringify/sync';
import type { PaperTable } from './paper-table.js';

/** The CSV header, in order. `value` holds plain values and p-values; `rate`, `low`, `high` are fractions in [0, 1]. */
export const CSV_COLUMNS = ['table', 'row', 'column', 'k', 'n', 'rate', 'low', 'high', 'value', 'dependence', 'status', 'reason', 'simulated'] as const;

/**
 * Long format: one line per cell of every table, in table order, then row and column display order. Empty fields
 * are absent values (not zero). Numbers are written at full precision so nothing is lost to rounding.
 *
 * @example renderCsv(tables).split('\n')[0] // 'table,row,column,k,n,rate,low,high,value,dependence,status,reason,simulated'
 */
export function renderCsv(tables: readonly PaperTable[]): string {
  const records = tables.flatMap((table) => {
    const order = (row: string, column: string) => table.rows.indexOf(row) * (table.columns.length + 1) + table.columns.indexOf(column);
    return [...table.cells]
      .sort((a, b) => order(a.row, a.column) - order(b.row, b.column))
      .map((cell) => ({
        table: table.id,
        row: cell.row,
        column: cell.column,
        k: cell.k,
        n: cell.n,
        rate: cell.rate ?? undefined,
        low: cell.low,
        high: cell.high,
        value: cell.value,
        dependence: cell.dependence,
        status: cell.status,
        reason: cell.reason,
        simulated: table.simulated,
      }));
  });
  return stringify(records, { header: true, columns: [...CSV_COLUMNS], cast: { boolean: (value) => String(value) } });
}
