// The plan of a run before any money moves: units, calls to send vs cached, tokens and dollars per model (`--dry-run`).
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { defaultEngineSpec, defaultEngines } from '../../backends/engines.js';
import { loadBackend } from '../../backends/index.js';
import type { Embedder } from '../../backends/embedder.js';
import type { ExtractionModel } from '../../backends/extraction-model.js';
import type { ExploitScenario } from '../../scenarios/exploit-scenario.js';
import type { ForgedReasoningScenario } from '../../scenarios/forged-reasoning-scenario.js';
import { AGENTS } from '../suites/forged-reasoning/agents.js';
import { planForgedReasoning } from '../suites/forged-reasoning/plan.js';
import { readForgedReasoningRecords } from '../suites/forged-reasoning/phase.js';
import { MUTATION_ENGINE } from '../suites/forged-reasoning/mutation-engine.js';
import type { Scenario } from '../../scenarios/scenario.js';
import type { ArmId } from './arms.js';
import { axisChoiceOf } from '../defences/axes/index.js';
import { gridDefences } from '../defences/grid-context.js';
import type { ChatMessage, DecisionModel, DecisionRequest } from '../models/decision-model.js';
import { enumerateUnits, readUnitRecords, unitContext } from '../suites/grid/experiment-phase.js';
import { EXPERIMENTS } from './experiments.js';
import { FOLLOW_UP_EXPERIMENTS, isFollowUpExperiment } from '../suites/follow-ups/index.js';
import { enumerateFollowUpUnits, readFollowUpRecords } from '../suites/follow-ups/phase.js';
import { readJsonLines, writeJsonAtomic } from '../run-log/json-files.js';
import { buildDecisionMessages } from '../suites/grid/prompts.js';
import { costOf, type Price } from '../models/prices.js';
import { gridSample } from '../models/sample-identity.js';
import { inShard } from './shard.js';
import { probeIdOf, RUN_LOG_VERSION, unitIdOf, type ProbeRecord } from '../run-log/run-log.js';
import type { RunSpec } from './run-spec.js';
import { followUpUnitIdOf } from '../suites/follow-ups/follow-up-log.js';
import { runSetupPhase } from '../suites/grid/setup-phase.js';
import { createTokenCounter } from '../models/token-count.js';
import type { LimitedMark } from '../run-log/run-log.js';
import { limitedLine, limitedOf } from './unit-limit.js';

/** One row of the plan: an experiment cell. */
export interface PlanRow {
  experiment: string;
  system: string;
  mode: string;
  arm: string;
  units: number;
  /** Units already recorded (a resume does not repeat them). */
  done: number;
  /** Decision calls the pending units make: exact for the grid, a range for follow-ups (they depend on replies). */
  calls: { min: number; max: number };
  /** Of the grid's calls, how many the response cache already answers (follow-ups: not checked). */
  cached: number | null;
}

/** What one model would cost. */
export interface PlanModel {
  model: string;
  simulated: boolean;
  /** Calls that would be sent (not cached), as a range. */
  send: { min: number; max: number };
  cached: number;
  /** Input tokens of the calls to send (the minimum count of calls for follow-ups). */
  inputTokens: { min: number; max: number };
  /** `gpt-5-nano` (exact) or `o200k_base (estimate)`. */
  tokenizer: string;
  outputTokens: { min: number; max: number };
  /** Null when the model has no known price. */
  price: Price | null;
  usd: { low: number; high: number } | null;
  /** `--batch`: the same calls at the model's batch price (null: no batch price); the run is billed at this one. */
  batch?: { price: Price | null; usd: { low: number; high: number } | null };
}

/** The whole plan. */
export interface RunPlan {
  rows: PlanRow[];
  models: PlanModel[];
  /** Caveats the printed plan states (estimated prompts, simulated extraction for natural mode, ...). */
  notes: string[];
  /** `--limit N`: the plan covers the limited set only. */
  limited?: LimitedMark;
}

/** The shortest reply that names an action (`{"action": "X", "reason": "..."}`), the low end of the output range. */
const LOW_OUTPUT_TOKENS = 16;

/** Inputs of `planRun`. */
export interface PlanInput {
  spec: RunSpec;
  runDir: string;
  scenarios: Scenario[];
  exploitScenarios: ExploitScenario[];
  /** forged-reasoning: its scenarios, and the attacker model when `--attacker-model` names one. */
  reasoningScenarios?: ForgedReasoningScenario[];
  attackerModel?: DecisionModel | null;
  models: DecisionModel[];
  embedder: Embedder;
  /** The offline extractor, used instead of a real extraction model so that planning sends nothing. */
  simExtraction: ExtractionModel;
  /** The extraction model the run will use (its id is reported when the plan had to simulate it). */
  extraction: ExtractionModel;
  priceOf: (model: string) => Price | null;
  /** `--batch`: the batch price per model, shown beside the standard one (and the run's upper cost uses it). */
  batchPriceOf?: (model: string) => Price | null;
  /** Whether a model would answer this call from its response cache (a capability of its registry line); absent: never. */
  cacheLookup?: (model: DecisionModel, request: DecisionRequest) => boolean;
}

/**
 * Plans a run without writing to its run directory or sending anything: grid prompts are built exactly as the run
 * will build them, from the run's stored probes when it has them, else from probes taken now on the embedded
 * engine in a temporary directory (removed afterwards).
 */
export async function planRun(input: PlanInput): Promise<RunPlan> {
  if (EXPERIMENTS.get(input.spec.experiment).phase === 'standalone') return planStandalone(input);
  const plan = await (isFollowUpExperiment(input.spec.experiment) ? planFollowUp(input) : planGrid(input));
  const limited = limitedOf(input.spec);
  return limited ? { ...plan, limited } : plan;
}

/** forged-reasoning: exact prompts and cache hits for the trial units, a range for the attacker loops. */
async function planStandalone(input: PlanInput): Promise<RunPlan> {
  const { spec } = input;
  const attackerModel = input.attackerModel ?? null;
  const attacker =
    spec.attackerModel === null
      ? null
      : attackerModel
        ? { id: spec.attackerModel, model: attackerModel }
        : { id: MUTATION_ENGINE };
  const existing = existsSync(input.runDir) ? readForgedReasoningRecords(input.runDir) : new Map();
  const { rows, calls } = planForgedReasoning({
    scenarios: input.reasoningScenarios ?? [],
    models: input.models,
    defences: spec.arms,
    forgeries: spec.forgeries,
    trials: spec.trials,
    retryErrors: spec.retryErrors,
    attacker,
    maxQueries: spec.attackerQueries,
    agent: await AGENTS.get(spec.agent ?? 'prompt').load(),
    existing,
    cacheLookup: input.cacheLookup ?? (() => false),
  });
  const models = await Promise.all(
    [...input.models, ...(attackerModel ? [attackerModel] : [])].map(async (model) => {
      const entry = calls.get(model.description.id) ?? { min: 0, max: 0, cached: 0, prompts: [] };
      return modelPlan(input, model, entry.min - entry.cached, entry.max - entry.cached, entry.cached, entry.prompts);
    }),
  );
  const notes = [
    'forged-reasoning: trial-unit prompts are exact (the write-time screens are deterministic); attacker loops are a range (they stop at ten successes), their prompts estimated with one adaptive note',
  ];
  return {
    rows: rows.map((row) => ({ experiment: spec.experiment, system: 'in-process', mode: '-', ...row })),
    models,
    notes,
  };
}

async function planGrid(input: PlanInput): Promise<RunPlan> {
  const { spec } = input;
  const notes: string[] = [];
  const probes = await probesFor(input, notes);
  const keys = enumerateUnits({
    ...spec,
    scenarios: input.scenarios,
    models: input.models,
    probes,
    arms: spec.arms as ArmId[],
    axes: axisChoiceOf(spec),
  }).filter((key) => inShard(spec.control.shard, key));
  const existing = existsSync(join(input.runDir, 'records.jsonl')) ? readUnitRecords(input.runDir).records : new Map();
  const scenarios = new Map(input.scenarios.map((s) => [s.id, s]));
  const rows = new Map<string, PlanRow>();
  const calls = new Map<string, { messages: ChatMessage[][]; cached: number }>();
  const now = new Date();
  for (const key of keys) {
    const rowId = [key.system, key.mode, key.arm].join('\0');
    const row = rows.get(rowId) ?? {
      experiment: 'grid',
      system: key.system,
      mode: key.mode,
      arm: key.arm,
      units: 0,
      done: 0,
      calls: { min: 0, max: 0 },
      cached: 0,
    };
    rows.set(rowId, row);
    row.units += 1;
    const previous = existing.get(unitIdOf(key));
    if (previous && !(spec.retryErrors && previous.status === 'error')) {
      row.done += 1;
      continue;
    }
    // A reusing arm (the output filter reuses the `none` reply) sends nothing of its own.
    if (gridDefences(key).reuseReplyOf !== null) continue;
    const model = input.models.find((m) => m.description.id === key.model)!;
    const { messages } = unitContext(
      key,
      scenarios.get(key.scenario)!,
      probes.get(probeIdOf(key.system, key.mode, key.scenario))!,
      now,
    );
    const hit =
      input.cacheLookup?.(model, {
        messages,
        trial: key.trial,
        sample: gridSample(key),
        metadata: { scenario: key.scenario },
      }) ?? false;
    row.calls.min += 1;
    row.calls.max += 1;
    if (hit) row.cached! += 1;
    const entry = calls.get(key.model) ?? { messages: [], cached: 0 };
    calls.set(key.model, entry);
    if (hit) entry.cached += 1;
    else entry.messages.push(messages);
  }
  const models = await Promise.all(
    input.models.map(async (model) => {
      const entry = calls.get(model.description.id) ?? { messages: [], cached: 0 };
      return modelPlan(input, model, entry.messages.length, entry.messages.length, entry.cached, entry.messages);
    }),
  );
  return { rows: [...rows.values()], models, notes };
}

async function planFollowUp(input: PlanInput): Promise<RunPlan> {
  const { spec } = input;
  if (!isFollowUpExperiment(spec.experiment)) throw new TypeError(`${spec.experiment} is not a follow-up experiment`);
  const experiment = FOLLOW_UP_EXPERIMENTS[spec.experiment];
  const scenarios =
    EXPERIMENTS.get(spec.experiment).scenarioKind === 'exploit' ? input.exploitScenarios : input.scenarios;
  const keys = enumerateFollowUpUnits({
    experiment,
    modes: spec.modes,
    systems: spec.systems,
    scenarios,
    models: input.models,
    trials: spec.trials,
    axes: axisChoiceOf(spec),
    arms: spec.arms,
    limit: spec.limit ?? null,
  });
  const existing = readFollowUpRecords(input.runDir, experiment.id);
  const rows = new Map<string, PlanRow>();
  const perModel = new Map<string, { min: number; max: number; prompts: ChatMessage[][] }>();
  for (const key of keys) {
    const rowId = [key.system, key.mode, key.arm].join('\0');
    const row = rows.get(rowId) ?? {
      experiment: experiment.id,
      system: key.system,
      mode: key.mode,
      arm: key.arm,
      units: 0,
      done: 0,
      calls: { min: 0, max: 0 },
      cached: null,
    };
    rows.set(rowId, row);
    row.units += 1;
    const previous = existing.get(followUpUnitIdOf(key));
    if (previous && !(spec.retryErrors && previous.status === 'error')) {
      row.done += 1;
      continue;
    }
    const range = followUpCalls(spec, key.arm);
    row.calls.min += range.min;
    row.calls.max += range.max;
    const entry = perModel.get(key.model) ?? { min: 0, max: 0, prompts: [] };
    perModel.set(key.model, entry);
    entry.min += range.min;
    entry.max += range.max;
    entry.prompts.push(estimatedPrompt(key.scenario, input));
  }
  const notes = [
    `${experiment.id}: calls per unit depend on the replies (a range); prompts are estimated from each scenario's seeded texts, and the response cache is not checked (later prompts depend on earlier replies)`,
  ];
  const models = await Promise.all(
    input.models.map(async (model) => {
      const entry = perModel.get(model.description.id) ?? { min: 0, max: 0, prompts: [] };
      return modelPlan(input, model, entry.min, entry.max, 0, entry.prompts);
    }),
  );
  return { rows: [...rows.values()], models, notes };
}

/** Decision calls of one follow-up unit: write-back hop 0 twice, then two per hop when hop 0 was unsafe; three roles; tool episodes. */
function followUpCalls(spec: RunSpec, arm: string): { min: number; max: number } {
  if (spec.experiment === 'writeback') return { min: 2, max: 2 + 2 * spec.hops };
  if (spec.experiment === 'propagation') return { min: 3, max: 3 };
  // Tools: one episode of up to toolSteps calls; the `none` arm's relapse adds three more episodes when the attack fired.
  return { min: 1, max: spec.toolSteps * (arm === 'none' ? 4 : 1) };
}

/** A follow-up prompt estimate: every seeded text of the scenario as facts, with the grid's prompt. */
function estimatedPrompt(scenarioId: string, input: PlanInput): ChatMessage[] {
  const policy = input.scenarios.find((s) => s.id === scenarioId);
  if (policy)
    return buildDecisionMessages({
      facts: [policy.v1, policy.v2, ...policy.distractors],
      task: policy.task,
      actions: policy.actions,
      guardrail: policy.guardrail,
      harden: false,
    });
  const exploit = input.exploitScenarios.find((s) => s.id === scenarioId)!;
  return [{ role: 'user', content: `${exploit.v1}\n${exploit.v2}\n${exploit.task}` }];
}

async function modelPlan(
  input: PlanInput,
  model: DecisionModel,
  minSend: number,
  maxSend: number,
  cached: number,
  prompts: ChatMessage[][],
): Promise<PlanModel> {
  const simulated = model.description.simulated;
  const counter = await createTokenCounter(model.description.id);
  const perCall = prompts.map((messages) => counter.count(messages));
  const sorted = [...perCall].sort((a, b) => a - b);
  const total = perCall.reduce((sum, n) => sum + n, 0);
  // With a range of calls (follow-ups), the low end counts the smallest prompts, the high end every call at the largest.
  const inputTokens =
    minSend === maxSend
      ? { min: total, max: total }
      : { min: sorted.slice(0, minSend).reduce((a, b) => a + b, 0), max: maxSend * (sorted.at(-1) ?? 0) };
  const maxOutput = Number(model.description.settings.maxTokens ?? 2000);
  const outputTokens = { min: minSend * LOW_OUTPUT_TOKENS, max: maxSend * maxOutput };
  const price = simulated
    ? { input: 0, output: 0, source: 'simulator (sends nothing)' }
    : input.priceOf(model.description.id);
  const usdAt = (at: Price | null) =>
    at
      ? {
          low: costOf(at, { input: inputTokens.min, output: outputTokens.min }),
          high: costOf(at, { input: inputTokens.max, output: outputTokens.max }),
        }
      : null;
  const usd = usdAt(price);
  const batchPrice = input.batchPriceOf && !simulated ? input.batchPriceOf(model.description.id) : undefined;
  return {
    ...(batchPrice === undefined ? {} : { batch: { price: batchPrice, usd: usdAt(batchPrice) } }),
    model: model.description.id,
    simulated,
    send: simulated ? { min: 0, max: 0 } : { min: minSend, max: maxSend },
    cached,
    inputTokens,
    tokenizer: counter.tokenizer,
    outputTokens,
    price,
    usd,
  };
}

/** The run's stored probes, or probes taken now on the embedded engine in a temporary directory. */
async function probesFor(input: PlanInput, notes: string[]): Promise<Map<string, ProbeRecord>> {
  const stored = new Map<string, ProbeRecord>();
  if (existsSync(join(input.runDir, 'setup.jsonl'))) {
    for (const row of readJsonLines<ProbeRecord>(join(input.runDir, 'setup.jsonl')).rows)
      if (row.status !== 'error') stored.set(probeIdOf(row.system, row.mode, row.scenario), row);
  }
  const missing = input.spec.systems.some((system) =>
    input.spec.modes.some((mode) => input.scenarios.some((s) => !stored.has(probeIdOf(system, mode, s.id)))),
  );
  if (!missing) return stored;
  const engineNote = defaultEngines(input.spec.engine)
    ? ''
    : ' (the run will read its own engines; they give the same reads in our tests)';
  notes.push(`prompts are built from probes taken now on the embedded engine${engineNote}`);
  const simulated = input.spec.modes.includes('natural') && !input.extraction.simulated;
  if (simulated)
    notes.push(
      `natural-mode prompts are estimated with the offline extractor; the run will extract with ${input.extraction.id}, which this plan does not call`,
    );
  const scratch = mkdtempSync(join(tmpdir(), 'stalebench-plan-'));
  try {
    // The scratch probes are written through the run log like any run's (its chain is bound to a run id).
    writeJsonAtomic(join(scratch, 'manifest.json'), { version: RUN_LOG_VERSION, runId: 'plan' });
    const probes = await runSetupPhase({
      runId: 'plan',
      runDir: scratch,
      systems: input.spec.systems,
      modes: input.spec.modes,
      scenarios: input.scenarios,
      k: input.spec.k,
      embedder: input.embedder,
      extraction: simulated ? input.simExtraction : input.extraction,
      loadBackend: (id, settings) => loadBackend(id, { ...settings, engine: defaultEngineSpec() }),
    });
    for (const [id, probe] of stored) probes.set(id, probe);
    return probes;
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

const count = (n: number) => n.toLocaleString('en-US');
const range = (r: { min: number; max: number }) => (r.min === r.max ? count(r.min) : `${count(r.min)}–${count(r.max)}`);
const dollars = (value: number) => `$${value < 0.01 ? value.toFixed(4) : value.toFixed(2)}`;

/** The plan table's columns: title, cell text and alignment (counts right-aligned under their title). */
const PLAN_COLUMNS: readonly { title: string; cell: (row: PlanRow) => string; right?: true }[] = [
  { title: 'experiment', cell: (row) => row.experiment },
  { title: 'system', cell: (row) => row.system },
  { title: 'mode', cell: (row) => row.mode },
  { title: 'arm', cell: (row) => row.arm },
  { title: 'units', cell: (row) => String(row.units), right: true },
  { title: 'done', cell: (row) => String(row.done), right: true },
  { title: 'calls', cell: (row) => range(row.calls) },
  { title: 'cached', cell: (row) => (row.cached === null ? 'not checked' : count(row.cached)) },
];

/** The plan's rows under their header, every column as wide as its widest cell, two spaces between columns. */
function planTable(rows: readonly PlanRow[]): string[] {
  const cells = [PLAN_COLUMNS.map((c) => c.title), ...rows.map((row) => PLAN_COLUMNS.map((c) => c.cell(row)))];
  const widths = PLAN_COLUMNS.map((_, i) => Math.max(...cells.map((line) => line[i]!.length)));
  return cells.map((line) =>
    line
      .map((text, i) => (PLAN_COLUMNS[i]!.right ? text.padStart(widths[i]!) : text.padEnd(widths[i]!)))
      .join('  ')
      .trimEnd(),
  );
}

/** The plan as printed by `--dry-run`. */
export function formatPlan(plan: RunPlan): string {
  const lines = ['plan (nothing written, nothing sent):', '', ...planTable(plan.rows)];
  lines.push('', 'per model:');
  for (const model of plan.models) {
    if (model.simulated) {
      lines.push(`  ${model.model}: sim (simulated) — sends nothing, costs nothing`);
      continue;
    }
    const costAt = (usd: PlanModel['usd'], price: Price | null, what: string) =>
      usd === null
        ? `${what}price unknown (give one with --prices <file>)`
        : `${what}${dollars(usd.low)}–${dollars(usd.high)} at $${price!.input}/$${price!.output} per 1M tokens (${price!.source})`;
    const cost = model.batch
      ? `${costAt(model.usd, model.price, 'synchronous ')}; ${costAt(model.batch.usd, model.batch.price, 'batch (--batch, billed) ')}`
      : costAt(model.usd, model.price, '');
    lines.push(
      `  ${model.model}: ${range(model.send)} calls to send, ${count(model.cached)} cached; input ${range(model.inputTokens)} tokens (${model.tokenizer}); output ${range(model.outputTokens)} tokens; ${cost}`,
    );
  }
  const total = (usdOf: (m: PlanModel) => PlanModel['usd'], what: string) => {
    const known = plan.models.filter((m) => !m.simulated && usdOf(m) !== null);
    const unknown = plan.models.filter((m) => !m.simulated && usdOf(m) === null);
    if (known.length > 0)
      lines.push(
        `${what}: ${dollars(known.reduce((a, m) => a + usdOf(m)!.low, 0))}–${dollars(known.reduce((a, m) => a + usdOf(m)!.high, 0))}${unknown.length > 0 ? ` plus ${unknown.map((m) => m.model).join(', ')} (price unknown)` : ''}`,
      );
  };
  if (plan.models.some((m) => m.batch)) {
    total((m) => m.usd, 'total synchronous');
    total((m) => m.batch?.usd ?? null, 'total with --batch (billed)');
  } else total((m) => m.usd, 'total');
  lines.push(
    `output range: ${LOW_OUTPUT_TOKENS} tokens per call (a bare JSON answer) to the token cap (reasoning models may spend it all)`,
  );
  for (const note of plan.notes) lines.push(`note: ${note}`);
  if (plan.limited) lines.push(limitedLine(plan.limited));
  return lines.join('\n');
}

/** The plan's upper cost over real models: a number, or null when any real model that would send has no price. */
export function planUpperUsd(plan: RunPlan): number | null {
  let total = 0;
  for (const model of plan.models) {
    if (model.simulated || model.send.max === 0) continue;
    const usd = model.batch ? model.batch.usd : model.usd;
    if (usd === null) return null;
    total += usd.high;
  }
  return total;
}
