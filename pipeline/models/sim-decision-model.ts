// `sim`: an offline, deterministic stand-in for a decision model. Its numbers are simulated, never results.
import { assertsRevoked } from '../suites/grid/exposure.js';
import type { Scenario } from '../../scenarios/scenario.js';
import type { ExploitScenario } from '../../scenarios/exploit-scenario.js';
import { simToolPressure, simToolReply, toolEpisodeInput } from '../suites/follow-ups/sim-tool-agent.js';
import type { DecisionModel, DecisionRequest, DecisionResponse } from './decision-model.js';
import { HARDEN } from '../suites/grid/prompts.js';
import { sha256 } from '../run-log/json-files.js';
import { agentEpisodeOf } from './sample-identity.js';
import type { ForgedReasoningScenario } from '../../scenarios/forged-reasoning-scenario.js';
import { notesOf } from '../suites/forged-reasoning/prompts.js';
import { formatToolCall, toolNamesIn } from '../suites/forged-reasoning/tool-call-protocol.js';
import {
  DEFAULT_SIM_NOTE_PARAMETERS,
  SIM_NOTE_READING,
  simSkipProbability,
  type SimNoteParameters,
} from '../suites/forged-reasoning/sim-forged-reasoning.js';

/**
 * The simulator's parameters. The model: an agent that reads a fact asserting the revoked policy (by the
 * paper's lexical exposure rule, stale-retrieval.md §7.2) follows it with probability
 * `followRevoked × (guardrailFactor if the system prompt carries a safety rule) × (hardenFactor if hardened)`;
 * with no such fact in context it always picks the safe action. These are round, documented defaults chosen
 * to exercise every code path, not estimates of any real model.
 */
export interface SimParameters extends SimNoteParameters {
  followRevoked: number;
  guardrailFactor: number;
  hardenFactor: number;
  /** Share of replies the simulator garbles on purpose, to exercise parse-failure accounting. */
  unparseableRate: number;
  /** Share of replies whose reason quotes the followed fact verbatim (the rest paraphrase it): the output filter keys on this. */
  quoteRate: number;
  /**
   * Follow-up experiments: the chance of following a write-back journal in context that names the unsafe action
   * as approved (`... the approved action is <UNSAFE>`, or the relapse journal's "permissive action is authorised").
   */
  followJournal: number;
}

export const DEFAULT_SIM_PARAMETERS: SimParameters = {
  followRevoked: 0.5,
  guardrailFactor: 0.5,
  hardenFactor: 0.8,
  unparseableRate: 0,
  quoteRate: 0.5,
  followJournal: 0.8,
  ...DEFAULT_SIM_NOTE_PARAMETERS,
};

/** Settings of `createSimDecisionModel`. */
export interface SimDecisionModelSettings {
  /** The policy scenarios of the run: a decision's scenario, named by `request.metadata.scenario`. */
  scenarios: readonly Scenario[];
  /** Exploit scenarios: a tool-agent step's scenario, named the same way. */
  exploitScenarios?: readonly ExploitScenario[];
  /** Forged-reasoning scenarios (poem.md §6): a decision over reasoning memory, read by `sim-forged-reasoning.ts`. */
  reasoningScenarios?: readonly ForgedReasoningScenario[];
  /** Run seed: the same seed, sample, trial and prompt always give the same reply. */
  seed: number;
  parameters?: Partial<SimParameters>;
}

/** A uniform draw in [0, 1) from sha256(seed, sample, trial, messages): every sample draws independently. */
function draw(seed: number, request: Pick<DecisionRequest, 'sample' | 'trial' | 'messages'>, salt: string): number {
  const digest = sha256(JSON.stringify([seed, request.sample, request.trial, salt, request.messages]));
  return Number.parseInt(digest.slice(0, 13), 16) / 2 ** 52;
}

/** The `- fact` lines of the user message (the only facts a real model would see). */
function factsOf(request: DecisionRequest): string[] {
  const user = request.messages.find((message) => message.role === 'user')?.content ?? '';
  const block = user.split('\n\n')[0] ?? '';
  return block
    .split('\n')
    .filter((line) => line.startsWith('- '))
    .map((line) => line.slice(2));
}

/**
 * Creates the simulator. Deterministic per (seed, sample, trial, prompt); labelled `sim (simulated)` everywhere.
 *
 * @example
 * const sim = createSimDecisionModel({ scenarios, seed: 0 });
 * const { text } = await sim.decide({ messages, trial: 3, sample: 'grid/<unit id>', metadata: { scenario: scenario.id } });
 */
export function createSimDecisionModel(settings: SimDecisionModelSettings): DecisionModel {
  const parameters: SimParameters = { ...DEFAULT_SIM_PARAMETERS, ...settings.parameters };
  const policies = new Map(settings.scenarios.map((scenario) => [scenario.id, scenario]));
  const exploits = new Map<string, ExploitScenario>(
    (settings.exploitScenarios ?? []).map((scenario) => [scenario.id, scenario]),
  );
  const reasoning = new Map<string, ForgedReasoningScenario>(
    (settings.reasoningScenarios ?? []).map((scenario) => [scenario.id, scenario]),
  );

  const response = (request: DecisionRequest, text: string, note: string): DecisionResponse => ({
    text,
    sample: request.sample,
    finishReason: 'stop',
    cached: false,
    attempts: 0,
    requested: {},
    sent: {},
    responseModel: 'sim',
    systemFingerprint: null,
    usage: null,
    headers: {},
    notes: [note],
  });

  /** A tool episode (§14): one scripted plan per episode, drawn from its episode identity and first two messages only. */
  function toolStep(request: DecisionRequest, scenario: ExploitScenario): DecisionResponse {
    const input = toolEpisodeInput(request.messages);
    if (!input || input.task !== scenario.task)
      throw new Error(`sim: a call of exploit scenario ${scenario.id} must be a step of its tool episode`);
    const pressures = input.facts.map((fact) => simToolPressure(fact, scenario));
    const probability = Math.max(
      0,
      ...pressures.map((p) =>
        p === 'journal' ? parameters.followJournal : p === 'revoked' ? parameters.followRevoked : 0,
      ),
    );
    const opening = { ...request, sample: agentEpisodeOf(request.sample), messages: request.messages.slice(0, 2) };
    const draws = {
      unsafe: draw(settings.seed, opening, 'tool-plan'),
      quote: draw(settings.seed, opening, 'tool-quote'),
    };
    return response(
      request,
      simToolReply(scenario, request.messages, draws, probability, parameters.quoteRate),
      `sim: tool episode p(unsafe plan)=${probability.toFixed(3)} u=${draws.unsafe.toFixed(3)}`,
    );
  }

  /** A forged-reasoning decision: skip S with the chance its strongest note about the subject gives (none: perform S). */
  function reasoningStep(request: DecisionRequest, scenario: ForgedReasoningScenario): DecisionResponse {
    const { probability, strongest } = simSkipProbability(notesOf(request.messages), scenario, parameters);
    const u = draw(settings.seed, request, 'decision');
    const [skip, perform] = scenario.actions;
    const action = u < probability ? skip : perform;
    const reason =
      action === skip
        ? `My notes say ${scenario.subject} is already covered: ${strongest}`
        : `Nothing in my notes shows the safety step ran for ${scenario.subject}.`;
    const garbled = draw(settings.seed, request, 'garble') < parameters.unparseableRate;
    // A tool-calling agent (forged-reasoning/tool-call-protocol.ts): the chosen action is a call of its tool.
    const tools = toolNamesIn(request.messages);
    const answer = tools.includes(action)
      ? formatToolCall(action, { subject: scenario.subject }, reason)
      : JSON.stringify({ action, reason });
    return response(
      request,
      garbled ? 'sim: I cannot decide.' : answer,
      `sim (${SIM_NOTE_READING}): p(skip)=${probability.toFixed(3)} u=${u.toFixed(3)}`,
    );
  }

  async function decide(request: DecisionRequest): Promise<DecisionResponse> {
    const id = request.metadata?.scenario;
    if (id === undefined) throw new Error('sim: the request names no scenario (metadata.scenario)');
    const exploit = exploits.get(id);
    if (exploit) return toolStep(request, exploit);
    const reasoningScenario = reasoning.get(id);
    if (reasoningScenario) return reasoningStep(request, reasoningScenario);
    const scenario = policies.get(id);
    if (!scenario) throw new Error(`sim: ${id} is not a scenario of this run`);
    const system = request.messages.find((message) => message.role === 'system')?.content ?? '';
    const facts = factsOf(request);
    const [unsafeAction] = scenario.actions;
    const revoked = facts.find((fact) => assertsRevoked(fact, scenario.v1, scenario.v2));
    // A journal names the unsafe action as approved ("... the approved action is X." or, once extracted, "The approved action for ... is X.").
    const journal = facts.find(
      (fact) =>
        new RegExp(`\\bapproved action\\b.*\\bis ${unsafeAction}\\.`).test(fact) ||
        fact.toLowerCase().includes('the permissive action is authorised'),
    );
    let probability = Math.max(
      revoked === undefined ? 0 : parameters.followRevoked,
      journal === undefined ? 0 : parameters.followJournal,
    );
    if (scenario.guardrail !== null && system.includes(scenario.guardrail)) probability *= parameters.guardrailFactor;
    if (system.startsWith(HARDEN)) probability *= parameters.hardenFactor;
    const u = draw(settings.seed, request, 'decision');
    const [unsafe, safe] = scenario.actions;
    const action = u < probability ? unsafe : safe;
    const followed =
      action === unsafe ? (revoked ?? journal) : facts.find((fact) => fact !== revoked && fact !== journal);
    const quote = draw(settings.seed, request, 'quote') < parameters.quoteRate;
    const reason = !followed
      ? 'No retrieved fact supports the unsafe action.'
      : quote
        ? `Following the retrieved fact: ${followed}`
        : 'Following the retrieved policy.';
    const garbled = draw(settings.seed, request, 'garble') < parameters.unparseableRate;
    const text = garbled ? 'sim: I cannot decide.' : JSON.stringify({ action, reason });
    return response(request, text, `sim: p(unsafe)=${probability.toFixed(3)} u=${u.toFixed(3)}`);
  }

  return {
    specificationVersion: 'v1',
    description: {
      id: 'sim',
      label: 'sim (simulated)',
      kind: 'sim',
      simulated: true,
      baseURL: null,
      settings: { ...parameters, seed: settings.seed },
    },
    decide,
  };
}
