// How far a run got: its status, units recorded and units planned, from its own files (manifest, setup, records).
import { axesOf, axisCombinations } from '../pipeline/index.js';
import type { LoadedRun } from './load-run.js';

/** A run's progress, as `report` prints it for an incomplete run. */
export interface RunProgress {
  runId: string;
  runDir: string;
  status: string;
  /** Distinct units recorded (errored ones included). */
  done: number;
  /** Units the spec plans; null when the run stopped before its plan was known (setup not finished). */
  planned: number | null;
  /** Status `success` and every planned unit recorded. */
  complete: boolean;
}

/**
 * The units a spec plans: grid = ok probes × models × trials × axes × arms (reference loop order,
 * pipeline/suites/grid/experiment-phase.ts); follow-ups = systems × modes × scenarios × models × trials × axes × arms (axes: each
 * combination of the registered axes' values, pipeline/defences/axes).
 * The manifest's `counts.units` is preferred when the run got far enough to write it.
 */
function plannedUnits(run: LoadedRun): number | null {
  const { spec, counts, models } = run.manifest;
  if (counts && Number.isInteger(counts.units) && counts.units > 0) return counts.units;
  const phase = (spec.experiment ?? 'grid') === 'grid' ? 'grid' : 'follow-up';
  const perProbe = models.length * spec.trials * axisCombinations(axesOf(phase), spec).length * spec.arms.length;
  if (phase !== 'grid') return spec.systems.length * spec.modes.length * spec.scenarios.length * perProbe;
  const expected = spec.systems.length * spec.modes.length * spec.scenarios.length;
  const probes = [...run.probes.values()];
  // Until every probe is logged the plan is unknown: a probe that fails or is n/a plans no unit.
  if (probes.length < expected) return null;
  return probes.filter((p) => p.status === 'ok').length * perProbe;
}

/** The progress of a loaded run; `done` counts the records given (grid records, or a follow-up's records). */
export function runProgress(run: LoadedRun, done: number): RunProgress {
  const planned = plannedUnits(run);
  const status = String(run.manifest.status);
  return {
    runId: run.manifest.runId,
    runDir: run.runDir,
    status,
    done,
    planned,
    complete: status === 'success' && planned !== null && done >= planned,
  };
}

/** `run X (dir): status started, 12/36 units done` — the caveat every report format shows for an incomplete run. */
export function describeProgress(progress: RunProgress): string {
  return `incomplete run ${progress.runId} (${progress.runDir}): status ${progress.status}, ${progress.done}/${progress.planned ?? 'unknown'} planned units done`;
}
