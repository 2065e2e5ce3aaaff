import { describe, expect, it } from 'vitest';
import { buildDecisionMessages, buildDecisionUserMessage, HARDEN, SYS_PLAIN } from './prompts.js';

describe('decision prompts (stale-retrieval.md §6.1)', () => {
  it('builds the exact plain messages', () => {
    const messages = buildDecisionMessages({
      facts: ['A.', 'B.'],
      task: 'T?',
      actions: ['APPROVE', 'REJECT'],
      guardrail: null,
      harden: false,
    });
    expect(messages).toEqual([
      { role: 'system', content: SYS_PLAIN },
      {
        role: 'user',
        content:
          "Retrieved policy facts:\n- A.\n- B.\n\nQuestion: T?\nAllowed actions (choose one): ['APPROVE', 'REJECT']",
      },
    ]);
  });

  it('puts HARDEN (with its trailing space) in front of the guardrail', () => {
    const [system] = buildDecisionMessages({
      facts: [],
      task: 'T',
      actions: ['X', 'Y'],
      guardrail: 'RULE.',
      harden: true,
    });
    expect(system!.content).toBe(`${HARDEN}RULE.\n${SYS_PLAIN}`);
    expect(HARDEN.endsWith('policy. ')).toBe(true);
  });

  it('renders an empty context as (none)', () => {
    const [, user] = buildDecisionMessages({
      facts: [],
      task: 'T',
      actions: ['X', 'Y'],
      guardrail: null,
      harden: false,
    });
    expect(user!.content.startsWith('Retrieved policy facts:\n(none)\n\nQuestion: T')).toBe(true);
  });

  it("formats actions as Python's f-string prints a list (repr, CPython 3.11), quotes included", () => {
    const allowed = (actions: string[]) =>
      buildDecisionUserMessage([], 'T', actions).split('Allowed actions (choose one): ')[1];
    expect(allowed(['DISCLOSE_FULL_NUMBER', 'REFUSE_USE_LAST4'])).toBe("['DISCLOSE_FULL_NUMBER', 'REFUSE_USE_LAST4']");
    // CPython 3.11: a = ["IT'S", 'Y']; print(f'{a}') prints ["IT'S", 'Y']. The old copy threw on a quote.
    expect(allowed(["IT'S", 'Y'])).toBe(`["IT'S", 'Y']`);
  });

  it('keeps the JSON instruction of SYS_PLAIN byte-exact', () => {
    expect(SYS_PLAIN).toContain('Respond STRICT JSON: {"action": "<one allowed action>", "reason": "<short>"}');
  });
});
