// Input tokens of the exact messages a call sends, with the model family's tokenizer (gpt-tokenizer); an estimate, labelled, for other models.
import { createRequire } from 'node:module';
import type { ChatMessage } from './decision-model.js';

/** Counts the prompt tokens of one chat request. */
export interface TokenCounter {
  /** `gpt-5-nano` (the model's own tokenizer) or `o200k_base (estimate)`. */
  tokenizer: string;
  /** False when the model is not an OpenAI model the tokenizer knows: the count is then an o200k_base estimate. */
  exact: boolean;
  count(messages: readonly ChatMessage[]): number;
}

type ModelModule = {
  countChatCompletionTokens?: (request: { messages: ChatMessage[] }) => number;
  encodeChat: (messages: ChatMessage[]) => number[];
};
type EncodingModule = { countTokens: (text: string) => number };

const require = createRequire(import.meta.url);

/** Whether gpt-tokenizer ships a tokenizer for this model alias. */
function knownModel(model: string): boolean {
  if (!/^[A-Za-z0-9._-]+$/.test(model)) return false;
  try {
    require.resolve(`gpt-tokenizer/model/${model}`);
    return true;
  } catch {
    return false;
  }
}

// OpenAI's documented chat overhead: 3 tokens per message plus 3 priming the reply.
const PER_MESSAGE = 3;
const PRIMING = 3;

/**
 * A counter for `model`: its own tokenizer when gpt-tokenizer knows the alias (the count of the chat format
 * OpenAI bills), otherwise o200k_base over the message texts plus the chat overhead, marked `exact: false`.
 *
 * @example (await createTokenCounter('gpt-5-nano')).count([{ role: 'user', content: 'hello' }])
 */
export async function createTokenCounter(model: string): Promise<TokenCounter> {
  if (knownModel(model)) {
    const module = (await import(`gpt-tokenizer/model/${model}`)) as ModelModule;
    return {
      tokenizer: model,
      exact: true,
      count: (messages) =>
        module.countChatCompletionTokens?.({ messages: [...messages] }) ?? module.encodeChat([...messages]).length,
    };
  }
  const encoding = (await import('gpt-tokenizer/encoding/o200k_base')) as EncodingModule;
  return {
    tokenizer: 'o200k_base (estimate)',
    exact: false,
    count: (messages) =>
      messages.reduce(
        (sum, message) =>
          sum + PER_MESSAGE + encoding.countTokens(message.content) + encoding.countTokens(message.role),
        PRIMING,
      ),
  };
}
