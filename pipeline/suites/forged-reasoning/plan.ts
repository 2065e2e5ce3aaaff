// `--dry-run` for forged-reasoning: its units and calls per defence, and the exact prompts of every trial-unit call
// (memory through the write-time screens is deterministic), without writing or sending anything.
import type { ForgedReasoningScenario, ForgeryKind } from '../../../scenarios/forged-reasoning-scenario.js';
import { BENIGN_STYLES } from '../../../scenarios/forged-reasoning-scenario.js';
import type { ChatMessage, DecisionModel, DecisionRequest } from '../../models/decision-model.js';
import { unitDefences } from '../../defences/compose.js';
import { PROMPT_AGENT, type ReasoningAgent } from './agents.js';
import { attackerUnitId, forgedReasoningUnitId, type ForgedReasoningLine } from './records.js';
import { TARGET_SUCCESSES } from './attacker-loop.js';
import { enumerateForgedReasoningUnits } from './suite.js';
import { attackSetup, benignSetup, cleanSetup, conditionsFor } from './trial-unit.js';
import type { DecisionSetup } from './decision.js';

/** One plan row: a defence's trial units, or the attacker loops. */
export interface ForgedReasoningPlanRow {
  arm: string;
  units: number;
  done: number;
  calls: { min: number; max: number };
  cached: number | null;
}

/** What each model would be sent: a call range, the cached count, and the prompts of the calls to send. */
export interface ForgedReasoningPlanCalls {
  min: number;
  max: number;
  cached: number;
  prompts: ChatMessage[][];
}

/** Inputs of the plan. */
export interface ForgedReasoningPlanInput {
  scenarios: readonly ForgedReasoningScenario[];
  models: readonly DecisionModel[];
  defences: readonly string[];
  forgeries: readonly ForgeryKind[];
  trials: number;
  retryErrors: boolean;
  /** The attacker: `mutation-engine`, a model, or null. */
  attacker: { id: string; model?: DecisionModel } | null;
  maxQueries: number;
  /** The agent whose opening messages the calls send; default the prompt harness. */
  agent?: ReasoningAgent;
  existing: ReadonlyMap<string, ForgedReasoningLine>;
  cacheLookup: (model: DecisionModel, request: DecisionRequest) => boolean;
}

/** The messages a setup sends under a defence (its write-time screens applied). */
function messagesOf(
  scenario: ForgedReasoningScenario,
  setup: DecisionSetup,
  defence: string,
  agent: ReasoningAgent,
): ChatMessage[] {
  const { screens } = unitDefences({ uses: [defence], guard: false, poem: false });
  const now = new Date();
  const kept = setup.writes.filter((write, index) =>
    screens.every(
      ({ screen }) =>
        screen({ records: [{ id: `write-${index}`, text: write.text, fields: {} }], now }).withheld.length === 0,
    ),
  );
  return agent.openingMessages(
    scenario,
    kept.map((write) => write.text),
  );
}

/** Plans the run: rows by defence (plus the attacker loops) and the calls per model alias. */
export function planForgedReasoning(input: ForgedReasoningPlanInput): {
  rows: ForgedReasoningPlanRow[];
  calls: Map<string, ForgedReasoningPlanCalls>;
} {
  const { trials, attackers } = enumerateForgedReasoningUnits({
    scenarioIds: input.scenarios.map((scenario) => scenario.id),
    modelIds: input.models.map((model) => model.description.id),
    defences: input.defences,
    trials: input.trials,
    attacker: input.attacker?.id ?? null,
  });
  const isDone = (id: string) => {
    const previous = input.existing.get(id);
    return previous !== undefined && !(input.retryErrors && previous.status === 'error');
  };
  const rows = new Map<string, ForgedReasoningPlanRow>();
  const calls = new Map<string, ForgedReasoningPlanCalls>();
  const callsOf = (alias: string) =>
    calls.get(alias) ?? calls.set(alias, { min: 0, max: 0, cached: 0, prompts: [] }).get(alias)!;
  const rowOf = (arm: string) =>
    rows.get(arm) ?? rows.set(arm, { arm, units: 0, done: 0, calls: { min: 0, max: 0 }, cached: 0 }).get(arm)!;
  const conditions = conditionsFor(input.forgeries);
  for (const key of trials) {
    const row = rowOf(key.defence);
    row.units += 1;
    const unitId = forgedReasoningUnitId(key);
    if (isDone(unitId)) {
      row.done += 1;
      continue;
    }
    const scenario = input.scenarios.find((s) => s.id === key.scenario)!;
    const model = input.models.find((m) => m.description.id === key.model)!;
    const sample = (condition: string) => `${unitId}#${condition}`;
    const setups = [
      cleanSetup(scenario, sample('clean')),
      ...conditions.map((c) => attackSetup(scenario, c, sample(c))),
      ...BENIGN_STYLES.map((style) => benignSetup(scenario, style, sample(`benign:${style}`))),
    ];
    const entry = callsOf(key.model);
    for (const setup of setups) {
      const messages = messagesOf(scenario, setup, key.defence, input.agent ?? PROMPT_AGENT);
      const hit = input.cacheLookup(model, {
        messages,
        trial: key.trial,
        sample: setup.sample,
        metadata: { scenario: scenario.id },
      });
      row.calls.min += 1;
      row.calls.max += 1;
      entry.min += 1;
      entry.max += 1;
      if (hit) {
        row.cached! += 1;
        entry.cached += 1;
      } else entry.prompts.push(messages);
    }
  }
  // An attacker loop: at least ten attempts (fewer queries allowed: all of them), each a clean and a poisoned victim call.
  const attempts = { min: Math.min(TARGET_SUCCESSES, input.maxQueries), max: input.maxQueries };
  for (const key of attackers) {
    const row = rowOf(`attacker: ${key.attacker}`);
    row.cached = null;
    row.units += 1;
    if (isDone(attackerUnitId(key))) {
      row.done += 1;
      continue;
    }
    const scenario = input.scenarios.find((s) => s.id === key.scenario)!;
    const prompt = (input.agent ?? PROMPT_AGENT).openingMessages(scenario, [
      ...scenario.memory,
      scenario.forgeries.adaptive.seeds[0] ?? '',
    ]);
    const victim = callsOf(key.model);
    victim.min += 2 * attempts.min;
    victim.max += 2 * attempts.max;
    for (let call = 0; call < 2 * attempts.max; call += 1) victim.prompts.push(prompt);
    row.calls.min += 2 * attempts.min;
    row.calls.max += 2 * attempts.max;
    if (input.attacker?.model) {
      const attacker = callsOf(input.attacker.model.description.id);
      attacker.min += attempts.min;
      attacker.max += attempts.max;
      row.calls.min += attempts.min;
      row.calls.max += attempts.max;
      for (let call = 0; call < attempts.max; call += 1) attacker.prompts.push(prompt);
    }
  }
  return { rows: [...rows.values()], calls };
}
