// The token counter's prompt cache: the same counts as the tokenizer itself, bounded, and a changed prompt recounted.
import { describe, expect, it } from 'vitest';
import type { ChatMessage } from './decision-model.js';
import { cachedCount, createTokenCounter } from './token-count.js';

const prompt = (user: string, system = 'You decide.'): ChatMessage[] => [
  { role: 'system', content: system },
  { role: 'user', content: user },
];

describe('cachedCount', () => {
  it('counts each distinct prompt once and answers the same number for it again', () => {
    let calls = 0;
    const cached = cachedCount((messages) => {
      calls += 1;
      return messages.reduce((sum, m) => sum + m.content.length + m.role.length, 0);
    });
    expect(cached.count(prompt('approve?'))).toBe(8 + 6 + 11 + 4);
    expect(cached.count(prompt('approve?'))).toBe(29);
    expect(calls).toBe(1);
    // A changed input is a new prompt: one character, the other message, a role, the order of the messages.
    expect(cached.count(prompt('approve!'))).toBe(29);
    expect(cached.count(prompt('approve?', 'You decide!'))).toBe(29);
    expect(cached.count([{ role: 'assistant', content: 'You decide.' }, prompt('approve?')[1]!])).toBe(32);
    expect(cached.count([...prompt('approve?')].reverse())).toBe(29);
    expect(calls).toBe(5);
    expect(cached.size()).toBe(5);
  });

  it('keeps at most `limit` prompts, dropping the least recently used', () => {
    let calls = 0;
    const cached = cachedCount((messages) => {
      calls += 1;
      return messages[1]!.content.length;
    }, 3);
    for (const user of ['a', 'bb', 'ccc']) cached.count(prompt(user));
    cached.count(prompt('a')); // 'a' is now the most recent; 'bb' the least
    cached.count(prompt('dddd'));
    expect(cached.size()).toBe(3);
    expect(calls).toBe(4);
    expect(cached.count(prompt('a'))).toBe(1);
    expect(calls).toBe(4);
    expect(cached.count(prompt('bb'))).toBe(2); // evicted, so counted again
    expect(calls).toBe(5);
    expect(cached.size()).toBe(3);
  });
});

describe('createTokenCounter', () => {
  it('gives the uncached tokenizer counts, for repeated and changed prompts (gpt-5-nano and the estimate)', async () => {
    const tokenizer = (await import('gpt-tokenizer/model/gpt-5-nano')) as {
      countChatCompletionTokens: (request: { messages: ChatMessage[] }) => number;
    };
    const o200k = (await import('gpt-tokenizer/encoding/o200k_base')) as { countTokens: (text: string) => number };
    const exact = await createTokenCounter('gpt-5-nano');
    const estimate = await createTokenCounter('llama-3-local');
    expect([exact.exact, estimate.exact]).toEqual([true, false]);
    const prompts = [prompt('Approve the deploy?'), prompt('Approve the deploy?'), prompt('Approve the deploy now?')];
    prompts.push(prompt('Approve the deploy?'), [{ role: 'user', content: 'x '.repeat(500) }]);
    for (const messages of prompts) {
      expect(exact.count(messages)).toBe(tokenizer.countChatCompletionTokens({ messages: [...messages] }));
      const words = messages.reduce((sum, m) => sum + 3 + o200k.countTokens(m.content) + o200k.countTokens(m.role), 3);
      expect(estimate.count(messages)).toBe(words);
    }
  });
});
