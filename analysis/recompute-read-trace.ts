// Re-derives a follow-up read trace (labels, guard, what reached the model) from the records the read returned.
import { isJournalRecord, type LabelScenario, type ReadTrace } from '../pipeline/index.js';
import { labelRecords } from '../scenarios/exposure.js';
import type { DifferenceLog, RecomputeDifference } from './recompute-diff.js';
import { GUARD_TRACE_REQUIRED, guardTraceOf } from './recompute-guard.js';
import type { ExposureRuleOf } from './rescore-inputs.js';

/** What the experiment's code says this read was. */
export interface ReadExpectation {
  read: 'default' | 'filtered';
  query: string;
  /** The read goes through the stale-retrieval guard. */
  guard: boolean;
  /** Texts of the unit's journals written before this read (they are never the seeded v1). */
  journals: ReadonlySet<string>;
}

/** Where a trace sits, and how its records are labelled. */
export interface TraceContext {
  rule: ExposureRuleOf;
  scenario: LabelScenario;
  log: DifferenceLog;
  where: Pick<RecomputeDifference, 'file' | 'line' | 'record'>;
}

/**
 * The read trace `readMemory` would have written for the stored `returned` records: labels by the system's rule
 * (oracle labels are kept as stored), the guard with the recorded clock, the kept records, exposure and journal
 * flags. A read that should carry a guard trace but does not is logged under `path` and returned as stored.
 */
export function recomputeReadTrace(stored: ReadTrace, expected: ReadExpectation, context: TraceContext & { path: string }): ReadTrace {
  if (expected.guard && !stored.guard) {
    context.log.add({ ...context.where, field: `${context.path}.guard`, stored: undefined, recomputed: GUARD_TRACE_REQUIRED });
    return stored;
  }
  const journals = { journals: new Set(expected.journals) };
  const { returned } = stored;
  const rule = context.rule;
  const labelled = rule.rule === 'oracle' ? null : labelRecords(returned, rule, context.scenario).map((label, index) => label && !isJournalRecord(journals, returned[index]!));
  let kept = returned.map((_, index) => index);
  const { guard: _guard, ...rest } = stored;
  let guard: ReadTrace['guard'];
  if (expected.guard) ({ kept, trace: guard } = guardTraceOf(returned, stored.guard!.now));
  const records = kept.map((index) => returned[index]!);
  const labels = labelled === null ? stored.labels : kept.map((index) => labelled[index]!);
  return { ...rest, read: expected.read, query: expected.query, records, labels, exposed: labels.some(Boolean), journal: records.map((record) => isJournalRecord(journals, record)), ...(guard ? { guard } : {}) };
}
