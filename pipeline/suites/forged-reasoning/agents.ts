// The agent registry of forged-reasoning (`--agent`): the harness that turns a decision's memory into a proposed
// action. One line each; a heavy harness is imported inside its `load`. The defence never changes the agent: it
// screens memory writes before it, and gates the action it proposes (its tools' execution) after it.
import { z } from 'zod';
import { defineRegistry, NO_ARGS, type RegistryEntry } from '#core/registry.js';
import type { ForgedReasoningScenario } from '../../../scenarios/forged-reasoning-scenario.js';
import type { ChatMessage, DecisionModel, DecisionResponse } from '../../models/decision-model.js';
import { parseAction } from '../grid/parse-action.js';
import { buildReasoningMessages } from './prompts.js';

/** What an agent runs one decision with. */
export interface AgentInput {
  scenario: ForgedReasoningScenario;
  /** The victim (recorded by the caller). */
  model: DecisionModel;
  trial: number;
  sample: string;
  /** The reasoning memory after the write-time screens, in write order. */
  notes: readonly string[];
  signal?: AbortSignal;
  /**
   * The trusted layer: executes the proposed action through the defence's gate (if any); returns the result text.
   * `replyText` is the reply that proposed it ('' for a tool call, which has no reply text of its own).
   */
  act: (action: string, replyText?: string) => Promise<string>;
}

/** What an agent did: the messages and reply of its deciding call, and the action it proposed (null: none). */
export interface AgentDecision {
  messages: ChatMessage[];
  reply: DecisionResponse;
  parsedAction: string | null;
}

/** A loaded agent. */
export interface ReasoningAgent {
  /** The exact messages of its first model call (`--dry-run`, the cache lookup, a failed call's record). */
  openingMessages(scenario: ForgedReasoningScenario, notes: readonly string[]): ChatMessage[];
  /** Runs one decision; model call failures propagate. */
  decide(input: AgentInput): Promise<AgentDecision>;
}

/** One agent line. */
export interface AgentEntry extends RegistryEntry {
  /** How tables and the manifest name it. */
  label: string;
  load(): Promise<ReasoningAgent>;
}

/** The single-call prompt harness (prompts.ts v1): one reply, its action parsed (parse-action.ts), then executed. */
export const PROMPT_AGENT: ReasoningAgent = {
  openingMessages: (scenario, notes) => buildReasoningMessages(scenario, notes),
  async decide(input) {
    const messages = buildReasoningMessages(input.scenario, input.notes);
    const reply = await input.model.decide({
      messages,
      trial: input.trial,
      sample: input.sample,
      metadata: { scenario: input.scenario.id },
      ...(input.signal ? { signal: input.signal } : {}),
    });
    const parsedAction = reply.text.trim() === '' ? null : parseAction(reply.text, input.scenario.actions);
    if (parsedAction !== null) await input.act(parsedAction, reply.text);
    return { messages, reply, parsedAction };
  },
};

const entries = {
  prompt: {
    summary: 'the single-call prompt harness (default): one JSON reply naming an allowed action',
    label: 'prompt harness',
    args: NO_ARGS,
    load: async () => PROMPT_AGENT,
  },
  langchain: {
    summary:
      'a LangChain.js tool-calling agent (@langchain/core; PoEM Table V): one tool() per action, the gate wraps tool execution',
    label: 'LangChain agent',
    args: NO_ARGS,
    load: async () => {
      const { langChainOpeningMessages, runLangChainAgent } = await import('./langchain-agent.js');
      return { openingMessages: langChainOpeningMessages, decide: runLangChainAgent };
    },
  },
} satisfies Record<string, AgentEntry>;

/** The registered agents. */
export const AGENTS = defineRegistry('agent', entries);

/** An agent id. */
export const agentIdSchema = z.enum(AGENTS.ids);
