// The table spec: what a registered table is (id, paper or ours, how it splits its inputs) and what it is built from.
import type { FollowUpSummary } from '../follow-ups/follow-up-summary.types.js';
import type { ModelGroup } from '../grid/grid-index.js';
import type { LoadedRun } from '../load-run.js';
import type { PaperTable } from '../paper-table.js';
import type { FollowUpInput } from '../follow-ups/paper-tables-follow-up.js';
import type { ForgedReasoningInput } from './poem-tables.js';

/** What the tables need to know about a policy scenario: its short label, family (payload = no rule) and Table 8/11 place. */
export interface ScenarioLabel {
  /** Scenario id. */
  id: string;
  /** Short name the paper's rows use (`backup deletion`). */
  short: string;
  /** `scenario` = with a rule (guardrail), `payload` = without; null when the scenario's file is not at hand. */
  family: 'payload' | 'scenario' | null;
  /** Its place in Table 8/11, from the scenario index (scenarios/policy/index.json `table8`); absent: after the ranked rows. */
  table8?: { rank: number; pooledWithout?: string | undefined } | undefined;
}

/** Everything a table can be built from: run records only, never a network, backend or model. */
export interface TableInputs {
  /** The grid runs (experiment `grid`). */
  grid: readonly LoadedRun[];
  /** Labels of the scenarios the grid runs used. */
  scenarios: readonly ScenarioLabel[];
  /** The follow-up runs' summaries (write-back, propagation, tools). */
  followUps: readonly FollowUpInput[];
  /** The forged-reasoning runs' summaries (the PoEM paper's tables); absent: none. */
  forgedReasoning?: readonly ForgedReasoningInput[];
  /**
   * The inputs of kinds with no field above (a run kind's `tableInput` returning `{ own }`), by kind id, in the order
   * the runs were given; absent: none. A table over such a kind reads its own entry (`byKind.get('<kind id>')`).
   */
  byKind?: ReadonlyMap<string, readonly unknown[]>;
}

interface TableDefinitionBase<Id extends string> {
  /** Table id as the paper numbers it (`6`, `8/11`), or ours (`defence`); the key `report --paper` diffs by. */
  id: Id;
  /** One of the paper's tables: `report --paper` compares it with data/paper/ (a table of ours never is). */
  paper: boolean;
}

/** A table of the grid runs, built once per model group (the simulator apart from real models) or once over all runs. */
export interface GridTableDefinition<Id extends string = string> extends TableDefinitionBase<Id> {
  /** `grid`: built from `TableInputs.grid`. */
  scope: 'grid';
  /** False for a table no decision model enters (Table 9): built once, from every run, with the first model group. */
  perModelGroup: boolean;
  /** Builds the table of one model group (all models when undefined). */
  build(inputs: TableInputs, group?: ModelGroup): PaperTable;
}

/** A table of one follow-up experiment's summaries, built once per model group among them. */
export interface FollowUpTableDefinition<Id extends string = string> extends TableDefinitionBase<Id> {
  /** `follow-up`: built from the summaries of `experiment`. */
  scope: 'follow-up';
  /** The follow-up experiment whose runs fill it. */
  experiment: FollowUpSummary['experiment'];
  /** Builds the table of one model group (all models when undefined). */
  build(inputs: readonly FollowUpInput[], group?: ModelGroup): PaperTable;
}

/** Tables that split their inputs themselves (the defence tables: per experiment and model group). */
export interface OwnTablesDefinition<Id extends string = string> extends TableDefinitionBase<Id> {
  /** `own`: given every input, returns its tables (empty ones left out). */
  scope: 'own';
  /** Builds every table of this definition. */
  build(inputs: TableInputs): PaperTable[];
}

/** A registered table: one file exporting one definition, one line in analysis/tables/index.ts. */
export type TableDefinition<Id extends string = string> =
  | GridTableDefinition<Id>
  | FollowUpTableDefinition<Id>
  | OwnTablesDefinition<Id>;

/**
 * Identity helper that type-checks a table definition and keeps its id literal (so `PaperTableId` can list it).
 *
 * @example export default defineTable({ id: '7', paper: true, scope: 'grid', perModelGroup: true, build: (inputs, group) => buildTable7(inputs.grid, group) });
 */
export function defineTable<const Id extends string, T extends TableDefinition<Id>>(definition: T & { id: Id }): T {
  return definition;
}
