// Re-applies the stale-retrieval guard to a stored run under another configuration: Table 9 from the probes, context changes per unit.
import { DEFAULT_GUARD_CONFIG, resolveGuardConfig, type GuardConfig } from '../../guard/guard-config.js';
import type { MemoryRecord } from '../../backends/memory-backend.js';
import {
  AXIS_DEFENCES,
  pick,
  screenOf,
  tableNineWithheld,
  type ProbeRecord,
  type UnitKey,
  type UnitRecord,
  type CellAxes,
  cellAxes,
  cellAxesId,
} from '../../pipeline/index.js';
import type { LoadedRun } from '../load-run.js';
import { guardMetricsOf, type GuardMetrics } from './summarize.js';

/** One unit whose guard verdict differs under the new configuration. */
export interface UnitGuardChange {
  unitId: string;
  key: UnitKey;
  status: UnitRecord['status'];
  /** Input indexes withheld as recorded, and under the new configuration. */
  withheldBefore: number[];
  withheldAfter: number[];
  /** Records the new configuration withholds that the recorded run passed on (text and reason). */
  newlyWithheld: { index: number; text: string; reason: string }[];
  /** Records the recorded run withheld that the new configuration passes on. */
  released: { index: number; text: string }[];
  /** The kept texts (all the model reads) differ from the stored context: the decision needs a new model call. */
  contextChanged: boolean;
}

/** Units of one summary cell that carry a guard trace. */
export interface GuardRescoreCell extends CellAxes<'grid'> {
  model: string;
  /** The manifest's label (`sim (simulated)` for the simulator). */
  modelLabel: string;
  system: string;
  mode: string;
  arm: string;
  /** Units with a guard trace, and those whose context would change. */
  units: number;
  contextChanged: number;
  /** Scenarios whose context held a revoked record (summary semantics: completed units, last one per scenario). */
  contextExposureBefore: { k: number; n: number };
  /** The same under the new configuration; null when a unit's input could not be matched to its probe's labels. */
  contextExposureAfter: { k: number; n: number } | null;
}

/** Everything `rescoreGuard` found. */
export interface GuardRescore {
  /** The configuration re-applied (defaults filled in). */
  guardConfig: GuardConfig;
  /** Table 9 as recorded (the pipeline's probes always use the default configuration). */
  recordedGuardMetrics: GuardMetrics[];
  /** Table 9 under `guardConfig`. */
  guardMetrics: GuardMetrics[];
  /** Probes whose recorded withheld texts this code's default guard does not reproduce (empty = recorded verdicts reproduce). */
  unreproducedProbes: string[];
  /** Unit counts: with a trace, with a different verdict, with a different context; and the ids of the latter. */
  units: { traced: number; verdictChanged: number; contextChanged: number; contextChangedUnitIds: string[] };
  /** Per-unit details, only for units whose verdict changed. */
  changes: UnitGuardChange[];
  /** Per-cell counts, for cells with at least one traced unit, in the order units were first seen. */
  cells: GuardRescoreCell[];
}

/** The guard's withheld texts on a probe's default read under `config`, with the probe's own clock; null when the probe has no guard clock. */
function probeWithheldTexts(probe: ProbeRecord, config: Partial<GuardConfig>): string[] | null {
  if (probe.status !== 'ok' || !probe.guard) return null;
  return tableNineWithheld(probe.defaultRead ?? [], new Date(probe.guard.now), config);
}

/** The run's probes with `guard.withheldTexts` recomputed under `config` (probes without a guard clock are kept as they are). */
function reguardProbes(
  probes: ReadonlyMap<string, ProbeRecord>,
  config: Partial<GuardConfig>,
): Map<string, ProbeRecord> {
  const result = new Map<string, ProbeRecord>();
  for (const [id, probe] of probes) {
    const withheldTexts = probeWithheldTexts(probe, config);
    result.set(
      id,
      withheldTexts === null || !probe.guard ? probe : { ...probe, guard: { ...probe.guard, withheldTexts } },
    );
  }
  return result;
}

/** Table 9 (`guardMetricsOf` semantics: revoked = default-read facts absent from the filtered read) under `config`. */
export function guardMetricsUnder(
  run: { manifest: Pick<LoadedRun['manifest'], 'spec'>; probes: ReadonlyMap<string, ProbeRecord> },
  config: Partial<GuardConfig>,
): GuardMetrics[] {
  const { spec } = run.manifest;
  return guardMetricsOf(spec.systems, spec.modes, spec.scenarios, reguardProbes(run.probes, config));
}

const sameIds = (a: readonly MemoryRecord[], b: readonly MemoryRecord[] | null | undefined) =>
  b != null && a.length === b.length && a.every((record, i) => record.id === b[i]!.id && record.text === b[i]!.text);

/** The revocation labels of a guard input, found by matching it to the probe's default or filtered read. */
function inputLabels(input: readonly MemoryRecord[], probe: ProbeRecord | undefined): boolean[] | null {
  if (!probe) return null;
  if (sameIds(input, probe.defaultRead) && probe.defaultLabels?.length === input.length) return probe.defaultLabels;
  if (sameIds(input, probe.filteredRead) && probe.filteredLabels?.length === input.length) return probe.filteredLabels;
  return null;
}

/**
 * Re-applies the guard with `config` to every probe's default read (Table 9) and to every unit whose context went
 * through the guard (`context.guard.input`, clock `context.guard.now`). Never invents a decision: a unit whose kept
 * texts change is only counted and listed. Throws `InvalidInputError` for an invalid configuration.
 *
 * @example const rescore = rescoreGuard(loadRun('runs/sim_8e9e3bd3'), { subjectOverlap: 0.3 });
 */
export function rescoreGuard(run: LoadedRun, config: Partial<GuardConfig>): GuardRescore {
  const rescorer = createGuardRescorer(run.manifest, config);
  for (const record of run.records.values()) rescorer.add(record, run.probes);
  return rescorer.finish(run.probes);
}

/** `rescoreGuard` one record at a time, so a run's records can be streamed through it (`pnpm rescore --guard-*`). */
export interface GuardRescorer {
  /** Re-applies the guard to one unit; a later record of the same unit replaces the earlier one. */
  add(record: UnitRecord, probes: ReadonlyMap<string, ProbeRecord>): void;
  /** Everything found, with Table 9 re-applied to `probes`. */
  finish(probes: ReadonlyMap<string, ProbeRecord>): GuardRescore;
}

/** What one traced unit contributes, kept per unit id (the last record of a unit wins). */
interface UnitOutcome {
  cellId: string;
  cell: Omit<GuardRescoreCell, 'units' | 'contextChanged' | 'contextExposureBefore' | 'contextExposureAfter'>;
  change: UnitGuardChange | null;
  contextChanged: boolean;
  /** Completed units of a spec scenario: the scenario, its exposure before, and after (null: labels unmatched). */
  exposure: { scenario: string; before: boolean; after: boolean | null } | null;
}

/** A `GuardRescorer` for a run with this manifest; throws `InvalidInputError` for an invalid configuration. */
export function createGuardRescorer(manifest: LoadedRun['manifest'], config: Partial<GuardConfig>): GuardRescorer {
  const guardConfig = resolveGuardConfig(config, 'guard configuration');
  // The registered guard with the new configuration: the same screen the run applied, other thresholds.
  const screen = screenOf(AXIS_DEFENCES.guard, guardConfig);
  const { spec } = manifest;
  const labelOf = new Map(manifest.models.map((m) => [m.id, m.label]));
  const outcomes = new Map<string, UnitOutcome | null>();
  const outcomeOf = (record: UnitRecord, probes: ReadonlyMap<string, ProbeRecord>): UnitOutcome | null => {
    const trace = record.context.guard;
    if (!trace) return null;
    const verdict = screen({ records: trace.input, now: new Date(trace.now) });
    const keptTexts = pick(trace.input, verdict.kept).map((record) => record.text);
    const contextChanged = JSON.stringify(keptTexts) !== JSON.stringify(record.context.records.map((r) => r.text));
    const before = trace.withheld.map((w) => `${w.index}\u0000${w.stage}\u0000${w.reason}`);
    const after = verdict.withheld.map((w) => `${w.index}\u0000${w.stage}\u0000${w.reason}`);
    let change: UnitGuardChange | null = null;
    if (JSON.stringify(before) !== JSON.stringify(after) || contextChanged) {
      const beforeIndexes = new Set(trace.withheld.map((w) => w.index));
      const afterIndexes = new Set(verdict.withheld.map((w) => w.index));
      change = {
        unitId: record.unitId,
        key: record.key,
        status: record.status,
        withheldBefore: [...beforeIndexes].sort((a, b) => a - b),
        withheldAfter: [...afterIndexes].sort((a, b) => a - b),
        newlyWithheld: verdict.withheld
          .filter((w) => !beforeIndexes.has(w.index))
          .map(({ index, text, reason }) => ({ index, text, reason })),
        released: trace.withheld.filter((w) => !afterIndexes.has(w.index)).map(({ index, text }) => ({ index, text })),
        contextChanged,
      };
    }
    const { key } = record;
    let exposure: UnitOutcome['exposure'] = null;
    if (record.status === 'ok' && spec.scenarios.includes(key.scenario)) {
      const labels = inputLabels(trace.input, probes.get(`${key.system}/${key.mode}/${key.scenario}`));
      exposure = {
        scenario: key.scenario,
        before: record.context.exposed,
        after: labels === null ? null : verdict.kept.some((index) => labels[index] === true),
      };
    }
    return {
      cellId: [key.model, key.system, key.mode, key.arm, ...cellAxesId('grid', key)].join('\u0000'),
      cell: {
        model: key.model,
        modelLabel: labelOf.get(key.model) ?? key.model,
        system: key.system,
        mode: key.mode,
        arm: key.arm,
        ...cellAxes('grid', key),
      },
      change,
      contextChanged,
      exposure,
    };
  };
  return {
    add(record, probes) {
      outcomes.set(record.unitId, outcomeOf(record, probes));
    },
    finish(probes) {
      return aggregate(
        guardConfig,
        spec,
        probes,
        [...outcomes.values()].filter((o) => o !== null),
      );
    },
  };
}

/** The rescore from the units' outcomes, in the order their units were first seen. */
function aggregate(
  guardConfig: GuardConfig,
  spec: LoadedRun['manifest']['spec'],
  probes: ReadonlyMap<string, ProbeRecord>,
  outcomes: readonly UnitOutcome[],
): GuardRescore {
  const unreproducedProbes = [...probes]
    .filter(([, probe]) => {
      const texts = probeWithheldTexts(probe, DEFAULT_GUARD_CONFIG);
      return texts !== null && JSON.stringify(texts) !== JSON.stringify(probe.guard!.withheldTexts);
    })
    .map(([id]) => id);
  const cells = new Map<
    string,
    GuardRescoreCell & { before: Map<string, boolean>; after: Map<string, boolean> | null }
  >();
  for (const outcome of outcomes) {
    const cell = cells.get(outcome.cellId) ?? {
      ...outcome.cell,
      units: 0,
      contextChanged: 0,
      contextExposureBefore: { k: 0, n: 0 },
      contextExposureAfter: null,
      before: new Map(),
      after: new Map(),
    };
    cells.set(outcome.cellId, cell);
    cell.units += 1;
    if (outcome.contextChanged) cell.contextChanged += 1;
    if (!outcome.exposure) continue;
    cell.before.set(outcome.exposure.scenario, outcome.exposure.before);
    if (outcome.exposure.after === null) cell.after = null;
    else cell.after?.set(outcome.exposure.scenario, outcome.exposure.after);
  }
  const changes = outcomes.flatMap((o) => (o.change ? [o.change] : []));
  const count = (map: Map<string, boolean>) => ({ k: [...map.values()].filter(Boolean).length, n: map.size });
  const contextChangedUnitIds = changes.filter((c) => c.contextChanged).map((c) => c.unitId);
  return {
    guardConfig,
    recordedGuardMetrics: guardMetricsOf(spec.systems, spec.modes, spec.scenarios, probes),
    guardMetrics: guardMetricsUnder({ manifest: { spec }, probes }, guardConfig),
    unreproducedProbes,
    units: {
      traced: outcomes.length,
      verdictChanged: changes.length,
      contextChanged: contextChangedUnitIds.length,
      contextChangedUnitIds,
    },
    changes,
    cells: [...cells.values()].map(({ before, after, ...cell }) => ({
      ...cell,
      contextExposureBefore: count(before),
      contextExposureAfter: after && count(after),
    })),
  };
}

/** The configuration fields that differ from the defaults, as `key default → value`. */
export function describeGuardConfig(config: GuardConfig): string {
  const changed = (Object.keys(DEFAULT_GUARD_CONFIG) as (keyof GuardConfig)[]).filter(
    (key) => config[key] !== DEFAULT_GUARD_CONFIG[key],
  );
  return changed.length === 0
    ? 'default configuration'
    : changed.map((key) => `${key} ${String(DEFAULT_GUARD_CONFIG[key])} → ${String(config[key])}`).join(', ');
}

/** Before/after Table 9 as fixed-width text (rows with nothing to count are left out). */
export function formatGuardMetricsComparison(before: readonly GuardMetrics[], after: readonly GuardMetrics[]): string {
  const header = [
    'system',
    'mode',
    'revoked present',
    'caught (recorded)',
    'caught (new)',
    'current withheld (recorded)',
    'current withheld (new)',
  ];
  const rows = before.flatMap((b) => {
    const a = after.find((m) => m.system === b.system && m.mode === b.mode);
    if (!a || b.revokedPresent + b.currentTotal === 0) return [];
    return [
      [
        b.system,
        b.mode,
        `${b.revokedPresent}`,
        `${b.revokedCaught}/${b.revokedPresent}`,
        `${a.revokedCaught}/${a.revokedPresent}`,
        `${b.currentWithheld}/${b.currentTotal}`,
        `${a.currentWithheld}/${a.currentTotal}`,
      ],
    ];
  });
  const all = [header, ...rows];
  const widths = header.map((_, column) => Math.max(...all.map((r) => r[column]!.length)));
  const line = (cells: string[]) =>
    cells
      .map((c, i) => c.padEnd(widths[i]!))
      .join('  ')
      .trimEnd();
  return [line(header), widths.map((w) => '-'.repeat(w)).join('  '), ...rows.map(line)].join('\n');
}
