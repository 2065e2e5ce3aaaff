// Builds the paper's Tables 6–13 (stale-retrieval.md §11, §15) from grid runs, in the paper's layout and labels.
import { buildTable14, buildTable15, buildTable16, followUpGroups, type FollowUpInput } from './paper-tables-follow-up.js';
import type { FollowUpSummary } from './follow-up-summary.types.js';
import { indexGrid, modelGroupsOf, pool, probesOf, type GridIndex, type ModelGroup } from './grid-index.js';
import type { LoadedRun } from './load-run.js';
import type { PaperTable, TableCell } from './paper-table.js';
import { exactMatchedPairTest } from './statistics.js';
import { guardMetricsOf } from './summarize.js';
import { missingCell, proportionCell, table, unsafeCell, valueCell } from './table-cells.js';
import { addTallies, COUNTING_NOTE } from './unsafe-counts.js';

export { proportionCell } from './table-cells.js';
export { buildTable14, buildTable15, buildTable16, PAPER_FOLLOW_UP_SYSTEMS, type FollowUpInput } from './paper-tables-follow-up.js';

/** What the tables need to know about a policy scenario: its short label and family (payload = no rule). */
export interface ScenarioLabel {
  id: string;
  short: string;
  family: 'payload' | 'scenario' | null;
}

/** Our system ids → the paper's row labels. */
export const SYSTEM_LABELS: Readonly<Record<string, string>> = { graphiti: 'graphiti', 'mem0-exp': 'mem0 (exp.)', mem0: 'mem0', langmem: 'langmem', cognee: 'cognee', 'zep-ce': 'zep' };
/** The two systems that return the revoked record in direct mode; the paper pools Tables 6 (pooled row), 7 and 8/11 over them. */
export const EXPOSED_SYSTEMS: readonly string[] = ['graphiti', 'mem0-exp'];
/** Our reading of the paper's unidentified "three clean-context baselines" (spec §16 item 6). */
export const CLEAN_SYSTEMS: readonly string[] = ['cognee', 'langmem', 'mem0'];
/** The paper's nine decision-model labels (Table 7 rows); a run's model id or label that matches one takes its label. */
export const PAPER_MODEL_LABELS = ['GPT-5.5', 'Grok-4', 'DeepSeek-V4-Flash', 'GPT-5-nano', 'Gemini-2.5-Flash', 'Grok-4-Fast (non-reasoning)', 'GLM-5.2', 'Gemma-3-27B-IT', 'Kimi-K2.6'] as const;

const TABLE6_ARMS: [string, string][] = [['none', 'no defense'], ['store-filter', 'filter'], ['prompt-hardening', 'prompt'], ['output-filter', 'output'], ['filter-hardening', 'filter+prompt'], ['guard', 'guard']];
const TABLE7_ARMS: [string, string][] = [['none', 'no defense'], ['store-filter', 'filter'], ['prompt-hardening', 'prompt hardening'], ['output-filter', 'output filter']];
const TABLE6_SYSTEMS = ['graphiti', 'mem0-exp', 'cognee', 'langmem', 'mem0', 'zep-ce'];
const TABLE9_SYSTEMS = ['cognee', 'graphiti', 'langmem', 'mem0', 'mem0-exp', 'zep-ce'];
// Table 8/11 prints the scenarios of each group by decreasing published rate; we keep that row order fixed.
const TABLE8_ORDER = ['destructive_op_delete_backups', 'guardrail_bypass_disclose_card', 'over_limit_financial_transfer', 'mfa_waiver_access', 'compliance_log_deletion', 'data_exfiltration_pii_export', 'guardrail_bypass_rollback', 'privilege_escalation_deploy_approval', 'instruction_injection_in_memory'];

export const systemLabel = (id: string) => SYSTEM_LABELS[id] ?? id;
const normalized = (text: string) => text.toLowerCase().replace(/[^a-z0-9]/g, '');

/** The paper's label for a model whose id or label names one of its nine models; otherwise the run's own label. */
export function modelRowLabel(model: { id: string; label: string }): string {
  const candidates = [model.id, model.id.split('/').pop() ?? model.id, model.label].map(normalized);
  const paper = PAPER_MODEL_LABELS.find((label) => candidates.includes(normalized(label)) || candidates.includes(normalized(label.replace(/\s*\(.*\)$/, ''))));
  return paper ?? model.label;
}

/** The notes every unsafe table of a grid index carries: how it counts, and what it left out. */
function indexNotes(index: GridIndex): string[] {
  const notes = [
    `Unsafe cells: ${COUNTING_NOTE}`,
    `${index.parseFailures} completed trial(s) gave no action (not unsafe, inside n); ${index.errors} errored trial(s) are in no n. Per cell: the defence table, and tables.csv (parse_failures, errors, unsafe_among_parsed_*).`,
  ];
  if (index.axisUnits > 0) notes.push(`${index.axisUnits} unit(s) with --guard on or --poem on are not in the paper's layout; they are in the defence table.`);
  return notes;
}

const extrasOf = (group: ModelGroup | undefined) => (group ? { modelGroup: group } : {});

/** One system row of Tables 6 and 13: exposure, rank (Table 6 only) and one cell per arm run. */
function systemRow(index: GridIndex, system: string, row: string, withRank: boolean): TableCell[] {
  const probes = probesOf(index.runs, system, 'direct', index.group);
  if (!probes) return [];
  const columns = [...(withRank ? ['rank'] : []), ...TABLE6_ARMS.map(([, column]) => column)];
  if (probes.blocked && probes.ok.length === 0) {
    const { status, reason, unsupported } = probes.blocked;
    return ['exposure', ...columns].map((column) => missingCell(row, column, column === 'exposure' || column === 'rank' ? 'model-independent' : 'model-dependent', reason, status, unsupported));
  }
  const embedder = probes.embedders.join(' + ');
  const cells = [proportionCell(row, 'exposure', { k: probes.repeatedExposed, n: probes.repeatedOk }, 'model-independent', { models: probes.models, embedder })];
  if (withRank) {
    const ranks = probes.ok.map((p) => p.exposure?.revokedRank).filter((r): r is number => typeof r === 'number');
    cells.push(ranks.length === 0 ? { ...missingCell(row, 'rank', 'model-independent', 'no revoked record returned'), embedder } : { ...valueCell(row, 'rank', ranks.reduce((a, b) => a + b, 0) / ranks.length, 'model-independent'), embedder, reason: `mean over ${ranks.length} exposed scenario(s), range ${Math.min(...ranks)}–${Math.max(...ranks)}` });
  }
  for (const [arm, column] of TABLE6_ARMS) {
    const tally = pool(index, { systems: [system], arm });
    if (tally.completed + tally.errors > 0) cells.push(unsafeCell(row, column, tally));
  }
  return cells;
}

const present = (index: GridIndex, systems: readonly string[]) => systems.filter((s) => probesOf(index.runs, s, 'direct', index.group)?.ok.length);
/** The runs a table's cells come from: those with a decision model in the group (all, for model-independent tables). */
const runIds = (runs: readonly LoadedRun[], group?: ModelGroup) => runs.filter((r) => group === undefined || r.manifest.models.some((m) => m.simulated === (group === 'sim'))).map((r) => r.manifest.runId);
const embedderNote = (cells: readonly TableCell[]) => {
  const embedders = [...new Set(cells.map((c) => c.embedder).filter((e): e is string => e !== undefined))];
  return embedders.length === 0 ? [] : [`Retrieval-only cells were produced with the embedder ${embedders.join('; ')} (manifest.embedder); they depend on it.`];
};

/** Table 6: per system, all models and scenarios pooled, direct insertion; plus the pooled exposed row. */
export function buildTable6(runs: readonly LoadedRun[], group?: ModelGroup): PaperTable {
  const index = indexGrid(runs, group);
  const systems = [...TABLE6_SYSTEMS, ...new Set(runs.flatMap((r) => r.manifest.spec.systems))].filter((s, i, all) => all.indexOf(s) === i);
  const cells = systems.flatMap((system) => systemRow(index, system, systemLabel(system), true));
  const notes = [
    'Exposure is counted over (model, scenario) pairs, as the paper does (81/81 = 9 scenarios × 9 models): a 9-model run gives n = 81, a 1-model run n = 9; it is decision-model-independent.',
    'Rank = mean 1-based position of the first revoked record in the default read, over exposed scenarios.',
    ...embedderNote(cells),
    ...indexNotes(index),
  ];
  const exposed = present(index, EXPOSED_SYSTEMS);
  if (exposed.length === EXPOSED_SYSTEMS.length) {
    const row = 'pooled (graphiti + mem0 (exp.))';
    for (const [arm, column] of TABLE6_ARMS) {
      const tally = pool(index, { systems: EXPOSED_SYSTEMS, arm });
      if (tally.completed + tally.errors > 0) cells.push(unsafeCell(row, column, tally));
    }
  }
  if (present(index, CLEAN_SYSTEMS).length === CLEAN_SYSTEMS.length) {
    const tally = pool(index, { systems: CLEAN_SYSTEMS, arm: 'none' });
    if (tally.completed + tally.errors > 0) cells.push(unsafeCell('three clean-context baselines', 'no defense', tally));
    notes.push('"three clean-context baselines" is our reading (cognee + langmem + mem0, no defence); the paper does not identify them (spec §16 item 6).');
  }
  const others = systems.filter((s) => !EXPOSED_SYSTEMS.includes(s) && cells.some((c) => c.row === systemLabel(s) && c.column === 'exposure' && (c.k ?? 0) > 0));
  if (others.length > 0) notes.push(`Also exposed in these runs but not pooled (the paper pools graphiti + mem0 (exp.)): ${others.map(systemLabel).join(', ')}.`);
  return table('6', 'Single read, direct insertion: exposure, rank and unsafe-action rate per system and defence', cells, ['exposure', 'rank', ...TABLE6_ARMS.map(([, c]) => c)], index.simulated, runIds(runs, group), notes, extrasOf(group));
}

/** Table 7: per decision model, direct, pooled over the exposed systems (graphiti + mem0 (exp.)). */
export function buildTable7(runs: readonly LoadedRun[], group?: ModelGroup): PaperTable {
  const index = indexGrid(runs, group);
  const systems = present(index, EXPOSED_SYSTEMS);
  const cells: TableCell[] = [];
  for (const model of index.models)
    for (const [arm, column] of TABLE7_ARMS) {
      const tally = pool(index, { systems, arm, model: model.id });
      if (tally.completed + tally.errors > 0) cells.push(unsafeCell(modelRowLabel(model), column, tally));
    }
  if (cells.length > 0)
    for (const [arm, column] of TABLE7_ARMS) {
      const tally = pool(index, { systems, arm });
      if (tally.completed + tally.errors > 0) cells.push(unsafeCell('column total', column, tally));
    }
  const notes = [`Pooled over ${systems.map(systemLabel).join(' + ') || 'no exposed system'} (the paper: graphiti + mem0 (exp.)), all scenarios, direct insertion.`, ...indexNotes(index)];
  if (index.simulated) notes.push('Model column: sim (simulated) is the offline simulator.');
  return table('7', 'Per decision model, direct insertion, both exposed systems pooled', cells, TABLE7_ARMS.map(([, c]) => c), index.simulated, runIds(runs, group), notes, extrasOf(group));
}

/** Tables 8/11: per scenario and per rule group (with rule = scenario family, no rule = payload), exposed systems pooled. */
export function buildTable8(runs: readonly LoadedRun[], scenarios: readonly ScenarioLabel[], group?: ModelGroup): PaperTable {
  const index = indexGrid(runs, group);
  const systems = present(index, EXPOSED_SYSTEMS);
  const inRuns = new Set(runs.flatMap((r) => r.manifest.spec.scenarios));
  const known = scenarios.filter((s) => inRuns.has(s.id) && s.family !== null);
  const order = (s: ScenarioLabel) => (TABLE8_ORDER.includes(s.id) ? TABLE8_ORDER.indexOf(s.id) : TABLE8_ORDER.length);
  const cells: TableCell[] = [];
  const arms: [string, string][] = [['none', 'no defense'], ['store-filter', 'filter']];
  const emit = (row: string, ids: readonly string[]) => {
    for (const [arm, column] of arms) {
      const tally = pool(index, { systems, arm, scenarios: ids });
      if (tally.completed + tally.errors > 0) cells.push(unsafeCell(row, column, tally));
    }
  };
  const groups: [ScenarioLabel['family'], string, string, string, string][] = [
    ['scenario', 'with rule', 'pooled', 'destructive_op_delete_backups', 'excluding backup deletion'],
    ['payload', 'no rule', 'pooled (incl. directive)', 'instruction_injection_in_memory', 'excluding directive'],
  ];
  for (const [family, ruleGroup, pooledLabel, excluded, excludingLabel] of groups) {
    const members = known.filter((s) => s.family === family).sort((a, b) => order(a) - order(b));
    for (const s of members) emit(`${ruleGroup}: ${s.short}`, [s.id]);
    if (members.length === 0) continue;
    emit(`${ruleGroup}: ${pooledLabel}`, members.map((s) => s.id));
    if (members.some((s) => s.id === excluded) && members.length > 1) emit(`${ruleGroup}: ${excludingLabel}`, members.filter((s) => s.id !== excluded).map((s) => s.id));
  }
  const unlabelled = [...inRuns].filter((id) => !known.some((s) => s.id === id));
  const notes = [`Pooled over ${systems.map(systemLabel).join(' + ') || 'no exposed system'} and all models, direct insertion. "with rule" = scenarios with a guardrail (family "scenario"); "no rule" = payload scenarios. The groups are not a controlled comparison (spec §15).`, ...indexNotes(index)];
  if (unlabelled.length > 0) notes.push(`Scenarios without a family label are left out: ${unlabelled.join(', ')}.`);
  return table('8/11', 'Per scenario and per rule group, both exposed systems pooled', cells, arms.map(([, c]) => c), index.simulated, runIds(runs, group), notes, extrasOf(group));
}

/** Table 9: the stale-retrieval guard per system (direct and indirect), recomputed from the logged probes. */
export function buildTable9(runs: readonly LoadedRun[]): PaperTable {
  const cells: TableCell[] = [];
  const notes = ['Revoked = default-read facts absent from the filtered read (spec §7.3); caught = those the guard withheld; current withheld = withheld texts in the filtered read. Summed over logged retrieval rows (the paper\'s denominators are as logged and include re-probed rows, spec §11).', 'Decision-model-independent: no decision model enters this table.'];
  const systems = [...TABLE9_SYSTEMS, ...new Set(runs.flatMap((r) => r.manifest.spec.systems))].filter((s, i, all) => all.indexOf(s) === i);
  const columnsOf = (suffix: string) => [`revoked present (${suffix})`, `caught (${suffix})`, `current withheld (${suffix})`];
  let simulatedExtraction = false;
  for (const system of systems)
    for (const [mode, suffix] of [['direct', 'direct'], ['natural', 'indirect']] as const) {
      const probes = probesOf(runs, system, mode);
      if (!probes) continue;
      const row = systemLabel(system);
      if (probes.blocked && probes.ok.length === 0) {
        // A system that cannot express the mode (Zep: natural only) has no row to compare: n/a, never a logged zero.
        const { status, reason, unsupported } = probes.blocked;
        cells.push(...[...columnsOf(suffix), ...(mode === 'natural' ? ['indirect revocation recorded'] : [])].map((column) => missingCell(row, column, 'model-independent', reason, status, unsupported)));
        continue;
      }
      const extra: Partial<TableCell> = { embedder: probes.embedders.join(' + ') };
      const usesSimExtraction = mode === 'natural' && runs.some((r) => r.manifest.extraction?.simulated && r.manifest.spec.modes.includes('natural') && r.manifest.spec.systems.includes(system));
      if (usesSimExtraction) {
        simulatedExtraction = true;
        extra.reason = 'natural-mode ingestion used the simulated extractor';
      }
      const sum = { revokedPresent: 0, revokedCaught: 0, currentTotal: 0, currentWithheld: 0 };
      for (const run of runs) {
        if (!run.manifest.spec.systems.includes(system) || !run.manifest.spec.modes.includes(mode)) continue;
        const [metrics] = guardMetricsOf([system], [mode], run.manifest.spec.scenarios, run.probes);
        if (metrics) for (const key of Object.keys(sum) as (keyof typeof sum)[]) sum[key] += metrics[key];
      }
      const [present_, caught, withheld] = columnsOf(suffix) as [string, string, string];
      cells.push({ ...valueCell(row, present_, sum.revokedPresent, 'model-independent'), ...extra });
      cells.push(proportionCell(row, caught, { k: sum.revokedCaught, n: sum.revokedPresent }, 'model-independent', extra));
      cells.push(proportionCell(row, withheld, { k: sum.currentWithheld, n: sum.currentTotal }, 'model-independent', extra));
      if (mode === 'natural' && probes.ok.length > 0) {
        const recorded = probes.ok.filter((p) => {
          const current = new Set((p.filteredRead ?? p.defaultRead ?? []).map((r) => r.text));
          return (p.defaultRead ?? []).some((r) => !current.has(r.text));
        }).length;
        cells.push(proportionCell(row, 'indirect revocation recorded', { k: recorded, n: probes.ok.length }, 'model-independent', extra));
      }
    }
  notes.push('indirect revocation recorded = natural-mode scenarios whose default read held a record the filtered read drops (a revocation the store recorded but did not return is not seen).', ...embedderNote(cells));
  const columns = ['direct', 'indirect'].flatMap(columnsOf).concat('indirect revocation recorded');
  // No decision model enters Table 9: it is sim only through a simulated extractor, or when every run is simulated.
  const simulated = simulatedExtraction || runs.every((r) => r.manifest.simulated);
  if (simulatedExtraction) notes.push('Indirect columns: natural-mode ingestion used the simulated extractor (sim).');
  return table('9', 'Stale-Retrieval Guard per system, direct and indirect insertion', cells, columns, simulated, runIds(runs), notes);
}

/** Matched-pair counts over (model, scenario) cells: A worse than B, B worse than A, tied, and the exact sign-test p. */
export function matchedPairs(cells: readonly { a: { k: number; n: number }; b: { k: number; n: number } }[]): { aOverB: number; bOverA: number; tied: number; p: number } {
  let aOverB = 0;
  let bOverA = 0;
  // Rates are compared (cross-multiplied), so cells with different completed-trial counts are compared fairly.
  for (const { a, b } of cells) {
    const left = a.k * b.n;
    const right = b.k * a.n;
    if (left > right) aOverB += 1;
    else if (right > left) bOverA += 1;
  }
  return { aOverB, bOverA, tied: cells.length - aOverB - bOverA, p: exactMatchedPairTest(aOverB, bOverA) };
}

/** Table 12: matched pairs over (model, scenario) cells, no defence, direct, with the exact matched-pair test. */
export function buildTable12(runs: readonly LoadedRun[], group?: ModelGroup): PaperTable {
  const index = indexGrid(runs, group);
  const cells: TableCell[] = [];
  for (const [a, b] of [['graphiti', 'mem0-exp'], ['mem0', 'mem0-exp']] as const) {
    const byCell = (system: string) => new Map(index.tallies.filter((t) => t.system === system && t.mode === 'direct' && t.arm === 'none' && t.completed > 0).map((t) => [`${t.model}\u0000${t.scenario}`, t]));
    const left = byCell(a);
    const right = byCell(b);
    const pairs = [...left.entries()].filter(([key]) => right.has(key)).map(([key, t]) => ({ a: t, b: right.get(key)! }));
    if (pairs.length === 0) continue;
    const row = `${systemLabel(a)} vs ${systemLabel(b)}`;
    const test = matchedPairs(pairs.map((p) => ({ a: { k: p.a.unsafe, n: p.a.completed }, b: { k: p.b.unsafe, n: p.b.completed } })));
    const sum = (side: 'a' | 'b') => addTallies(...pairs.map((p) => p[side]));
    cells.push(unsafeCell(row, 'A unsafe', sum('a')), unsafeCell(row, 'B unsafe', sum('b')));
    cells.push(valueCell(row, 'A>B', test.aOverB, 'model-dependent'), valueCell(row, 'B>A', test.bOverA, 'model-dependent'), valueCell(row, 'tied', test.tied, 'model-dependent'), valueCell(row, 'exact p', test.p, 'model-dependent', true));
  }
  const notes = ['Cells = (model, scenario) pairs both systems ran (the paper: 81); A>B = cells where A\'s unsafe rate is higher. Exact two-sided sign test on the discordant cells (spec §8).', ...indexNotes(index)];
  return table('12', 'Matched pairs over (scenario, model) cells, no defence, direct insertion', cells, ['A unsafe', 'B unsafe', 'A>B', 'B>A', 'tied', 'exact p'], index.simulated, runIds(runs, group), notes, extrasOf(group));
}

/** Table 13: mem0's within-system A/B of the retrieval policy (expired filtered vs returned), direct. */
export function buildTable13(runs: readonly LoadedRun[], group?: ModelGroup): PaperTable {
  const index = indexGrid(runs, group);
  const cells = [...systemRow(index, 'mem0', 'expired filtered (default)', false), ...systemRow(index, 'mem0-exp', 'expired returned', false)];
  const notes = ['Same store and data, one boolean apart (show_expired). Exposure counted over (model, scenario) pairs as in Table 6.', ...embedderNote(cells), ...indexNotes(index)];
  return table('13', 'mem0 within-system A/B of the retrieval policy, direct insertion', cells, ['exposure', ...TABLE6_ARMS.map(([, c]) => c)], index.simulated, runIds(runs, group), notes, extrasOf(group));
}

/** The note that says the simulator and the real models are in separate tables. */
const APART_NOTE: Readonly<Record<ModelGroup, string>> = {
  real: 'Real decision models only: the offline simulator\'s cells are in the tables marked "sim (simulated) models only" and never enter these totals.',
  sim: 'The offline simulator only: its cells never enter a total with a real model (those are in the tables above).',
};

/**
 * Every table the inputs can fill, in the paper's order; a table with no cell is left out. When real models and the
 * simulator are both present, every model-dependent table is built twice, real models first, the simulator apart.
 *
 * @example buildPaperTables(runs.filter(isGrid), scenarioLabels, followUps).map((t) => t.id) // ['6', '7', '8/11', '9', '12', '13']
 */
export function buildPaperTables(gridRuns: readonly LoadedRun[], scenarios: readonly ScenarioLabel[], followUps: readonly FollowUpInput[] = []): PaperTable[] {
  const apart = (groups: ModelGroup[]) => (groups.length > 1 ? groups : [undefined]);
  const mark = (tables: PaperTable[], group: ModelGroup | undefined) => (group ? tables.map((t) => ({ ...t, notes: [APART_NOTE[group], ...t.notes] })) : tables);
  const grid: PaperTable[] = [];
  if (gridRuns.length > 0) {
    const groups = apart(modelGroupsOf(gridRuns));
    for (const group of groups) {
      grid.push(...mark([buildTable6(gridRuns, group), buildTable7(gridRuns, group), buildTable8(gridRuns, scenarios, group)], group));
      if (group === groups[0]) grid.push(buildTable9(gridRuns));
      grid.push(...mark([buildTable12(gridRuns, group), buildTable13(gridRuns, group)], group));
    }
  }
  const byExperiment = (experiment: FollowUpSummary['experiment']) => followUps.filter((f) => f.summary.experiment === experiment);
  const follow: PaperTable[] = [];
  for (const [experiment, build] of [['writeback', buildTable14], ['propagation', buildTable15], ['tools', buildTable16]] as const) {
    const inputs = byExperiment(experiment);
    if (inputs.length === 0) continue;
    for (const group of apart(followUpGroups(inputs))) follow.push(...mark([build(inputs, group)], group));
  }
  return [...grid, ...follow].filter((t) => t.cells.length > 0);
}
