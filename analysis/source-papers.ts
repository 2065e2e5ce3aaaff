// The two papers a report regenerates tables of, and which tables are whose: one place for every stamp a report prints.
import type { PaperTable } from './paper-table.js';

/** *Revoked but Still Authoritative*: Tables 6–16 (grid and follow-up runs), data/paper/. */
export const STALE_RETRIEVAL_PAPER = 'arXiv 2609.08258v1';

/** *Proof-of-Execution Memory*: Tables I, II, III and the benign table (forged-reasoning runs), data/paper/poem/. */
export const POEM_PAPER = 'arXiv 2608.16032v1';

/** The PoEM paper's tables `report --paper` diffs against data/paper/poem/, by registered id (analysis/tables/index.ts). */
export const POEM_TABLE_IDS: readonly string[] = ['poem-I', 'poem-II', 'poem-III', 'poem-benign'];

/** Every PoEM table a report builds: the diffed ones, Table IV's measured columns and Table V (no reference yet). */
const POEM_REPORT_TABLE_IDS: readonly string[] = [...POEM_TABLE_IDS, 'poem-IV', 'poem-V'];

/** Whether a table (or a diff cell's table id) is one of the PoEM paper's. */
export const isPoemTable = (table: Pick<PaperTable, 'id'> | string) =>
  POEM_REPORT_TABLE_IDS.includes(typeof table === 'string' ? table : table.id);
