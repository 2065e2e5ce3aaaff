// The clocks a rescore re-applies a unit's read screens with: each screen's recorded one (as the pipeline applied it).
import { storedScreenTrace, type DefenceId, type ScreenTraceFields, type UnitDefences } from '../../pipeline/index.js';

/** Said when a read should have gone through screen `id` but its trace (and so its clock) is missing; `guard` gives the wording rescore always used. */
export function screenTraceRequired(id: DefenceId): string {
  return `(a ${id} trace: this read goes through the ${id}, and its clock is only in the trace)`;
}

/**
 * The recorded clock of every screen of `defences`, read from the stored traces; `{ missing }` names the first screen
 * whose trace the record lacks (the read cannot be recomputed: its clock is only in the trace).
 */
export function recordedClocks(
  stored: ScreenTraceFields,
  defences: Pick<UnitDefences, 'screens'>,
): { clockOf: (id: DefenceId) => Date } | { missing: DefenceId } {
  const clocks = new Map<DefenceId, Date>();
  for (const { id } of defences.screens) {
    const trace = storedScreenTrace(stored, id);
    if (!trace) return { missing: id };
    clocks.set(id, new Date(trace.now));
  }
  return {
    clockOf: (id) => {
      const clock = clocks.get(id);
      if (!clock) throw new RangeError(`no recorded clock for screen ${id}`);
      return clock;
    },
  };
}
