// Answers mem0's own additive-extraction prompt with an ExtractionModel, as a LangChain-style chat model mem0 can call.
import type { ExtractionModel } from './extraction-model.js';

/** A message as mem0 hands it over: LangChain message objects (via LangchainLLM) or plain `{role, content}`. */
export interface ChatMessageLike {
  content: unknown;
  role?: string;
}

/**
 * The part of a LangChain chat model that mem0's `langchain` LLM provider uses for the additive era:
 * `invoke(messages)` returning `{content}` (`withStructuredOutput` is only tried for the legacy prompts).
 */
export interface Mem0ChatModel {
  /** Read by mem0 as the model name. */
  readonly model: string;
  /** One chat turn; `content` is the JSON text mem0 parses. */
  invoke(messages: readonly ChatMessageLike[]): Promise<{ content: string }>;
}

// ADDITIVE_EXTRACTION_PROMPT of mem0-ts/src/oss/src/prompts (3.x): the additive era's only operation.
const ADDITIVE_MARKER = 'Your sole operation is ADD';
// generateAdditiveExtractionPrompt: "## New Messages\n<role: content lines>\n\n## Observation Date\n...".
const NEW_MESSAGES = /## New Messages\n([\s\S]*?)\n\n## Observation Date\n/;

const textOf = (message: ChatMessageLike): string =>
  typeof message.content === 'string' ? message.content : JSON.stringify(message.content);

/**
 * The user-message contents inside mem0's extraction prompt. mem0 joins the new messages as
 * `${role}: ${content}` lines; assistant and system turns are dropped.
 *
 * @example newUserMessages('## New Messages\nuser: A. B.\n\n## Observation Date\n2026-12-02') // ['A. B.']
 */
export function newUserMessages(prompt: string): string[] {
  const section = NEW_MESSAGES.exec(prompt)?.[1];
  if (section === undefined) throw new Error('mem0 extraction prompt without a "## New Messages" section');
  return section.split(/\n(?=(?:user|assistant|system): )/).flatMap((turn) => {
    const match = /^(user|assistant|system): ([\s\S]*)$/.exec(turn);
    return match?.[1] === 'user' && match[2] !== undefined ? [match[2]] : [];
  });
}

/**
 * Creates the chat model: it checks that mem0 sent its additive-extraction prompt, calls
 * `extraction.extractFacts` on each new user message and replies in mem0's `AdditiveExtractionSchema` shape,
 * `{"memory": [{"id": "0", "text": ..., "attributed_to": "user"}, ...]}` (sequential ids, no links).
 *
 * @example
 * const model = createMem0ChatModel(createSimExtractionModel());
 * new Memory({ llm: { provider: 'langchain', config: { model } }, ... });
 */
export function createMem0ChatModel(extraction: ExtractionModel): Mem0ChatModel {
  return {
    model: extraction.id,
    async invoke(messages) {
      const texts = messages.map(textOf);
      // The system prompt describes the same section headings; the user prompt (sent last) fills them in.
      const prompt = texts.filter((text) => NEW_MESSAGES.test(text)).at(-1);
      if (!texts.some((text) => text.includes(ADDITIVE_MARKER)) || prompt === undefined) {
        throw new Error(`${extraction.id} answers only mem0's additive extraction prompt ("${ADDITIVE_MARKER}")`);
      }
      const facts: string[] = [];
      for (const message of newUserMessages(prompt)) facts.push(...(await extraction.extractFacts(message)));
      const memory = facts.map((text, index) => ({ id: String(index), text, attributed_to: 'user' }));
      return { content: JSON.stringify({ memory }) };
    },
  };
}
