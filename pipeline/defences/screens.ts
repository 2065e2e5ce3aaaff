// Applies a unit's read screens in order, and keeps each screen's trace where the run log records it.
import type { MemoryRecord } from '../../backends/memory-backend.js';
import type { LedgerVerdict } from '../../guard/revocation-ledger.js';
import type { GuardTrace } from './traces.js';
import { AXIS_DEFENCES, type UnitDefences } from './compose.js';
import type { DefenceId } from './defence-v1.js';

/** One screen's trace: its clock, the records it saw, what it withheld and its notes (the run log's `GuardTrace`). */
export type ScreenTrace = GuardTrace;

/** Where a record keeps screen traces: the stale guard's as `guard` (RUN_LOG_VERSION 2), any other under `screens.<id>`. */
export interface ScreenTraceFields {
  /** The stale-retrieval guard's trace. */
  guard?: ScreenTrace;
  /** Every other screen's trace, by defence id. */
  screens?: Record<string, ScreenTrace>;
}

/** What the screens let through: positions in the read, and each screen's trace in order. */
export interface ScreenedRead {
  /** Positions in the read of the records that reach the model, ascending. */
  kept: number[];
  traces: { id: DefenceId; trace: ScreenTrace }[];
}

/** The elements of `items` at `indexes`; a position outside them is a bug, never a silent `undefined`. */
export function pick<T>(items: readonly T[], indexes: readonly number[]): T[] {
  return indexes.map((index) => {
    if (index < 0 || index >= items.length) throw new RangeError(`position ${index} outside ${items.length} item(s)`);
    return items[index] as T;
  });
}

/**
 * Runs the screens over `records` in order (each sees what the one before kept) with the clock `clockOf(id)` gives:
 * the read's clock in a run, the recorded one on rescore; `ledger` (aligned with `records`) follows the records each
 * screen sees. No screens: every record is kept and nothing is traced.
 */
export function applyScreens(
  records: readonly MemoryRecord[],
  screens: UnitDefences['screens'],
  clockOf: (id: DefenceId) => Date,
  ledger?: readonly LedgerVerdict[],
): ScreenedRead {
  let kept = records.map((_, index) => index);
  const traces: ScreenedRead['traces'] = [];
  for (const { id, screen } of screens) {
    const input = pick(records, kept);
    const now = clockOf(id);
    const verdict = screen({ records: input, now, ...(ledger ? { ledger: pick(ledger, kept) } : {}) });
    traces.push({ id, trace: { now: now.toISOString(), input, withheld: verdict.withheld, notes: verdict.notes } });
    kept = pick(kept, verdict.kept);
  }
  return { kept, traces };
}

/** The record fields of the screen traces (none when no screen ran). */
export function screenTraceFields(traces: ScreenedRead['traces']): ScreenTraceFields {
  const fields: ScreenTraceFields = {};
  for (const { id, trace } of traces) {
    if (id === AXIS_DEFENCES.guard) fields.guard = trace;
    else fields.screens = { ...fields.screens, [id]: trace };
  }
  return fields;
}

/** The path of a screen's trace inside the record part that holds it (`guard`, `screens.<id>`). */
export function screenTracePath(id: DefenceId): string {
  return id === AXIS_DEFENCES.guard ? 'guard' : `screens.${id}`;
}

/** The stored trace of screen `id`, if the record has it. */
export function storedScreenTrace(stored: ScreenTraceFields, id: DefenceId): ScreenTrace | undefined {
  return id === AXIS_DEFENCES.guard ? stored.guard : stored.screens?.[id];
}
