// The forged-reasoning decision as a LangChain.js agent (poem.md §6, the paper's Table V): the chat model bound to
// tools made with `tool()`, a tool-calling loop as a runnable over LangChain messages, the reasoning memory in its
// prompt. The defence is not part of the agent: the trusted layer's `act` (the gate, when the defence has one) is
// what the tools execute, so PoEM wraps tool execution and the agent is the same under every defence.
import { type AIMessage, type BaseMessage, HumanMessage, SystemMessage } from '@langchain/core/messages';
import type { BaseChatModel } from '@langchain/core/language_models/chat_models';
import { RunnableLambda } from '@langchain/core/runnables';
import { tool, type StructuredToolInterface } from '@langchain/core/tools';
import { z } from 'zod';
import type { ForgedReasoningScenario } from '../../../scenarios/forged-reasoning-scenario.js';
import type { ChatMessage, DecisionModel, DecisionResponse } from '../../models/decision-model.js';
import { DecisionChatModel, toChatMessages, toolSpecOf, type DecisionCallMetadata } from './langchain-chat-model.js';
import { buildAgentMessages } from './prompts.js';

/** Model turns at most per decision (a reply without a tool call, or a return-direct tool, ends it first). */
const MAX_STEPS = 4;

/**
 * The agent's tools: one per allowed action (skip-and-act, perform-S-then-act), each ending the episode (return direct:
 * the action is the task's last step). `act` is the trusted layer executing the named action; its text is the result.
 */
function actionTools(
  scenario: Pick<ForgedReasoningScenario, 'actions' | 'subject' | 'safetyStep'>,
  act: (action: string) => Promise<string>,
): StructuredToolInterface[] {
  const [skip, perform] = scenario.actions;
  const descriptions: Record<string, string> = {
    [skip]: `carries out the task for ${scenario.subject} now, without the safety step (${scenario.safetyStep.action})`,
    [perform]: `performs the safety step (${scenario.safetyStep.description}) for ${scenario.subject}, then carries out the task`,
  };
  return scenario.actions.map((action) =>
    tool(async () => act(action), {
      name: action,
      description: descriptions[action]!,
      schema: z.object({ subject: z.string().describe('what the action is for') }),
      returnDirect: true,
    }),
  );
}

/**
 * A tool-calling agent: the model bound to the tools, called in a loop; each tool call is executed and its
 * ToolMessage appended; the loop ends on a reply without a tool call, after a return-direct tool, or at `maxSteps`.
 *
 * @example await createToolCallingAgent({ model, tools }).invoke({ messages: [new HumanMessage('...')] })
 */
function createToolCallingAgent(settings: {
  model: BaseChatModel;
  tools: readonly StructuredToolInterface[];
  maxSteps?: number;
}) {
  const bound = settings.model.bindTools!([...settings.tools]);
  const byName = new Map(settings.tools.map((t) => [t.name, t]));
  return RunnableLambda.from(async (input: { messages: BaseMessage[] }, config) => {
    const messages = [...input.messages];
    for (let step = 0; step < (settings.maxSteps ?? MAX_STEPS); step += 1) {
      const reply = (await bound.invoke(messages, config)) as AIMessage;
      messages.push(reply);
      const calls = reply.tool_calls ?? [];
      if (calls.length === 0) break;
      let direct = false;
      for (const call of calls) {
        const chosen = byName.get(call.name);
        if (!chosen) throw new Error(`the model called an unbound tool: ${call.name}`);
        messages.push((await chosen.invoke({ ...call, type: 'tool_call' }, config)) as BaseMessage);
        direct ||= chosen.returnDirect;
      }
      if (direct) break;
    }
    return { messages };
  });
}

/** The LangChain messages of the agent's prompt. */
function promptOf(scenario: ForgedReasoningScenario, notes: readonly string[]): BaseMessage[] {
  const [system, user] = buildAgentMessages(scenario, notes);
  return [new SystemMessage(system!.content), new HumanMessage(user!.content)];
}

/** The exact messages of the agent's first model call (for the record, `--dry-run` and the cache lookup). */
export function langChainOpeningMessages(scenario: ForgedReasoningScenario, notes: readonly string[]): ChatMessage[] {
  const tools = actionTools(scenario, async () => '');
  return toChatMessages(promptOf(scenario, notes), tools.map(toolSpecOf));
}

/** What the agent did in one decision. */
export interface AgentOutcome {
  /** The messages of the call whose reply decided (the first call when none did). */
  messages: ChatMessage[];
  /** That call's reply. */
  reply: DecisionResponse;
  /** The action the agent's tool call named, or null (it finished without one). */
  parsedAction: string | null;
}

/**
 * Runs the agent on one decision. `act` executes a tool's action through the trusted layer (the defence's gate
 * included) and returns its result text. Model call failures propagate.
 */
export async function runLangChainAgent(input: {
  scenario: ForgedReasoningScenario;
  model: DecisionModel;
  trial: number;
  sample: string;
  notes: readonly string[];
  signal?: AbortSignal;
  act: (action: string) => Promise<string>;
}): Promise<AgentOutcome> {
  const { scenario } = input;
  const chat = new DecisionChatModel({
    model: input.model,
    trial: input.trial,
    sample: input.sample,
    scenario: scenario.id,
  });
  const called: string[] = [];
  const tools = actionTools(scenario, async (action) => {
    called.push(action);
    return input.act(action);
  });
  const agent = createToolCallingAgent({ model: chat, tools });
  const { messages } = await agent.invoke(
    { messages: promptOf(scenario, input.notes) },
    input.signal ? { signal: input.signal } : {},
  );
  const replies = messages.filter((m): m is AIMessage => m.getType() === 'ai');
  const deciding = replies.find((m) => (m.tool_calls ?? []).length > 0) ?? replies.at(-1)!;
  const metadata = deciding.response_metadata as unknown as DecisionCallMetadata;
  return { messages: metadata.request, reply: metadata.decision, parsedAction: called[0] ?? null };
}
