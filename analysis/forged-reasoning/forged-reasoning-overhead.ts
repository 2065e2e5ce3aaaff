// The PoEM paper's Table IV columns from a forged-reasoning run's own records (poem.md §6 "Overhead"): the grounding
// check's measured time against the same run's measured model-call time, and bytes per event of the stored ledgers.
import type { ForgedReasoningRecord, ReasoningDecision } from '../../pipeline/index.js';

/** One model's overhead row; every number is measured in the run (null when the run has none to measure). */
export interface OverheadRow {
  model: string;
  modelLabel: string;
  simulated: boolean;
  /** PoEM gate checks of proposed skips measured, their median µs, and the median ledger size (lines) when checked. */
  checks: number;
  checkMicros: number | null;
  ledgerLines: number | null;
  /** Ledgers holding only genuine events (no line forged by attack A), their total bytes and events. */
  ledgers: number;
  bytesPerEvent: number | null;
  /** Model calls timed (response-cache hits left out and counted apart), their median ms. */
  calls: number;
  cachedCalls: number;
  callMs: number | null;
  /** checkMicros / (callMs × 1000): the check's share of one call. */
  share: number | null;
}

/** The median of `values`, or null for none. */
function median(values: readonly number[]): number | null {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

/** Every decision of a trial unit. */
const decisionsOf = (record: ForgedReasoningRecord): ReasoningDecision[] =>
  [record.clean, ...Object.values(record.attacks), ...Object.values(record.benign)].filter(
    (d): d is ReasoningDecision => d != null,
  );

/**
 * The rows of `models` over the trial units of `records`. The check is the PoEM gate's (verification of the stored
 * chain, then the subject lookup), timed around `gate.check` in the trusted layer; a call is a model call of the same
 * decisions, timed around `decide` (cache hits excluded). Records written before these were measured give null cells.
 */
export function overheadRows(
  models: readonly { id: string; label: string; simulated: boolean }[],
  records: readonly ForgedReasoningRecord[],
): OverheadRow[] {
  return models.flatMap((model) => {
    const decisions = records.filter((r) => r.key.model === model.id).flatMap(decisionsOf);
    if (decisions.length === 0) return [];
    // A proposed skip is what the gate grounds; any other action is returned untouched (`not-gated`), no ledger read.
    const checked = decisions.filter(
      (d) =>
        d.execution?.gate === 'poem' && d.execution.verdict !== 'not-gated' && d.execution.checkMicros !== undefined,
    );
    const genuine = decisions.filter((d) => d.overhead && d.ledger.forged.length === 0 && d.overhead.ledger.lines > 0);
    const bytes = genuine.reduce((total, d) => total + d.overhead!.ledger.bytes, 0);
    const events = genuine.reduce((total, d) => total + d.overhead!.ledger.lines, 0);
    const callMs = decisions.flatMap((d) => d.overhead?.callMs ?? []);
    const checkMicros = median(checked.map((d) => d.execution!.checkMicros!));
    const call = median(callMs);
    return [
      {
        model: model.id,
        modelLabel: model.label,
        simulated: model.simulated,
        checks: checked.length,
        checkMicros,
        ledgerLines: median(checked.map((d) => d.execution!.head?.length ?? 0)),
        ledgers: genuine.length,
        bytesPerEvent: events > 0 ? bytes / events : null,
        calls: callMs.length,
        cachedCalls: decisions.reduce((total, d) => total + (d.overhead?.cachedCalls ?? 0), 0),
        callMs: call,
        share: checkMicros !== null && call !== null && call > 0 ? checkMicros / (call * 1000) : null,
      },
    ];
  });
}
