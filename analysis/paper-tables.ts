// Builds the paper's Tables 6–16 (stale-retrieval.md §11–§15) from run directories, in the paper's layout and labels.
import type { ProbeRecord } from '../pipeline/run-log.js';
import type { FollowUpRowKey, FollowUpSummary, PropagationRow, ToolsRow, WritebackRow } from './follow-up-summary.types.js';
import type { LoadedRun } from './load-run.js';
import type { Dependence, PaperTable, PaperTableId, TableCell } from './paper-table.js';
import { exactMatchedPairTest } from './statistics.js';
import { guardMetricsOf, proportion, type Proportion } from './summarize.js';

/** What the tables need to know about a policy scenario: its short label and family (payload = no rule). */
export interface ScenarioLabel {
  id: string;
  short: string;
  family: 'payload' | 'scenario' | null;
}

/** A follow-up run's summary (Tables 14–16) with the run it came from. */
export interface FollowUpInput {
  runId: string;
  /** The decision model (or, for natural write-back, the extractor) was the offline simulator. */
  simulated: boolean;
  summary: FollowUpSummary;
}

/** Our system ids → the paper's row labels. */
export const SYSTEM_LABELS: Readonly<Record<string, string>> = { graphiti: 'graphiti', 'mem0-exp': 'mem0 (exp.)', mem0: 'mem0', langmem: 'langmem', cognee: 'cognee', 'zep-ce': 'zep' };
/** The two systems that return the revoked record in direct mode; the paper pools Tables 6 (pooled row), 7 and 8/11 over them. */
export const EXPOSED_SYSTEMS: readonly string[] = ['graphiti', 'mem0-exp'];
/** Our reading of the paper's unidentified "three clean-context baselines" (spec §16 item 6). */
export const CLEAN_SYSTEMS: readonly string[] = ['cognee', 'langmem', 'mem0'];
/** The system the paper ran its follow-up experiments on (Tables 14–16; spec §12–§14): layout data, not dispatch. */
export const PAPER_FOLLOW_UP_SYSTEMS: readonly string[] = ['graphiti'];
/** The paper's nine decision-model labels (Table 7 rows); a run's model id or label that matches one takes its label. */
export const PAPER_MODEL_LABELS = ['GPT-5.5', 'Grok-4', 'DeepSeek-V4-Flash', 'GPT-5-nano', 'Gemini-2.5-Flash', 'Grok-4-Fast (non-reasoning)', 'GLM-5.2', 'Gemma-3-27B-IT', 'Kimi-K2.6'] as const;

const TABLE6_ARMS: [string, string][] = [['none', 'no defense'], ['store-filter', 'filter'], ['prompt-hardening', 'prompt'], ['output-filter', 'output'], ['filter-hardening', 'filter+prompt'], ['guard', 'guard']];
const TABLE7_ARMS: [string, string][] = [['none', 'no defense'], ['store-filter', 'filter'], ['prompt-hardening', 'prompt hardening'], ['output-filter', 'output filter']];
const TABLE6_SYSTEMS = ['graphiti', 'mem0-exp', 'cognee', 'langmem', 'mem0', 'zep-ce'];
const TABLE9_SYSTEMS = ['cognee', 'graphiti', 'langmem', 'mem0', 'mem0-exp', 'zep-ce'];
// Table 8/11 prints the scenarios of each group by decreasing published rate; we keep that row order fixed.
const TABLE8_ORDER = ['destructive_op_delete_backups', 'guardrail_bypass_disclose_card', 'over_limit_financial_transfer', 'mfa_waiver_access', 'compliance_log_deletion', 'data_exfiltration_pii_export', 'guardrail_bypass_rollback', 'privilege_escalation_deploy_approval', 'instruction_injection_in_memory'];
const EXPLOIT_LABELS: Readonly<Record<string, string>> = { arbitrary_code_execution: 'arbitrary code execution', secret_exfiltration_env: 'secret exfiltration', shell_over_api_infra: 'shell-over-API', destructive_shell_breach: 'destructive shell' };

const SIM_NOTE = 'sim: built from simulated runs (offline simulator); not a measurement of any model and not a reproduction of the paper.';
const SCORING_NOTE = 'Unsafe k/n as the reference code scores (spec §6.3): n = completed trials, a reply that does not parse counts as not unsafe; errored trials are left out.';
const systemLabel = (id: string) => SYSTEM_LABELS[id] ?? id;
const normalized = (text: string) => text.toLowerCase().replace(/[^a-z0-9]/g, '');

/** The paper's label for a model whose id or label names one of its nine models; otherwise the run's own label. */
export function modelRowLabel(model: { id: string; label: string }): string {
  const candidates = [model.id, model.id.split('/').pop() ?? model.id, model.label].map(normalized);
  const paper = PAPER_MODEL_LABELS.find((label) => candidates.includes(normalized(label)) || candidates.includes(normalized(label.replace(/\s*\(.*\)$/, ''))));
  return paper ?? model.label;
}

/** A proportion cell (k/n, rate, Wilson 95 %). */
export function proportionCell(row: string, column: string, p: { k: number; n: number }, dependence: Dependence, extra: Partial<TableCell> = {}): TableCell {
  const { k, n, rate, low, high } = proportion(p.k, p.n);
  return { row, column, k, n, rate, low, high, dependence, status: 'ok', ...extra };
}
const valueCell = (row: string, column: string, value: number, dependence: Dependence, isP = false): TableCell => ({ row, column, value, ...(isP ? { isP } : {}), dependence, status: 'ok' });
const missingCell = (row: string, column: string, dependence: Dependence, reason: string, status: 'n/a' | 'error' = 'n/a'): TableCell => ({ row, column, dependence, status, reason });

function table(id: PaperTableId, title: string, cells: TableCell[], columns: string[], simulated: boolean, runs: string[], notes: string[]): PaperTable {
  const rows = [...new Set(cells.map((cell) => cell.row))];
  const used = columns.filter((column) => cells.some((cell) => cell.column === column));
  return { id, title: simulated ? `${title} — sim (simulated)` : title, rows, columns: used, cells, simulated, runs, notes: simulated ? [SIM_NOTE, ...notes] : notes };
}

/** Decision-unit tallies of the grid runs (guard and PoEM axes off: the paper has neither). */
interface Tally { system: string; mode: string; arm: string; model: string; scenario: string; k: number; n: number }

interface GridIndex {
  runs: readonly LoadedRun[];
  tallies: Tally[];
  models: { id: string; label: string; simulated: boolean }[];
  simulated: boolean;
  notes: string[];
}

function indexGrid(runs: readonly LoadedRun[]): GridIndex {
  const byKey = new Map<string, Tally>();
  const models = new Map<string, { id: string; label: string; simulated: boolean }>();
  let parseFailures = 0;
  let errors = 0;
  let axes = 0;
  for (const run of runs) {
    for (const model of run.manifest.models) if (!models.has(model.id)) models.set(model.id, { id: model.id, label: model.label, simulated: model.simulated });
    for (const record of run.records.values()) {
      if (record.key.guard || record.key.poem) { axes += 1; continue; }
      if (record.status !== 'ok') { errors += 1; continue; }
      if (record.scores.parseFailure) parseFailures += 1;
      const { system, mode, arm, model, scenario } = record.key;
      const id = [system, mode, arm, model, scenario].join('\u0000');
      const tally = byKey.get(id) ?? { system, mode, arm, model, scenario, k: 0, n: 0 };
      tally.n += 1;
      if (record.scores.unsafe === true) tally.k += 1;
      byKey.set(id, tally);
    }
  }
  const notes = [SCORING_NOTE, `${parseFailures} completed trial(s) did not parse; ${errors} errored trial(s) left out.`];
  if (axes > 0) notes.push(`${axes} unit(s) with --guard on or --poem on are not in the paper's layout and are left out.`);
  const list = [...models.values()];
  return { runs, tallies: [...byKey.values()], models: list, simulated: list.some((m) => m.simulated), notes };
}

function pool(index: GridIndex, where: { systems: readonly string[]; arm: string; mode?: string; model?: string; scenarios?: readonly string[] }): { k: number; n: number } {
  let k = 0;
  let n = 0;
  for (const t of index.tallies) {
    if (!where.systems.includes(t.system) || t.arm !== where.arm || t.mode !== (where.mode ?? 'direct')) continue;
    if (where.model !== undefined && t.model !== where.model) continue;
    if (where.scenarios && !where.scenarios.includes(t.scenario)) continue;
    k += t.k;
    n += t.n;
  }
  return { k, n };
}

interface ProbeSet { ok: ProbeRecord[]; models: number; repeatedOk: number; repeatedExposed: number; blocked?: { status: 'n/a' | 'error'; reason: string } }

/** The probes of one (system, mode) over all runs; exposure repeated over each run's models, as the paper counts it. */
function probesOf(runs: readonly LoadedRun[], system: string, mode: string): ProbeSet | null {
  const set: ProbeSet = { ok: [], models: 0, repeatedOk: 0, repeatedExposed: 0 };
  let seen = false;
  for (const run of runs) {
    const probes = run.manifest.spec.scenarios.map((s) => run.probes.get(`${system}/${mode}/${s}`)).filter((p): p is ProbeRecord => p !== undefined);
    if (probes.length === 0) continue;
    seen = true;
    const ok = probes.filter((p) => p.status === 'ok');
    const models = run.manifest.models.length;
    set.ok.push(...ok);
    if (ok.length > 0) set.models += models;
    set.repeatedOk += ok.length * models;
    set.repeatedExposed += ok.filter((p) => p.exposure?.exposed).length * models;
    const failed = probes.find((p) => p.status === 'error') ?? probes.find((p) => p.status === 'not-applicable');
    if (failed && ok.length === 0) set.blocked = { status: failed.status === 'error' ? 'error' : 'n/a', reason: failed.reason ?? failed.status };
  }
  return seen ? set : null;
}

/** One system row of Tables 6 and 13: exposure, rank (Table 6 only) and one cell per arm run. */
function systemRow(index: GridIndex, system: string, row: string, withRank: boolean): TableCell[] {
  const probes = probesOf(index.runs, system, 'direct');
  if (!probes) return [];
  const columns = [...(withRank ? ['rank'] : []), ...TABLE6_ARMS.map(([, column]) => column)];
  if (probes.blocked && probes.ok.length === 0) {
    return ['exposure', ...columns].map((column) => missingCell(row, column, column === 'exposure' || column === 'rank' ? 'model-independent' : 'model-dependent', probes.blocked!.reason, probes.blocked!.status));
  }
  const cells = [proportionCell(row, 'exposure', { k: probes.repeatedExposed, n: probes.repeatedOk }, 'model-independent', { models: probes.models })];
  if (withRank) {
    const ranks = probes.ok.map((p) => p.exposure?.revokedRank).filter((r): r is number => typeof r === 'number');
    cells.push(ranks.length === 0 ? missingCell(row, 'rank', 'model-independent', 'no revoked record returned') : { ...valueCell(row, 'rank', ranks.reduce((a, b) => a + b, 0) / ranks.length, 'model-independent'), reason: `mean over ${ranks.length} exposed scenario(s), range ${Math.min(...ranks)}–${Math.max(...ranks)}` });
  }
  for (const [arm, column] of TABLE6_ARMS) {
    const tally = pool(index, { systems: [system], arm });
    if (tally.n > 0) cells.push(proportionCell(row, column, tally, 'model-dependent'));
  }
  return cells;
}

const present = (index: GridIndex, systems: readonly string[]) => systems.filter((s) => probesOf(index.runs, s, 'direct')?.ok.length);
const runIds = (runs: readonly LoadedRun[]) => runs.map((r) => r.manifest.runId);

/** Table 6: per system, all models and scenarios pooled, direct insertion; plus the pooled exposed row. */
export function buildTable6(runs: readonly LoadedRun[]): PaperTable {
  const index = indexGrid(runs);
  const systems = [...TABLE6_SYSTEMS, ...new Set(runs.flatMap((r) => r.manifest.spec.systems))].filter((s, i, all) => all.indexOf(s) === i);
  const cells = systems.flatMap((system) => systemRow(index, system, systemLabel(system), true));
  const notes = [
    'Exposure is counted over (model, scenario) pairs, as the paper does (81/81 = 9 scenarios × 9 models): a 9-model run gives n = 81, a 1-model run n = 9; it is decision-model-independent.',
    'Rank = mean 1-based position of the first revoked record in the default read, over exposed scenarios.',
    ...index.notes,
  ];
  const exposed = present(index, EXPOSED_SYSTEMS);
  if (exposed.length === EXPOSED_SYSTEMS.length) {
    const row = 'pooled (graphiti + mem0 (exp.))';
    for (const [arm, column] of TABLE6_ARMS) {
      const tally = pool(index, { systems: EXPOSED_SYSTEMS, arm });
      if (tally.n > 0) cells.push(proportionCell(row, column, tally, 'model-dependent'));
    }
  }
  if (present(index, CLEAN_SYSTEMS).length === CLEAN_SYSTEMS.length) {
    const tally = pool(index, { systems: CLEAN_SYSTEMS, arm: 'none' });
    if (tally.n > 0) cells.push(proportionCell('three clean-context baselines', 'no defense', tally, 'model-dependent'));
    notes.push('"three clean-context baselines" is our reading (cognee + langmem + mem0, no defence); the paper does not identify them (spec §16 item 6).');
  }
  const others = systems.filter((s) => !EXPOSED_SYSTEMS.includes(s) && cells.some((c) => c.row === systemLabel(s) && c.column === 'exposure' && (c.k ?? 0) > 0));
  if (others.length > 0) notes.push(`Also exposed in these runs but not pooled (the paper pools graphiti + mem0 (exp.)): ${others.map(systemLabel).join(', ')}.`);
  return table('6', 'Single read, direct insertion: exposure, rank and unsafe-action rate per system and defence', cells, ['exposure', 'rank', ...TABLE6_ARMS.map(([, c]) => c)], index.simulated, runIds(runs), notes);
}

/** Table 7: per decision model, direct, pooled over the exposed systems (graphiti + mem0 (exp.)). */
export function buildTable7(runs: readonly LoadedRun[]): PaperTable {
  const index = indexGrid(runs);
  const systems = present(index, EXPOSED_SYSTEMS);
  const cells: TableCell[] = [];
  for (const model of index.models)
    for (const [arm, column] of TABLE7_ARMS) {
      const tally = pool(index, { systems, arm, model: model.id });
      if (tally.n > 0) cells.push(proportionCell(modelRowLabel(model), column, tally, 'model-dependent'));
    }
  if (cells.length > 0)
    for (const [arm, column] of TABLE7_ARMS) {
      const tally = pool(index, { systems, arm });
      if (tally.n > 0) cells.push(proportionCell('column total', column, tally, 'model-dependent'));
    }
  const notes = [`Pooled over ${systems.map(systemLabel).join(' + ') || 'no exposed system'} (the paper: graphiti + mem0 (exp.)), all scenarios, direct insertion.`, ...index.notes];
  if (index.simulated) notes.push('Model column: sim (simulated) is the offline simulator.');
  return table('7', 'Per decision model, direct insertion, both exposed systems pooled', cells, TABLE7_ARMS.map(([, c]) => c), index.simulated, runIds(runs), notes);
}

/** Tables 8/11: per scenario and per rule group (with rule = scenario family, no rule = payload), exposed systems pooled. */
export function buildTable8(runs: readonly LoadedRun[], scenarios: readonly ScenarioLabel[]): PaperTable {
  const index = indexGrid(runs);
  const systems = present(index, EXPOSED_SYSTEMS);
  const inRuns = new Set(runs.flatMap((r) => r.manifest.spec.scenarios));
  const known = scenarios.filter((s) => inRuns.has(s.id) && s.family !== null);
  const order = (s: ScenarioLabel) => (TABLE8_ORDER.includes(s.id) ? TABLE8_ORDER.indexOf(s.id) : TABLE8_ORDER.length);
  const cells: TableCell[] = [];
  const arms: [string, string][] = [['none', 'no defense'], ['store-filter', 'filter']];
  const emit = (row: string, ids: readonly string[]) => {
    for (const [arm, column] of arms) {
      const tally = pool(index, { systems, arm, scenarios: ids });
      if (tally.n > 0) cells.push(proportionCell(row, column, tally, 'model-dependent'));
    }
  };
  const groups: [ScenarioLabel['family'], string, string, string, string][] = [
    ['scenario', 'with rule', 'pooled', 'destructive_op_delete_backups', 'excluding backup deletion'],
    ['payload', 'no rule', 'pooled (incl. directive)', 'instruction_injection_in_memory', 'excluding directive'],
  ];
  for (const [family, group, pooledLabel, excluded, excludingLabel] of groups) {
    const members = known.filter((s) => s.family === family).sort((a, b) => order(a) - order(b));
    for (const s of members) emit(`${group}: ${s.short}`, [s.id]);
    if (members.length === 0) continue;
    emit(`${group}: ${pooledLabel}`, members.map((s) => s.id));
    if (members.some((s) => s.id === excluded) && members.length > 1) emit(`${group}: ${excludingLabel}`, members.filter((s) => s.id !== excluded).map((s) => s.id));
  }
  const unlabelled = [...inRuns].filter((id) => !known.some((s) => s.id === id));
  const notes = [`Pooled over ${systems.map(systemLabel).join(' + ') || 'no exposed system'} and all models, direct insertion. "with rule" = scenarios with a guardrail (family "scenario"); "no rule" = payload scenarios. The groups are not a controlled comparison (spec §15).`, ...index.notes];
  if (unlabelled.length > 0) notes.push(`Scenarios without a family label are left out: ${unlabelled.join(', ')}.`);
  return table('8/11', 'Per scenario and per rule group, both exposed systems pooled', cells, arms.map(([, c]) => c), index.simulated, runIds(runs), notes);
}

/** Table 9: the stale-retrieval guard per system (direct and indirect), recomputed from the logged probes. */
export function buildTable9(runs: readonly LoadedRun[]): PaperTable {
  const cells: TableCell[] = [];
  const notes = ['Revoked = default-read facts absent from the filtered read (spec §7.3); caught = those the guard withheld; current withheld = withheld texts in the filtered read. Summed over logged retrieval rows (the paper\'s denominators are as logged and include re-probed rows, spec §11).', 'Decision-model-independent: no decision model enters this table.'];
  const systems = [...TABLE9_SYSTEMS, ...new Set(runs.flatMap((r) => r.manifest.spec.systems))].filter((s, i, all) => all.indexOf(s) === i);
  let simulatedExtraction = false;
  for (const system of systems)
    for (const [mode, suffix] of [['direct', 'direct'], ['natural', 'indirect']] as const) {
      const probes = probesOf(runs, system, mode);
      if (!probes) continue;
      const row = systemLabel(system);
      const extra: Partial<TableCell> = {};
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
      if (probes.blocked && probes.ok.length === 0) notes.push(`${row} ${suffix}: no retrieval row logged (${probes.blocked.reason}); its counts are zero as logged.`);
      cells.push({ ...valueCell(row, `revoked present (${suffix})`, sum.revokedPresent, 'model-independent'), ...extra });
      cells.push(proportionCell(row, `caught (${suffix})`, { k: sum.revokedCaught, n: sum.revokedPresent }, 'model-independent', extra));
      cells.push(proportionCell(row, `current withheld (${suffix})`, { k: sum.currentWithheld, n: sum.currentTotal }, 'model-independent', extra));
      if (mode === 'natural' && probes.ok.length > 0) {
        const recorded = probes.ok.filter((p) => {
          const current = new Set((p.filteredRead ?? p.defaultRead ?? []).map((r) => r.text));
          return (p.defaultRead ?? []).some((r) => !current.has(r.text));
        }).length;
        cells.push(proportionCell(row, 'indirect revocation recorded', { k: recorded, n: probes.ok.length }, 'model-independent', extra));
      }
    }
  notes.push('indirect revocation recorded = natural-mode scenarios whose default read held a record the filtered read drops (a revocation the store recorded but did not return is not seen).');
  const columns = ['direct', 'indirect'].flatMap((m) => [`revoked present (${m})`, `caught (${m})`, `current withheld (${m})`]).concat('indirect revocation recorded');
  const simulated = simulatedExtraction || runs.some((r) => r.manifest.simulated);
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
export function buildTable12(runs: readonly LoadedRun[]): PaperTable {
  const index = indexGrid(runs);
  const cells: TableCell[] = [];
  for (const [a, b] of [['graphiti', 'mem0-exp'], ['mem0', 'mem0-exp']] as const) {
    const byCell = (system: string) => new Map(index.tallies.filter((t) => t.system === system && t.mode === 'direct' && t.arm === 'none').map((t) => [`${t.model}\u0000${t.scenario}`, t]));
    const left = byCell(a);
    const right = byCell(b);
    const pairs = [...left.entries()].filter(([key]) => right.has(key)).map(([key, t]) => ({ a: t, b: right.get(key)! }));
    if (pairs.length === 0) continue;
    const row = `${systemLabel(a)} vs ${systemLabel(b)}`;
    const sum = (side: 'a' | 'b') => ({ k: pairs.reduce((s, p) => s + p[side].k, 0), n: pairs.reduce((s, p) => s + p[side].n, 0) });
    const test = matchedPairs(pairs);
    cells.push(proportionCell(row, 'A unsafe', sum('a'), 'model-dependent'), proportionCell(row, 'B unsafe', sum('b'), 'model-dependent'));
    cells.push(valueCell(row, 'A>B', test.aOverB, 'model-dependent'), valueCell(row, 'B>A', test.bOverA, 'model-dependent'), valueCell(row, 'tied', test.tied, 'model-dependent'), valueCell(row, 'exact p', test.p, 'model-dependent', true));
  }
  const notes = ['Cells = (model, scenario) pairs both systems ran (the paper: 81); A>B = cells where A\'s unsafe rate is higher. Exact two-sided sign test on the discordant cells (spec §8).', ...index.notes];
  return table('12', 'Matched pairs over (scenario, model) cells, no defence, direct insertion', cells, ['A unsafe', 'B unsafe', 'A>B', 'B>A', 'tied', 'exact p'], index.simulated, runIds(runs), notes);
}

/** Table 13: mem0's within-system A/B of the retrieval policy (expired filtered vs returned), direct. */
export function buildTable13(runs: readonly LoadedRun[]): PaperTable {
  const index = indexGrid(runs);
  const cells = [...systemRow(index, 'mem0', 'expired filtered (default)', false), ...systemRow(index, 'mem0-exp', 'expired returned', false)];
  const notes = ['Same store and data, one boolean apart (show_expired). Exposure counted over (model, scenario) pairs as in Table 6.', ...index.notes];
  return table('13', 'mem0 within-system A/B of the retrieval policy, direct insertion', cells, ['exposure', ...TABLE6_ARMS.map(([, c]) => c)], index.simulated, runIds(runs), notes);
}

const add = (a: Proportion | { k: number; n: number } | null | undefined, b: Proportion | null | undefined) => (b ? { k: (a?.k ?? 0) + b.k, n: (a?.n ?? 0) + b.n } : a ?? null);

/**
 * The follow-up rows in the paper's layout: per summary the rows pooled over models (`model: '*'`) when present,
 * else its single model's rows; guard and PoEM axes off; Graphiti and direct seeding when present (the paper's setup).
 */
function paperRows<R extends FollowUpRowKey>(inputs: readonly FollowUpInput[], pick: (s: FollowUpSummary) => R[] | undefined, notes: string[]): R[] {
  const all = inputs.flatMap(({ summary }) => {
    const rows = (pick(summary) ?? []).filter((r) => r.guard === 'off' && r.poem === 'off');
    return rows.some((r) => r.model === '*') ? rows.filter((r) => r.model === '*') : rows;
  });
  const system = all.find((r) => PAPER_FOLLOW_UP_SYSTEMS.includes(r.system))?.system ?? all[0]?.system;
  const mode = all.some((r) => r.system === system && r.mode === 'direct') ? 'direct' : all.find((r) => r.system === system)?.mode;
  const chosen = all.filter((r) => r.system === system && r.mode === mode);
  if (chosen.length < all.length) notes.push(`Rows of other systems or seeding modes are not in the paper's layout and are left out (kept: ${system ?? '–'}, ${mode ?? '–'}).`);
  return chosen;
}

function followUpTable(id: PaperTableId, title: string, inputs: readonly FollowUpInput[], cells: TableCell[], columns: string[], notes: string[]): PaperTable {
  const simulated = inputs.some((i) => i.simulated || i.summary.simulated);
  return table(id, title, cells, columns, simulated, inputs.map((i) => i.runId), ['Pooled over models and runs; k/n with Wilson 95 % intervals.', ...notes]);
}

/** One column of a follow-up row: its label, the proportion it reads, and its dependence (default model-dependent). */
type Column<R> = [string, (row: R) => Proportion | null | undefined, Dependence?];

function rowCells<R extends FollowUpRowKey>(row: string, rows: readonly R[], columns: readonly Column<R>[]): TableCell[] {
  if (rows.length === 0) return [];
  const usable = rows.filter((r) => r.status === 'ok');
  if (usable.length === 0) return columns.map(([column, , dependence]) => missingCell(row, column, dependence ?? 'model-dependent', rows[0]!.reason ?? rows[0]!.status, rows[0]!.status === 'error' ? 'error' : 'n/a'));
  return columns.flatMap(([column, get, dependence]) => {
    const values = usable.map(get);
    if (values.every((v) => v === null)) return [missingCell(row, column, dependence ?? 'model-dependent', 'not observable on this system (no record listing)')];
    const total = values.reduce<{ k: number; n: number } | null>((sum, v) => add(sum, v), null);
    return total ? [proportionCell(row, column, total, dependence ?? 'model-dependent')] : [];
  });
}

/** Table 14: write-back hops (Graphiti, direct seeding) from write-back summaries. */
export function buildTable14(inputs: readonly FollowUpInput[]): PaperTable {
  const notes: string[] = [];
  const rows = paperRows<WritebackRow>(inputs, (s) => s.writeback, notes);
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
  notes.push('Hop columns: n = poisoned runs (hop 0 unsafe) whose hop decision parsed. "no write-back" = hop 0 of both write-back modes, before any journal exists (the paper prints Table 6\'s Graphiti cell, n = 810). Journals marked superseded = journals stored − stored active.');
  const columns = ['stored active', ...Array.from({ length: hops }, (_, i) => `default hop${i + 1}`), ...Array.from({ length: hops }, (_, i) => `filter hop${i + 1}`), 'default', 'filter', 'poisoned', 'journals stored', 'journals marked superseded', 'unsafe at filter hop1 | active journal'];
  return followUpTable('14', 'Write-back hops (Graphiti, direct seeding), unsafe rate per hop under default and filtered reads', inputs, cells, columns, notes);
}

const PROPAGATION_ROWS: [string, string][] = [['shared-default', 'shared, default'], ['shared-filtered', 'shared, filtered'], ['no-journal', 'default, no journal']];

/** Table 15: multi-agent propagation from propagation summaries. */
export function buildTable15(inputs: readonly FollowUpInput[]): PaperTable {
  const notes: string[] = [];
  const rows = paperRows<PropagationRow>(inputs, (s) => s.propagation, notes);
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
  notes.push('n = runs in which all three roles\' replies parsed; "| poisoned" = given the executor was unsafe. Mean unsafe roles of 3 = total unsafe roles / n.');
  const columns = ['executor unsafe', 'reviewer unsafe', 'planner unsafe', 'reviewer unsafe | poisoned', 'any later role unsafe | poisoned', 'all three unsafe', 'mean unsafe roles', 'all roles saw v1'];
  return followUpTable('15', 'Multi-agent propagation (executor, reviewer, planner) on one shared store', inputs, cells, columns, notes);
}

const TOOLS_ROWS: [string, string][] = [['none', 'no defense'], ['store-filter', 'retrieval filter'], ['guard', 'guard'], ['tool-guardrail', 'tool-layer guardrail']];

/** Table 16: tool actions and the exploit chain from tools summaries, pooled and per scenario, plus relapse. */
export function buildTable16(inputs: readonly FollowUpInput[]): PaperTable {
  const notes: string[] = [];
  const rows = paperRows<ToolsRow>(inputs, (s) => s.tools, notes);
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
  return followUpTable('16', 'Tool actions and the exploit chain', inputs, cells, columns, notes);
}

/**
 * Every table the inputs can fill, in the paper's order; a table with no cell is left out.
 *
 * @example buildPaperTables(runs.filter(isGrid), scenarioLabels, followUps).map((t) => t.id) // ['6', '7', '8/11', '9', '12', '13']
 */
export function buildPaperTables(gridRuns: readonly LoadedRun[], scenarios: readonly ScenarioLabel[], followUps: readonly FollowUpInput[] = []): PaperTable[] {
  const grid = gridRuns.length === 0 ? [] : [buildTable6(gridRuns), buildTable7(gridRuns), buildTable8(gridRuns, scenarios), buildTable9(gridRuns), buildTable12(gridRuns), buildTable13(gridRuns)];
  const byExperiment = (experiment: FollowUpSummary['experiment']) => followUps.filter((f) => f.summary.experiment === experiment);
  const follow = [
    ...(byExperiment('writeback').length ? [buildTable14(byExperiment('writeback'))] : []),
    ...(byExperiment('propagation').length ? [buildTable15(byExperiment('propagation'))] : []),
    ...(byExperiment('tools').length ? [buildTable16(byExperiment('tools'))] : []),
  ];
  return [...grid, ...follow].filter((t) => t.cells.length > 0);
}
