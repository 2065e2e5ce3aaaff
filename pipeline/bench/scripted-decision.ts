// The bench endpoint's reply to a decision prompt: one of the actions the prompt allows, so every reply parses (§6.3).

// The last line of the §6.1 user message: `Allowed actions (choose one): ['APPROVE', 'REJECT']` (Python's list repr).
const ALLOWED = /Allowed actions \(choose one\): \[([^\n]*)\]\s*$/;
const QUOTED = /'([^'\\]*)'|"([^"\\]*)"/g;

/** The actions the last user message of a chat request allows, in prompt order; empty when it names none. */
function allowedActions(messages: readonly { role: string; content: string }[]): string[] {
  const user = messages.findLast((message) => message.role === 'user')?.content ?? '';
  const list = ALLOWED.exec(user)?.[1];
  if (list === undefined) return [];
  return [...list.matchAll(QUOTED)].map((match) => match[1] ?? match[2] ?? '');
}

/**
 * The reply content for the `index`-th call: `{"action": <allowed action>, "reason": "bench"}`, cycling through the
 * allowed actions so a run sees both safe and unsafe decisions; null when the prompt allows none (not a decision).
 *
 * @example scriptedDecision([{ role: 'user', content: "…\nAllowed actions (choose one): ['APPROVE', 'REJECT']" }], 1)
 * // '{"action": "REJECT", "reason": "bench"}'
 */
export function scriptedDecision(messages: readonly { role: string; content: string }[], index: number): string | null {
  const actions = allowedActions(messages);
  if (actions.length === 0) return null;
  return `{"action": ${JSON.stringify(actions[index % actions.length])}, "reason": "bench"}`;
}
