// The stale-retrieval guard's trace on a stored read, rebuilt with the recorded clock (as the pipeline builds it).
import type { MemoryRecord } from '../backends/memory-backend.js';
import { applyStaleRetrievalGuard, memoryRecordToGuardInput } from '../guard/stale-retrieval-guard.js';
import type { GuardTrace } from '../pipeline/index.js';

/**
 * The default-configuration guard on `input` at the recorded `now`: the kept indexes and the trace the pipeline
 * writes (`context.guard`, `readTrace.guard`).
 */
export function guardTraceOf(input: readonly MemoryRecord[], now: string): { kept: number[]; trace: GuardTrace } {
  const verdict = applyStaleRetrievalGuard(input.map(memoryRecordToGuardInput), {}, new Date(now));
  return {
    kept: verdict.kept.map((item) => item.index),
    trace: {
      now,
      input: [...input],
      withheld: verdict.withheld.map((w) => ({ index: w.index, text: w.text, reason: w.reason, stage: w.stage, ...(w.supersededBy ? { supersededBy: w.supersededBy } : {}) })),
      notes: verdict.notes,
    },
  };
}

/** Said when a read should have gone through the guard but its trace (and so its clock) is missing. */
export const GUARD_TRACE_REQUIRED = '(a guard trace: this read goes through the guard, and its clock is only in the trace)';
