// Re-derives the decision traces of write-back and propagation records (hops, roles): read, prompt, parse, PoEM, score.
import { gatedStepOf, type safetyStepMapping } from '../guard/proof-of-execution-gate.js';
import {
  subjectOf,
  reviewDecision,
  reviewTraceFields,
  followUpDefences,
  type ChatMessage,
  type DecisionTrace,
  type FollowUpKey,
  type PropagationRecord,
  type WritebackRecord,
  HOP_TASK,
  ROLE_ORDER,
  buildRoleMessages,
  roleQuery,
  roleTask,
  parseReply,
  type ActionParserId,
  buildDecisionMessages,
} from '../pipeline/index.js';
import { unsafeAction, type Scenario } from '../scenarios/scenario.js';
import { recomputePoemTrace } from './recompute-poem.js';
import { recomputeReadTrace, type ReadExpectation, type TraceContext } from './recompute-read-trace.js';

/** One decision of a record: where it sits, its PoEM step, what its read was, and how its prompt is built. */
export interface DecisionSlot {
  /** Path in the record (`hop0`, `hops[1].filtered`, `roles.reviewer`, `failedStep`). */
  path: string;
  trace: DecisionTrace;
  /** The `step` of its PoEM subject (null: the failed step, which never reached the gate). */
  step: string | null;
  expectation: ReadExpectation;
  /** The exact messages for these facts, or null where the code's choice of prompt cannot be told (failed step). */
  messagesOf: ((facts: readonly string[]) => ChatMessage[]) | null;
  /** Writes the recomputed trace into a copy of the record. */
  set(copy: WritebackRecord | PropagationRecord, trace: DecisionTrace): void;
}

/** Every decision trace of a write-back or propagation record, in the order the experiment ran them. */
export function decisionSlots(record: WritebackRecord | PropagationRecord, scenario: Scenario): DecisionSlot[] {
  const none: ReadonlySet<string> = new Set();
  // Every read of a write-back or propagation unit goes through the unit's axis defences (phase.ts).
  const defences = followUpDefences(record.key);
  const slots: DecisionSlot[] = [];
  if (record.type === 'writeback-end') {
    const hopMessages = (task: string) => (facts: readonly string[]) =>
      buildDecisionMessages({ facts, task, actions: scenario.actions, guardrail: scenario.guardrail, harden: false });
    const read = (kind: 'default' | 'filtered', journals: ReadonlySet<string>): ReadExpectation => ({
      read: kind,
      query: scenario.query,
      defences,
      journals,
    });
    if (record.hop0)
      slots.push({
        path: 'hop0',
        trace: record.hop0,
        step: 'hop0:default',
        expectation: read('default', none),
        messagesOf: hopMessages(scenario.task),
        set: (c, t) => {
          (c as WritebackRecord).hop0 = t;
        },
      });
    if (record.hop0Filtered)
      slots.push({
        path: 'hop0Filtered',
        trace: record.hop0Filtered,
        step: 'hop0:filtered',
        expectation: read('filtered', none),
        messagesOf: hopMessages(scenario.task),
        set: (c, t) => {
          (c as WritebackRecord).hop0Filtered = t;
        },
      });
    record.hops.forEach((hop, index) => {
      const journals = new Set(record.journals.filter((j) => j.afterHop < hop.hop).map((j) => j.text));
      for (const kind of ['default', 'filtered'] as const) {
        slots.push({
          path: `hops[${index}].${kind}`,
          trace: hop[kind],
          step: `hop${hop.hop}:${kind}`,
          expectation: read(kind, journals),
          messagesOf: hopMessages(HOP_TASK),
          set: (c, t) => {
            (c as WritebackRecord).hops[index]![kind] = t;
          },
        });
      }
    });
  } else {
    const read = record.key.arm === 'shared-filtered' ? 'filtered' : 'default';
    for (const role of ROLE_ORDER) {
      const trace = record.roles[role];
      if (!trace) continue;
      const journals = role === 'executor' || !record.journal ? none : new Set([record.journal.text]);
      const messagesOf = (facts: readonly string[]) =>
        buildRoleMessages({
          role,
          facts,
          task: roleTask(role, scenario),
          actions: scenario.actions,
          guardrail: scenario.guardrail,
        });
      slots.push({
        path: `roles.${role}`,
        trace,
        step: role,
        expectation: { read, query: roleQuery(role, scenario), defences, journals },
        messagesOf,
        set: (c, t) => {
          (c as PropagationRecord).roles[role] = t;
        },
      });
    }
  }
  if (record.failedStep) {
    // The failing call is the unit's last step: every journal of the record was written before it.
    const journals = new Set(
      record.type === 'writeback-end'
        ? record.journals.map((j) => j.text)
        : record.journal
          ? [record.journal.text]
          : [],
    );
    const { read, query } = record.failedStep.readTrace;
    slots.push({
      path: 'failedStep',
      trace: record.failedStep,
      step: null,
      expectation: { read, query, defences, journals },
      messagesOf: null,
      set: (c, t) => {
        c.failedStep = t;
      },
    });
  }
  return slots;
}

/** The PoEM subject key of a follow-up decision (as `decideOnRead` builds it). */
export function decisionSubject(key: FollowUpKey, step: string): string {
  return subjectOf({ ...key, step });
}

/** What `recomputeDecision` needs besides the slot. */
export interface DecisionContext extends TraceContext {
  key: FollowUpKey;
  scenario: Scenario;
  parser: ActionParserId;
  mapping: ReturnType<typeof safetyStepMapping>;
  /** Whether a possible ledger event backs an `allowed` verdict of this step. */
  backs: (subject: string, step: string) => boolean;
}

/** The trace `decideOnRead` would have written for the stored reply: the unit's post-decision steps through the registry. */
export async function recomputeDecision(slot: DecisionSlot, context: DecisionContext): Promise<DecisionTrace> {
  const stored = slot.trace;
  const readTrace = recomputeReadTrace(stored.readTrace, slot.expectation, {
    ...context,
    path: `${slot.path}.readTrace`,
  });
  const messages = slot.messagesOf?.(readTrace.records.map((r) => r.text)) ?? stored.messages;
  const { poem: _poem, reviews: _reviews, ...rest } = stored;
  const base = { ...rest, readTrace, messages };
  if (!stored.reply) return { ...base, parsedAction: null, unsafe: null, parseFailure: false };
  const parsedAction = parseReply(stored.reply.text, context.scenario.actions, context.parser);
  if (parsedAction === null) return { ...base, parsedAction, unsafe: null, parseFailure: true };
  const step = slot.step;
  // The failed step never reached the gate; the ledger is not stored, so the gate's verdict is re-derived (recompute-poem.ts).
  const reviews = step === null ? [] : followUpDefences(context.key).reviews;
  const execute = async (proposedAction: string) => {
    if (step === null) return null;
    if (stored.poem)
      return recomputePoemTrace(stored.poem, {
        proposedAction,
        step: gatedStepOf(context.mapping, context.scenario.id),
        backed: context.backs(decisionSubject(context.key, step), step),
      });
    context.log.add({
      ...context.where,
      field: `${slot.path}.poem`,
      stored: undefined,
      recomputed: '(a PoEM trace: the gate checks every parsed decision of a --poem on unit)',
    });
    return null;
  };
  const decision = await reviewDecision(reviews, {
    proposedAction: parsedAction,
    unsafeAction: unsafeAction(context.scenario),
    reply: { text: stored.reply.text, reusedFrom: null },
    reads: null,
    execute,
  });
  return { ...base, parsedAction, unsafe: decision.unsafe, parseFailure: false, ...reviewTraceFields(decision.traces) };
}
