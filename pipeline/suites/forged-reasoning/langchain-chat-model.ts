// A LangChain chat model (BaseChatModel of @langchain/core) around one of our decision models: `sim` (labelled sim) or
// any OpenAI-compatible endpoint model, so the agent's calls keep the run's cache, retries, budget and call records.
// Tools bound with `bindTools` travel in the text protocol of tool-call-protocol.ts.
import type { BaseChatModelCallOptions, BindToolsInput } from '@langchain/core/language_models/chat_models';
import { BaseChatModel } from '@langchain/core/language_models/chat_models';
import { AIMessage, type BaseMessage } from '@langchain/core/messages';
import type { ChatResult } from '@langchain/core/outputs';
import { convertToOpenAITool } from '@langchain/core/utils/function_calling';
import type { ChatMessage, DecisionModel, DecisionResponse } from '../../models/decision-model.js';
import { parseToolCall, renderToolProtocol, type ToolSpec } from './tool-call-protocol.js';

/** Call options: the bound tools, as the protocol lists them. */
export interface DecisionChatModelCallOptions extends BaseChatModelCallOptions {
  tools?: ToolSpec[];
}

/** What the adapter wraps: one decision's model and the identity of its draws. */
export interface DecisionChatModelSettings {
  model: DecisionModel;
  trial: number;
  /** The decision's sample identity; the agent's n-th call (n > 0) draws as `<sample>:step<n>`. */
  sample: string;
  scenario: string;
}

/** What the adapter puts in each AIMessage's `response_metadata`: the exact messages sent and the model's reply. */
export interface DecisionCallMetadata {
  request: ChatMessage[];
  decision: DecisionResponse;
}

/** Our messages for LangChain's: the protocol appended to the system message, tool results as user messages. */
export function toChatMessages(messages: readonly BaseMessage[], tools: readonly ToolSpec[]): ChatMessage[] {
  const protocol = tools.length > 0 ? renderToolProtocol(tools) : null;
  return messages.map((message): ChatMessage => {
    const type = message.getType();
    const text = message.text;
    if (type === 'system') return { role: 'system', content: protocol ? `${text}\n\n${protocol}` : text };
    if (type === 'ai') return { role: 'assistant', content: text };
    if (type === 'tool') return { role: 'user', content: `Tool result (${message.name ?? 'tool'}): ${text}` };
    return { role: 'user', content: text };
  });
}

/** A bound tool's name, description and argument schema. */
export function toolSpecOf(tool: BindToolsInput): ToolSpec {
  const { function: fn } = convertToOpenAITool(tool);
  return { name: fn.name, description: fn.description ?? '', parameters: fn.parameters };
}

/**
 * The adapter. Labelled with the decision model's label (`sim (simulated)` for the simulator).
 *
 * @example const chat = new DecisionChatModel({ model: sim, trial: 0, sample: 'forged-reasoning/...#clean', scenario: 'ehr_insert_record' });
 */
export class DecisionChatModel extends BaseChatModel<DecisionChatModelCallOptions> {
  private readonly settings: DecisionChatModelSettings;
  private calls = 0;

  constructor(settings: DecisionChatModelSettings) {
    super({});
    this.settings = settings;
  }

  // Called by the base constructor, before `settings` is set.
  _llmType(): string {
    return 'stalebench-decision-model';
  }

  override bindTools(tools: BindToolsInput[], kwargs?: Partial<DecisionChatModelCallOptions>) {
    return this.withConfig({ ...kwargs, tools: tools.map(toolSpecOf) });
  }

  async _generate(messages: BaseMessage[], options: this['ParsedCallOptions']): Promise<ChatResult> {
    const tools = options.tools ?? [];
    const request = toChatMessages(messages, tools);
    const step = this.calls;
    this.calls += 1;
    const decision = await this.settings.model.decide({
      messages: request,
      trial: this.settings.trial,
      sample: step === 0 ? this.settings.sample : `${this.settings.sample}:step${step}`,
      metadata: { scenario: this.settings.scenario },
      ...(options.signal ? { signal: options.signal } : {}),
    });
    const call = parseToolCall(
      decision.text,
      tools.map((tool) => tool.name),
    );
    const metadata: DecisionCallMetadata = { request, decision };
    const message = new AIMessage({
      content: decision.text,
      tool_calls: call ? [{ name: call.name, args: call.args, id: `call_${step}`, type: 'tool_call' }] : [],
      response_metadata: { ...metadata },
    });
    return { generations: [{ text: decision.text, message }] };
  }
}
