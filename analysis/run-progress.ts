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

/** The manifest's `counts.units`, preferred when the run got far enough to write it; else null. */
function recordedPlan(run: LoadedRun): number | null {
  const { counts } = run.manifest;
  return counts && Number.isInteger(counts.units) && counts.units > 0 ? counts.units : null;
}

/** Units per probe: models × trials × axes × arms (axes: each combination of the registered axes' values). */
function unitsPerProbe(run: LoadedRun, phase: 'grid' | 'follow-up'): number {
  const { spec, models } = run.manifest;
  return models.length * spec.trials * axisCombinations(axesOf(phase), spec).length * spec.arms.length;
}

/**
 * The units a grid spec plans: ok probes × models × trials × axes × arms (reference loop order,
 * pipeline/suites/grid/experiment-phase.ts; axes from pipeline/defences/axes); null until every probe is logged.
 */
export function gridPlannedUnits(run: LoadedRun): number | null {
  const recorded = recordedPlan(run);
  if (recorded !== null) return recorded;
  const { spec } = run.manifest;
  const expected = spec.systems.length * spec.modes.length * spec.scenarios.length;
  const probes = [...run.probes.values()];
  // Until every probe is logged the plan is unknown: a probe that fails or is n/a plans no unit.
  if (probes.length < expected) return null;
  return probes.filter((p) => p.status === 'ok').length * unitsPerProbe(run, 'grid');
}

/** The units a follow-up spec plans: systems × modes × scenarios × models × trials × axes × arms. */
export function followUpPlannedUnits(run: LoadedRun): number | null {
  const recorded = recordedPlan(run);
  if (recorded !== null) return recorded;
  const { spec } = run.manifest;
  return spec.systems.length * spec.modes.length * spec.scenarios.length * unitsPerProbe(run, 'follow-up');
}

/** The progress of a loaded run from its kind's counts: units recorded (`done`) and planned (null: unknown yet). */
export function runProgress(run: LoadedRun, done: number, planned: number | null): RunProgress {
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
