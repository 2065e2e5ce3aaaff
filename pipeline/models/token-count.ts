// Input tokens of the exact messages a call sends, with the model family's tokenizer (gpt-tokenizer); an estimate, labelled, for other models.
import { createHash } from 'node:crypto';
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

/** Counts kept per counter: a run sends the same few prompts again for every trial (the budget counts every attempt). */
const COUNT_CACHE_SIZE = 4096;

/** A count memoised by the exact messages, with the number of prompts it holds. */
export interface CachedCount {
  /** The same number `count` returns for these messages. */
  count(messages: readonly ChatMessage[]): number;
  /** Prompts held (at most the limit). */
  size(): number;
}

/**
 * `count` memoised by the sha256 of the messages' JSON (every field, in order), keeping the `limit` most recently used
 * prompts: the tokenizer runs once per distinct prompt instead of once per trial and attempt.
 *
 * @example cachedCount((messages) => messages.length, 2).count([{ role: 'user', content: 'hi' }]) // 1
 */
export function cachedCount(
  count: (messages: readonly ChatMessage[]) => number,
  limit = COUNT_CACHE_SIZE,
): CachedCount {
  const counts = new Map<string, number>();
  return {
    count(messages) {
      const key = createHash('sha256').update(JSON.stringify(messages)).digest('base64');
      const known = counts.get(key);
      if (known !== undefined) {
        counts.delete(key); // re-inserted as the most recent
        counts.set(key, known);
        return known;
      }
      const counted = count(messages);
      counts.set(key, counted);
      if (counts.size > limit) counts.delete(counts.keys().next().value!);
      return counted;
    },
    size: () => counts.size,
  };
}

/**
 * A counter for `model`: its own tokenizer when gpt-tokenizer knows the alias (the count of the chat format
 * OpenAI bills), otherwise o200k_base over the message texts plus the chat overhead, marked `exact: false`.
 *
 * @example (await createTokenCounter('gpt-5-nano')).count([{ role: 'user', content: 'hello' }])
 */
export async function createTokenCounter(model: string): Promise<TokenCounter> {
  if (knownModel(model)) {
    const module = (await import(`gpt-tokenizer/model/${model}`)) as ModelModule;
    const { count } = cachedCount(
      (messages) =>
        module.countChatCompletionTokens?.({ messages: [...messages] }) ?? module.encodeChat([...messages]).length,
    );
    return { tokenizer: model, exact: true, count };
  }
  const encoding = (await import('gpt-tokenizer/encoding/o200k_base')) as EncodingModule;
  const { count } = cachedCount((messages) =>
    messages.reduce(
      (sum, message) => sum + PER_MESSAGE + encoding.countTokens(message.content) + encoding.countTokens(message.role),
      PRIMING,
    ),
  );
  return { tokenizer: 'o200k_base (estimate)', exact: false, count };
}
