// Re-derives a follow-up read trace (labels, guard, what reached the model) from the records the read returned.
import {
  isJournalRecord,
  applyScreens,
  pick,
  screenTracePath,
  screenTraceFields,
  type LabelScenario,
  type ReadTrace,
  type UnitDefences,
  labelRecords,
} from '../pipeline/index.js';
import type { DifferenceLog, RecomputeDifference } from './recompute-diff.js';
import { recordedClocks, screenTraceRequired } from './grid/recompute-guard.js';
import type { ExposureRuleOf } from './rescore-inputs.js';

/** What the experiment's code says this read was. */
export interface ReadExpectation {
  read: 'default' | 'filtered';
  query: string;
  /** The defences whose screens the read goes through (resolved through the registry, as the experiment did). */
  defences: UnitDefences;
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
 * (oracle labels are kept as stored), the screens (the guard) with their recorded clocks, the kept records, exposure
 * and journal flags. A read that should carry a screen's trace but does not is logged under `path` and returned as stored.
 */
export function recomputeReadTrace(
  stored: ReadTrace,
  expected: ReadExpectation,
  context: TraceContext & { path: string },
): ReadTrace {
  const clocks = recordedClocks(stored, expected.defences);
  if ('missing' in clocks) {
    context.log.add({
      ...context.where,
      field: `${context.path}.${screenTracePath(clocks.missing)}`,
      stored: undefined,
      recomputed: screenTraceRequired(clocks.missing),
    });
    return stored;
  }
  const journals = { journals: new Set(expected.journals) };
  const { returned } = stored;
  const rule = context.rule;
  const labelled =
    rule.rule === 'oracle'
      ? null
      : labelRecords(returned, rule, context.scenario).map(
          (label, index) => label && !isJournalRecord(journals, returned[index]!),
        );
  const { guard: _guard, screens: _screens, warnings, ...rest } = stored;
  const { kept, traces } = applyScreens(returned, expected.defences.screens, clocks.clockOf);
  const records = pick(returned, kept);
  const labels = labelled === null ? stored.labels : pick(labelled, kept);
  return {
    ...rest,
    read: expected.read,
    query: expected.query,
    records,
    labels,
    exposed: labels.some(Boolean),
    journal: records.map((record) => isJournalRecord(journals, record)),
    ...screenTraceFields(traces),
    warnings,
  };
}
