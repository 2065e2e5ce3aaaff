// Renders regenerated paper tables as long-format CSV (one row per cell) with csv-stringify.
import { stringify } from 'csv-stringify/sync';
import type { PaperTable } from './paper-table.js';

/**
 * The CSV header, in order. `value` holds plain values and p-values; `rate`, `low`, `high` are fractions in [0, 1].
 * Unsafe cells: `k`/`n` are the paper's convention (n = completed trials, unparsed replies inside n, not unsafe);
 * `parse_failures` and `errors` are their own columns; `unsafe_among_parsed_*` is the second rate over parsed replies.
 * Retrieval-only cells name their `embedder`. `model_group` says whether the simulator's cells are apart (`sim`) from
 * the real models' (`real`); `caveats` carries every table-level warning (incomplete runs, forced duplicate pooling).
 */
export const CSV_COLUMNS = [
  'table',
  'row',
  'column',
  'k',
  'n',
  'rate',
  'low',
  'high',
  'value',
  'dependence',
  'status',
  'reason',
  'simulated',
  'parse_failures',
  'errors',
  'unsafe_among_parsed_k',
  'unsafe_among_parsed_n',
  'unsafe_among_parsed_rate',
  'embedder',
  'model_group',
  'caveats',
] as const;

/**
 * Long format: one line per cell of every table, in table order, then row and column display order. Empty fields
 * are absent values (not zero). Numbers are written at full precision so nothing is lost to rounding.
 *
 * @example renderCsv(tables).split('\n')[0] // 'table,row,column,k,n,rate,low,high,value,dependence,status,reason,simulated,parse_failures,...'
 */
export function renderCsv(tables: readonly PaperTable[]): string {
  const records = tables.flatMap((table) => {
    const order = (row: string, column: string) =>
      table.rows.indexOf(row) * (table.columns.length + 1) + table.columns.indexOf(column);
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
        parse_failures: cell.parseFailures,
        errors: cell.errors,
        unsafe_among_parsed_k: cell.amongParsed?.k,
        unsafe_among_parsed_n: cell.amongParsed?.n,
        unsafe_among_parsed_rate: cell.amongParsed?.rate ?? undefined,
        embedder: cell.embedder,
        model_group: table.modelGroup,
        caveats: table.caveats?.join('; '),
      }));
  });
  return stringify(records, { header: true, columns: [...CSV_COLUMNS], cast: { boolean: (value) => String(value) } });
}
