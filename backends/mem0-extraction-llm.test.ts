import { describe, expect, it } from 'vitest';
import { createMem0ChatModel, newUserMessages } from './mem0-extraction-llm.js';
import { createSimExtractionModel } from './sim-extraction-model.js';

// Shapes of mem0-ts generateAdditiveExtractionPrompt (3.x); the system prompt repeats the headings.
const SYSTEM =
  '# ROLE\nYour sole operation is ADD: ...\n# INPUTS\n\n## New Messages\n\nThe current conversation turn(s)\n\n## Observation Date\n\nThe date.';
const user = (turns: string) =>
  `## Summary\n\n\n## Existing Memories\n[]\n\n## New Messages\n${turns}\n\n## Observation Date\n2026-12-02\n\n## Current Date\n2026-12-02\n\n# Output:`;

describe('mem0 extraction LLM', () => {
  it('finds the user turns of the new messages', () => {
    expect(newUserMessages(user('user: A rule. Another rule.\nassistant: Noted.\nuser: Line one\nline two'))).toEqual([
      'A rule. Another rule.',
      'Line one\nline two',
    ]);
    expect(() => newUserMessages('no sections')).toThrow(/New Messages/);
  });

  it("answers mem0's additive prompt in AdditiveExtractionSchema shape from extractFacts", async () => {
    const model = createMem0ChatModel(createSimExtractionModel());
    expect(model.model).toBe('sim-extractor-v3');
    const reply = await model.invoke([
      { role: 'system', content: SYSTEM },
      {
        role: 'user',
        content: user('user: Doc X, issued in 2024, governs Y. It states: MFA may be waived. VPN is required.'),
      },
    ]);
    expect(JSON.parse(reply.content)).toEqual({
      memory: [
        { id: '0', text: 'Doc X, issued in 2024, governs Y.', attributed_to: 'user' },
        { id: '1', text: 'MFA may be waived.', attributed_to: 'user' },
        { id: '2', text: 'VPN is required.', attributed_to: 'user' },
      ],
    });
    // LangChain message objects carry `content` without `role`.
    const langchainStyle = await model.invoke([{ content: SYSTEM }, { content: user('user: One fact.') }]);
    expect(JSON.parse(langchainStyle.content)).toEqual({
      memory: [{ id: '0', text: 'One fact.', attributed_to: 'user' }],
    });
  });

  it('refuses prompts other than the additive extraction prompt', async () => {
    const model = createMem0ChatModel(createSimExtractionModel());
    await expect(
      model.invoke([
        { role: 'system', content: 'You are a Personal Information Organizer' },
        { role: 'user', content: user('user: x') },
      ]),
    ).rejects.toThrow(/additive extraction prompt/);
  });
});
