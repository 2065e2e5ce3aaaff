// `sim`: an offline, deterministic stand-in for a decision model. Its numbers are simulated, never results.
import { assertsRevoked } from '../analysis/exposure.js';
import type { Scenario } from '../scenarios/scenario.js';
import type { DecisionModel, DecisionRequest, DecisionResponse } from './decision-model.js';
import { HARDEN } from './prompts.js';
import { sha256 } from './json-files.js';

/**
 * The simulator's parameters. The model: an agent that reads a fact asserting the revoked policy (by the
 * paper's lexical exposure rule, stale-retrieval.md §7.2) follows it with probability
 * `followRevoked × (guardrailFactor if the system prompt carries a safety rule) × (hardenFactor if hardened)`;
 * with no such fact in context it always picks the safe action. These are round, documented defaults chosen
 * to exercise every code path, not estimates of any real model.
 */
export interface SimParameters {
  followRevoked: number;
  guardrailFactor: number;
  hardenFactor: number;
  /** Share of replies the simulator garbles on purpose, to exercise parse-failure accounting. */
  unparseableRate: number;
  /** Share of replies whose reason quotes the followed fact verbatim (the rest paraphrase it): the output filter keys on this. */
  quoteRate: number;
}

export const DEFAULT_SIM_PARAMETERS: SimParameters = { followRevoked: 0.5, guardrailFactor: 0.5, hardenFactor: 0.8, unparseableRate: 0, quoteRate: 0.5 };

/** Settings of `createSimDecisionModel`. */
export interface SimDecisionModelSettings {
  /** The scenarios of the run: the simulator finds a request's scenario by its action list. */
  scenarios: readonly Scenario[];
  /** Run seed: the same seed, trial and prompt always give the same reply. */
  seed: number;
  parameters?: Partial<SimParameters>;
}

/** A uniform draw in [0, 1) from sha256(seed, trial, messages). */
function draw(seed: number, request: DecisionRequest, salt: string): number {
  const digest = sha256(JSON.stringify([seed, request.trial, salt, request.messages]));
  return Number.parseInt(digest.slice(0, 13), 16) / 2 ** 52;
}

/** The `- fact` lines of the user message (the only facts a real model would see). */
function factsOf(request: DecisionRequest): string[] {
  const user = request.messages.find((message) => message.role === 'user')?.content ?? '';
  const block = user.split('\n\n')[0] ?? '';
  return block.split('\n').filter((line) => line.startsWith('- ')).map((line) => line.slice(2));
}

/**
 * Creates the simulator. Deterministic per (seed, trial, prompt); labelled `sim (simulated)` everywhere.
 *
 * @example
 * const sim = createSimDecisionModel({ scenarios, seed: 0 });
 * const { text } = await sim.decide({ messages, actions: scenario.actions, trial: 3 });
 */
export function createSimDecisionModel(settings: SimDecisionModelSettings): DecisionModel {
  const parameters: SimParameters = { ...DEFAULT_SIM_PARAMETERS, ...settings.parameters };
  const byActions = new Map(settings.scenarios.map((scenario) => [scenario.actions.join('\u0000'), scenario]));

  async function decide(request: DecisionRequest): Promise<DecisionResponse> {
    const scenario = byActions.get(request.actions.join('\u0000'));
    if (!scenario) throw new Error(`sim: no scenario of this run has the actions ${JSON.stringify(request.actions)}`);
    const system = request.messages.find((message) => message.role === 'system')?.content ?? '';
    const facts = factsOf(request);
    const revoked = facts.find((fact) => assertsRevoked(fact, scenario.v1, scenario.v2));
    let probability = revoked === undefined ? 0 : parameters.followRevoked;
    if (scenario.guardrail !== null && system.includes(scenario.guardrail)) probability *= parameters.guardrailFactor;
    if (system.startsWith(HARDEN)) probability *= parameters.hardenFactor;
    const u = draw(settings.seed, request, 'decision');
    const [unsafe, safe] = scenario.actions;
    const action = u < probability ? unsafe : safe;
    const followed = action === unsafe ? revoked : facts.find((fact) => fact !== revoked);
    const quote = draw(settings.seed, request, 'quote') < parameters.quoteRate;
    const reason = !followed ? 'No retrieved fact supports the unsafe action.' : quote ? `Following the retrieved fact: ${followed}` : 'Following the retrieved policy.';
    const garbled = draw(settings.seed, request, 'garble') < parameters.unparseableRate;
    const text = garbled ? 'sim: I cannot decide.' : JSON.stringify({ action, reason });
    return {
      text,
      finishReason: 'stop',
      cached: false,
      attempts: 0,
      requested: {},
      sent: {},
      responseModel: 'sim',
      systemFingerprint: null,
      usage: null,
      headers: {},
      notes: [`sim: p(unsafe)=${probability.toFixed(3)} u=${u.toFixed(3)}`],
    };
  }

  return {
    description: { id: 'sim', label: 'sim (simulated)', kind: 'sim', simulated: true, baseURL: null, settings: { ...parameters, seed: settings.seed } },
    decide,
    providerDefaultTemperature: () => [],
  };
}
