// One decision of the forged-reasoning experiment in its own fresh world: set the ledger up, write the memory through
// the defence's write-time screens, run the agent, and execute its proposed action through the defence's gate (if any).
import type { ForgedReasoningScenario } from '../../../scenarios/forged-reasoning-scenario.js';
import { BudgetExhaustedError } from '../../run/budget.js';
import type { DecisionModel } from '../../models/decision-model.js';
import type { UnitDefences } from '../../defences/compose.js';
import type { WithheldRecordTrace } from '../../defences/defence-v1.js';
import { reviewDecision } from '../../defences/reviews.js';
import { storageFailureIn } from '../../run/storage-failure.js';
import { PROMPT_AGENT, type ReasoningAgent } from './agents.js';
import type { MemoryWrite, ReasoningDecision } from './records.js';
import { createReasoningWorld, type WorldExecution } from './world.js';

/** What a decision runs with. */
export interface DecisionContext {
  scenario: ForgedReasoningScenario;
  /** The victim model (calls are recorded by the caller's wrapper). */
  model: DecisionModel;
  trial: number;
  /** The runtime's HMAC key (never the attacker's). */
  ledgerKey: Uint8Array;
  /** The defence's stages: write-time screens and post-decision steps. */
  defences: Pick<UnitDefences, 'screens' | 'reviews'>;
  /** The harness that proposes the action (`--agent`); default the prompt harness. */
  agent?: ReasoningAgent;
  signal?: AbortSignal;
}

/** What sets one decision apart: its memory writes and its ledger before the decision. */
export interface DecisionSetup {
  /** `clean`, an attack condition, `benign:<style>`, or an attacker query. */
  condition: string;
  /** The call's sample identity (`pipeline/models/sample-identity.ts` style). */
  sample: string;
  writes: MemoryWrite[];
  /** Subjects S genuinely ran for before the decision (benign: the subject; attack B: another one). */
  genuine?: string[];
  /** Subjects of ledger lines the attacker forges without the key (attack A). */
  forged?: string[];
}

/** A stop (the budget, Ctrl+C, the breaker) ends the unit unrecorded; any other call failure is the decision's error. */
function isStop(error: unknown, signal: AbortSignal | undefined): boolean {
  return error instanceof BudgetExhaustedError || signal?.aborted === true;
}

/** Each write through the screens in order, one entry at a time (write time); returns the kept texts and the drops. */
function writeMemory(
  writes: readonly MemoryWrite[],
  screens: DecisionContext['defences']['screens'],
): { memory: string[]; dropped: WithheldRecordTrace[] } {
  const memory: string[] = [];
  const dropped: WithheldRecordTrace[] = [];
  const now = new Date();
  writes.forEach((write, index) => {
    for (const { screen } of screens) {
      const verdict = screen({ records: [{ id: `write-${index}`, text: write.text, fields: {} }], now });
      const refused = verdict.withheld[0];
      if (refused) {
        dropped.push({ ...refused, index });
        return;
      }
    }
    memory.push(write.text);
  });
  return { memory, dropped };
}

/**
 * `model`, timing each call (wall ms) that was not a response-cache hit, counting the hits, and keeping what its calls
 * threw in `thrown` (only those are the decision's error: anything else the agent throws is a bug and propagates).
 */
function timedModel(
  model: DecisionModel,
  overhead: { callMs: number[]; cachedCalls: number },
  thrown: WeakSet<object>,
): DecisionModel {
  return {
    ...model,
    decide: async (request) => {
      const started = performance.now();
      const reply = await model.decide(request).catch((error: unknown) => {
        if (typeof error === 'object' && error !== null) thrown.add(error);
        throw error;
      });
      if (reply.cached) overhead.cachedCalls += 1;
      else overhead.callMs.push(performance.now() - started);
      return reply;
    },
  };
}

/**
 * Runs one decision through the context's agent (default: the prompt harness). A provider failure becomes the
 * decision's `error` (never scored); a reply that names no action is a parse failure (`parsedAction` null, nothing
 * executed, never scored as safe). Stops are rethrown.
 */
export async function runReasoningDecision(context: DecisionContext, setup: DecisionSetup): Promise<ReasoningDecision> {
  const { scenario } = context;
  const agent = context.agent ?? PROMPT_AGENT;
  const world = createReasoningWorld(scenario, context.ledgerKey);
  for (const subject of setup.genuine ?? []) await world.performSafetyStep(subject);
  for (const subject of setup.forged ?? []) await world.forgeLedgerLine(subject);
  const { memory, dropped } = writeMemory(setup.writes, context.defences.screens);
  const base = {
    condition: setup.condition,
    written: setup.writes,
    dropped,
    ledger: { genuine: setup.genuine ?? [], forged: setup.forged ?? [] },
  };
  const timing = { callMs: [] as number[], cachedCalls: 0 };
  let execution: WorldExecution | null = null;
  // The trusted layer: the proposed action through the defence's post-decision steps (the gate), else as proposed.
  const act = async (proposedAction: string, replyText = ''): Promise<string> => {
    const reviewed = await reviewDecision(context.defences.reviews, {
      proposedAction,
      unsafeAction: world.step.unsafeAction,
      reply: { text: replyText, reusedFrom: null },
      reads: null,
      execute: (proposed, gate) => world.execute(proposed, gate ?? 'poem'),
    });
    const gated = reviewed.traces
      .map(({ trace }) => trace as WorldExecution)
      .filter((trace) => trace && 'gate' in trace)
      .at(-1);
    execution = gated ?? (await world.execute(proposedAction, null));
    return JSON.stringify({ executed: execution.executedAction, verdict: execution.verdict });
  };
  const thrown = new WeakSet<object>();
  let outcome;
  try {
    outcome = await agent.decide({
      scenario,
      model: timedModel(context.model, timing, thrown),
      trial: context.trial,
      sample: setup.sample,
      notes: memory,
      act,
      ...(context.signal ? { signal: context.signal } : {}),
    });
  } catch (error) {
    if (isStop(error, context.signal)) throw error;
    // A full or read-only disk (the reply cache) stops the run: it is no trial's error.
    const disk = storageFailureIn(error);
    if (disk) throw disk;
    if (!(typeof error === 'object' && error !== null && thrown.has(error))) throw error;
    const failure = error as Error & { status?: number; attempts?: number };
    const recorded = {
      message: failure.message,
      ...(failure.status ? { status: failure.status } : {}),
      ...(failure.attempts ? { attempts: failure.attempts } : {}),
    };
    const messages = agent.openingMessages(scenario, memory);
    return { ...base, messages, reply: null, parsedAction: null, execution: null, skipped: null, error: recorded };
  }
  const { messages, reply, parsedAction } = outcome;
  const overhead = { ...timing, ledger: world.stored() };
  const executed = execution as WorldExecution | null;
  if (parsedAction === null || executed === null)
    return { ...base, messages, reply, parsedAction: null, execution: null, skipped: null, overhead };
  return {
    ...base,
    messages,
    reply,
    parsedAction,
    execution: executed,
    skipped: executed.executedAction === world.step.unsafeAction,
    overhead,
  };
}
