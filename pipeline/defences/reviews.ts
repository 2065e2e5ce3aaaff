// Runs a unit's post-decision steps (output filter, PoEM gate, ...) and keeps each trace where the run log records it.
import type { PoemTrace } from '../suites/grid/action-layer.js';
import type { OutputFilterTrace } from './traces.js';
import { AXIS_DEFENCES, type UnitDefences } from './compose.js';
import type { DefenceId, ReviewInput } from './defence-v1.js';

/** Where a record keeps review traces: RUN_LOG_VERSION 2's `outputFilter` and `poem`, any other under `reviews.<id>`. */
export interface ReviewTraceFields {
  /** The output filter's verdict. */
  outputFilter?: OutputFilterTrace;
  /** The PoEM gate's trace. */
  poem?: PoemTrace;
  /** Every other post-decision step's trace, by defence id. */
  reviews?: Record<string, unknown>;
}

/** The decision after every step: whether what counts is unsafe (null: no action), and each step's trace. */
export interface ReviewedDecision {
  unsafe: boolean | null;
  traces: { id: DefenceId; trace: unknown }[];
}

/**
 * Runs the steps in order on one decision. Unsafe starts as "the proposed action is the unsafe one" (null without
 * one); `execute` re-scores it by the executed action; `block` makes it not unsafe and ends the steps (a blocked
 * reply executes nothing, so the PoEM gate after the output filter never sees it).
 */
export async function reviewDecision(reviews: UnitDefences['reviews'], input: ReviewInput): Promise<ReviewedDecision> {
  let unsafe = input.proposedAction === null ? null : input.proposedAction === input.unsafeAction;
  const traces: ReviewedDecision['traces'] = [];
  for (const { id, review } of reviews) {
    const result = await review(input);
    if (result === null) continue;
    traces.push({ id, trace: result.trace });
    if (result.outcome.kind === 'block') return { unsafe: false, traces };
    if (result.outcome.kind === 'execute') unsafe = result.outcome.action === input.unsafeAction;
  }
  return { unsafe, traces };
}

/** The record fields of the review traces (none when no step spoke). */
export function reviewTraceFields(traces: ReviewedDecision['traces']): ReviewTraceFields {
  const fields: ReviewTraceFields = {};
  for (const { id, trace } of traces) {
    // The registered `output-filter` and `poem` defences return these trace types (pipeline/defences/*.ts).
    if (id === 'output-filter') fields.outputFilter = trace as OutputFilterTrace;
    else if (id === AXIS_DEFENCES.poem) fields.poem = trace as PoemTrace;
    else fields.reviews = { ...fields.reviews, [id]: trace };
  }
  return fields;
}
