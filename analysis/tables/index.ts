// The table registry: every table `report` builds, one line each, in report order within its scope (grid, follow-up, own).
import { buildDefenceTables } from '../grid/defence-table.js';
import { buildFollowUpDefenceTables } from '../follow-ups/follow-up-defence-table.js';
import { buildPoemBenignTable, buildPoemTableI, buildPoemTableII, buildPoemTableIII } from './poem-tables.js';
import { buildPoemTableIV, buildPoemTableV } from './poem-tables-iv-v.js';
import { table6 } from './table-06.js';
import { table7 } from './table-07.js';
import { table8 } from './table-08-11.js';
import { table9 } from './table-09.js';
import { table12 } from './table-12.js';
import { table13 } from './table-13.js';
import { table14 } from './table-14.js';
import { table15 } from './table-15.js';
import { table16 } from './table-16.js';
import { defineTable, type TableDefinition } from './table-definition.js';

export { defineTable, type ScenarioLabel, type TableDefinition, type TableInputs } from './table-definition.js';

/**
 * Every registered table. Adding a table is one file exporting its `defineTable(...)` and one line here; its id then
 * joins `PaperTableId`, a `paper: true` table joins the `report --paper` diff (`PAPER_TABLE_IDS`), and `report` builds it.
 */
export const TABLES = [
  table6,
  table7,
  table8,
  table9,
  table12,
  table13,
  table14,
  table15,
  table16,
  defineTable({ id: 'defence', paper: false, scope: 'own', build: (inputs) => buildDefenceTables(inputs.grid) }),
  defineTable({
    id: 'defence',
    paper: false,
    scope: 'own',
    build: (inputs) => buildFollowUpDefenceTables(inputs.followUps),
  }),
  // The PoEM paper's tables (forged-reasoning runs; reference numbers in data/paper/poem/).
  defineTable({ id: 'poem-I', paper: true, scope: 'own', build: (inputs) => buildPoemTableI(inputs.forgedReasoning) }),
  defineTable({
    id: 'poem-II',
    paper: true,
    scope: 'own',
    build: (inputs) => buildPoemTableII(inputs.forgedReasoning),
  }),
  defineTable({
    id: 'poem-III',
    paper: true,
    scope: 'own',
    build: (inputs) => buildPoemTableIII(inputs.forgedReasoning),
  }),
  defineTable({
    id: 'poem-benign',
    paper: true,
    scope: 'own',
    build: (inputs) => buildPoemBenignTable(inputs.forgedReasoning),
  }),
  // Tables IV and V: measured overhead and the LangChain agent (not diffed: data/paper/poem/ holds no reference yet).
  defineTable({
    id: 'poem-IV',
    paper: false,
    scope: 'own',
    build: (inputs) => buildPoemTableIV(inputs.forgedReasoning),
  }),
  defineTable({ id: 'poem-V', paper: false, scope: 'own', build: (inputs) => buildPoemTableV(inputs.forgedReasoning) }),
] as const satisfies readonly TableDefinition[];

/** A registered table id: the paper's numbering ("8/11" is the per-scenario table published twice), or ours ("defence"). */
export type PaperTableId = (typeof TABLES)[number]['id'];

/** The ids of the paper's tables among `tables`: what `report --paper` compares with data/paper/ (not Table 10, spec §15). */
export function paperTableIds(tables: readonly TableDefinition[] = TABLES): string[] {
  return [...new Set(tables.filter((definition) => definition.paper).map((definition) => definition.id))];
}
