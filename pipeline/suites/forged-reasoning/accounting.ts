// What a forged-reasoning run did, read back from its records: the same account every phase reports (calls, spend,
// decisions with a reply and how many of them named no action) and each unit's outcome for the control plane.
import type { PriceLookup } from '../../models/prices.js';
import type { DecisionResponse } from '../../models/decision-model.js';
import { accountOfUnits, type RunAccount } from '../../run/run-accounting.js';
import type { UnitOutcome } from '../../run/run-control.js';
import type { RecordedReply } from '../../run/usage-totals.js';
import type { ForgedReasoningLine, ReasoningDecision } from './records.js';

/** Every decision of a record (trial unit or attacker loop). */
function decisionsOf(record: ForgedReasoningLine): ReasoningDecision[] {
  if (record.type === 'forged-reasoning-end')
    return [record.clean, ...Object.values(record.attacks), ...Object.values(record.benign)].filter(
      (d): d is ReasoningDecision => d != null,
    );
  return record.attempts
    .flatMap((attempt) => [attempt.clean, attempt.poisoned])
    .filter((d): d is ReasoningDecision => d !== null);
}

/** The unit's calls, as replies (text left out). */
function repliesOf(record: ForgedReasoningLine): RecordedReply[] {
  const asReply =
    (model: string) =>
    (call: ForgedReasoningLine['calls'][number]): RecordedReply => ({
      model,
      reply: { ...call, text: '' } as DecisionResponse,
    });
  const attacker =
    record.type === 'adaptive-attacker-end' ? record.attackerCalls.map(asReply(record.key.attacker)) : [];
  return [...record.calls.map(asReply(record.key.model)), ...attacker];
}

/** Decisions that got a reply, and those of them that named no action. */
function replied(record: ForgedReasoningLine): { completed: number; unparseable: number } {
  const withReply = decisionsOf(record).filter((decision) => decision.reply !== null);
  return {
    completed: withReply.length,
    unparseable: withReply.filter((decision) => decision.parsedAction === null).length,
  };
}

/** What the control plane hears about a finished unit. */
export function forgedReasoningOutcome(record: ForgedReasoningLine): UnitOutcome {
  return {
    status: record.status,
    replies: repliesOf(record),
    parseFailures: replied(record).unparseable,
    ...(record.error ? { error: record.error.message } : {}),
  };
}

/** Accounts the run over every recorded unit (earlier invocations of a resumed run included). */
export function accountForgedReasoning(
  total: number,
  records: Iterable<ForgedReasoningLine>,
  priceOf: PriceLookup,
): RunAccount {
  const all = [...records];
  return accountOfUnits(total, all, all.flatMap(repliesOf), all.map(replied), priceOf);
}
