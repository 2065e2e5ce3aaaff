// The plan of a run before any money moves: units, calls to send vs cached, tokens and dollars per model (`--dry-run`).
import type { Embedder } from '../../backends/embedder.js';
import type { ExtractionModel } from '../../backends/extraction-model.js';
import type { ExploitScenario } from '../../scenarios/exploit-scenario.js';
import type { ForgedReasoningScenario } from '../../scenarios/forged-reasoning-scenario.js';
import type { Scenario } from '../../scenarios/scenario.js';
import type { ChatMessage, DecisionModel, DecisionRequest } from '../models/decision-model.js';
import { costOf, type Price } from '../models/prices.js';
import type { RunSpec } from './run-spec.js';
import { createTokenCounter } from '../models/token-count.js';
import type { LimitedMark } from '../run-log/run-log.js';
import { limitedLine, limitedOf } from './unit-limit.js';
import type { EvalPhaseRulesV1 } from './eval-phase-v1.js';

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
  /** Whether the experiment runs on the exploit scenarios (else the policy ones). */
  exploit: boolean;
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

/** What planning asks of the run's eval phase: its plan, and the axes `--limit` counts cells by. */
export interface PlanRules extends Pick<EvalPhaseRulesV1<unknown, unknown>, 'axes'> {
  plan(input: PlanInput): Promise<RunPlan>;
}

/**
 * Plans a run without writing to its run directory or sending anything (each phase plans its own units: the grid
 * builds its prompts exactly as the run will), marked `limited` under `--limit`.
 */
export async function planRun(input: PlanInput, phase: PlanRules): Promise<RunPlan> {
  const plan = await phase.plan(input);
  const limited = limitedOf(input.spec, phase);
  return limited ? { ...plan, limited } : plan;
}

/**
 * One model's line of the plan: calls to send (a range), cached calls, tokens from the prompts of the calls to send,
 * and their cost at the model's price (and batch price under `--batch`).
 */
export async function modelPlan(
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
