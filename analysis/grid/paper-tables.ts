// Builds every registered table (analysis/tables/index.ts) from runs, in the paper's order, each model group apart.
import { modelGroupsOf, type ModelGroup } from './grid-index.js';
import type { LoadedRun } from '../load-run.js';
import type { PaperTable } from '../paper-table.js';
import { followUpGroups, followUpsByExperiment, type FollowUpInput } from '../follow-ups/paper-tables-follow-up.js';
import { TABLES, type ScenarioLabel, type TableDefinition, type TableInputs } from '../tables/index.js';
import type { FollowUpTableDefinition, GridTableDefinition } from '../tables/table-definition.js';

/** The note that says the simulator and the real models are in separate tables. */
const APART_NOTE: Readonly<Record<ModelGroup, string>> = {
  real: 'Real decision models only: the offline simulator\'s cells are in the tables marked "sim (simulated) models only" and never enter these totals.',
  sim: 'The offline simulator only: its cells never enter a total with a real model (those are in the tables above).',
};

/** Both groups when real models and the simulator are present; otherwise one table over all models. */
const apart = (groups: ModelGroup[]): (ModelGroup | undefined)[] => (groups.length > 1 ? groups : [undefined]);
const mark = (table: PaperTable, group: ModelGroup | undefined): PaperTable =>
  group ? { ...table, notes: [APART_NOTE[group], ...table.notes] } : table;

type Scope = TableDefinition['scope'];
type OfScope<S extends Scope> = Extract<TableDefinition, { scope: S }>;

/** Grid tables, model group by model group (a model-independent one once, with the first group). */
function gridTables(definitions: readonly GridTableDefinition[], inputs: TableInputs): PaperTable[] {
  if (inputs.grid.length === 0) return [];
  const groups = apart(modelGroupsOf(inputs.grid));
  return groups.flatMap((group) =>
    definitions.flatMap((definition) => {
      if (definition.perModelGroup) return [mark(definition.build(inputs, group), group)];
      return group === groups[0] ? [definition.build(inputs)] : [];
    }),
  );
}

/** Each follow-up table per model group of its experiment's runs (none without a run of it). */
function followUpTables(definitions: readonly FollowUpTableDefinition[], inputs: TableInputs): PaperTable[] {
  const byExperiment = followUpsByExperiment(inputs.followUps);
  return definitions.flatMap((definition) => {
    const followUps = byExperiment.get(definition.experiment) ?? [];
    if (followUps.length === 0) return [];
    return apart(followUpGroups(followUps)).map((group) => mark(definition.build(followUps, group), group));
  });
}

/** How each scope builds its registered tables, in report order (grid, follow-up, own). */
const SCOPES: { readonly [S in Scope]: (definitions: readonly OfScope<S>[], inputs: TableInputs) => PaperTable[] } = {
  grid: gridTables,
  'follow-up': followUpTables,
  own: (definitions, inputs) => definitions.flatMap((definition) => definition.build(inputs)),
};

/** The definitions of one scope, in registry order. */
const ofScope = <S extends Scope>(tables: readonly TableDefinition[], scope: S): OfScope<S>[] =>
  tables.filter((definition): definition is OfScope<S> => definition.scope === scope);

/**
 * Every table of `tables` the inputs can fill; a table with no cell is left out. Grid tables come first, model group by
 * model group (a model-independent one once, with the first group); then follow-up tables, each per model group of its
 * experiment's runs; then tables that split their inputs themselves (the defence tables). Registry order within each.
 *
 * @example buildTables({ grid, scenarios, followUps }).map((t) => t.id) // ['6', '7', '8/11', '9', '12', '13', 'defence']
 */
export function buildTables(inputs: TableInputs, tables: readonly TableDefinition[] = TABLES): PaperTable[] {
  const built = [
    ...SCOPES.grid(ofScope(tables, 'grid'), inputs),
    ...SCOPES['follow-up'](ofScope(tables, 'follow-up'), inputs),
    ...SCOPES.own(ofScope(tables, 'own'), inputs),
  ];
  return built.filter((t) => t.cells.length > 0);
}

/**
 * The paper's tables only (registered with `paper: true`), as `buildTables` builds them.
 *
 * @example buildPaperTables(runs.filter(isGrid), scenarioLabels, followUps).map((t) => t.id) // ['6', '7', '8/11', '9', '12', '13']
 */
export function buildPaperTables(
  gridRuns: readonly LoadedRun[],
  scenarios: readonly ScenarioLabel[],
  followUps: readonly FollowUpInput[] = [],
): PaperTable[] {
  return buildTables(
    { grid: gridRuns, scenarios, followUps },
    TABLES.filter((definition) => definition.paper),
  );
}
