// The defence table: every (system, mode, arm, axes) cell of the grid runs (axes: guard, poem, … from
// pipeline/defences/axes), with its full counts, per model group.
import { defenceLabel } from '../defence-label.js';
import { embedderOf, modelGroupsOf, probesOf, type ModelGroup } from './grid-index.js';
import type { LoadedRun } from '../load-run.js';
import type { PaperTable, TableCell } from '../paper-table.js';
import {
  type AxisChoice,
  type AxisId,
  axesOf,
  axisCombinations,
  axisOn,
  priorStepDesignOf,
  type UnitRecord,
} from '../../pipeline/index.js';
import { BY_CONSTRUCTION_REASON, PRIOR_STEP_REASON } from '../forged-reasoning/poem-enforcement.js';
import { POEM_SKIPS_NOTE, poemCellFields } from '../forged-reasoning/poem-skip-counts.js';
import { missingCell, proportionCell, table, unsafeCell, valueCell } from '../table-cells.js';
import { COUNTING_NOTE, tallyDecisions, unsafeCounts, type CountedDecision } from '../unsafe-counts.js';

/** The columns of the defence table, in order; the three after `unsafe` are the same on every surface. */
const DEFENCE_COLUMNS = ['unsafe', 'parse failures', 'errors', 'unsafe | parsed', 'revoked in context'] as const;

/** The PoEM-on rows' two gate measurements (analysis/forged-reasoning/poem-skip-counts.ts); absent from a table without such rows. */
const POEM_COLUMNS = ['unsafe skips blocked', 'legitimate skips wrongly blocked'] as const;

const union = (lists: readonly (readonly string[])[]) => [...new Set(lists.flat())];

/** The row label: `graphiti, direct: store filter + stale guard + PoEM gate`. */
const defenceRowLabel = (system: string, mode: string, defence: string) => `${system}, ${mode}: ${defence}`;

/** The cells of one defence row, from the records of the group's models (guard and PoEM axes as recorded). */
function defenceCells(
  runs: readonly LoadedRun[],
  row: string,
  where: { system: string; mode: string; arm: string; axes: Readonly<Record<string, boolean>> },
  group: ModelGroup | undefined,
): TableCell[] {
  const decisions: CountedDecision[] = [];
  const gated: UnitRecord[] = [];
  // The skip columns only when every run pooled here recorded the prior-step design (an older run has no legitimate skips).
  let designed = true;
  let context = { k: 0, n: 0 };
  const embedders: string[] = [];
  for (const run of runs) {
    const models = new Set(
      run.manifest.models.filter((m) => group === undefined || m.simulated === (group === 'sim')).map((m) => m.id),
    );
    const records = [...run.records.values()].filter(
      (r) =>
        models.has(r.key.model) &&
        r.key.system === where.system &&
        r.key.mode === where.mode &&
        r.key.arm === where.arm &&
        axesOf('grid').every((axis) => axisOn(r.key, axis.id) === where.axes[axis.id]),
    );
    if (records.length === 0) continue;
    designed &&= priorStepDesignOf(run.manifest) !== null;
    if (!embedders.includes(embedderOf(run))) embedders.push(embedderOf(run));
    decisions.push(
      ...records.map((r) => ({
        status: r.status,
        unsafe: r.scores?.unsafe ?? null,
        parseFailure: r.scores?.parseFailure ?? false,
      })),
    );
    for (const r of records) if (r.status === 'ok') gated.push(r);
    // Revoked in context is per scenario (it does not depend on the model): exposed when any completed unit's context held one.
    const byScenario = new Map<string, boolean>();
    for (const r of records)
      if (r.status === 'ok')
        byScenario.set(r.key.scenario, (byScenario.get(r.key.scenario) ?? false) || r.context.exposed);
    context = { k: context.k + [...byScenario.values()].filter(Boolean).length, n: context.n + byScenario.size };
  }
  if (decisions.length === 0) return [];
  const tally = tallyDecisions(decisions);
  const counts = unsafeCounts(tally);
  let unsafe = unsafeCell(row, 'unsafe', tally);
  let parsed = proportionCell(row, 'unsafe | parsed', counts.unsafeAmongParsed, 'model-dependent');
  const poem = where.axes.poem ? poemCellFields(gated, counts.unsafe.k, designed) : null;
  if (poem) {
    const enforcement = poem.poemEnforcement;
    const status = enforcement.kind === 'by-construction' ? 'by-construction' : 'error';
    const reason = enforcement.kind === 'measured' ? undefined : enforcement.reason;
    // The counts stay (k, n) but no rate or interval: a guaranteed 0 is not a measured one.
    const strip = ({ rate: _rate, low: _low, high: _high, ...cell }: TableCell): TableCell => ({
      ...cell,
      status,
      ...(reason ? { reason } : {}),
    });
    unsafe = strip(unsafe);
    parsed = strip(parsed);
  }
  const embedder = embedders.join(' + ');
  return [
    unsafe,
    valueCell(row, 'parse failures', counts.parseFailures, 'model-dependent'),
    valueCell(row, 'errors', counts.errors, 'model-dependent'),
    parsed,
    proportionCell(row, 'revoked in context', context, 'model-independent', { embedder }),
    ...(poem?.poemSkips
      ? [
          proportionCell(row, POEM_COLUMNS[0], poem.poemSkips.unsafeSkipsBlocked, 'model-dependent'),
          proportionCell(row, POEM_COLUMNS[1], poem.poemSkips.legitimateSkipsWronglyBlocked, 'model-dependent'),
        ]
      : []),
  ];
}

/** The defence table of one model group (all models when `group` is undefined). */
function buildDefenceTable(runs: readonly LoadedRun[], group?: ModelGroup): PaperTable {
  const specs = runs.map((r) => r.manifest.spec);
  const systems = union(specs.map((s) => s.systems));
  const modes = union(specs.map((s) => s.modes));
  const arms = union(specs.map((s) => s.arms));
  // Each axis with the values any run gives it, in first-seen order (an absent axis is off).
  const axes = Object.fromEntries(
    axesOf('grid').map((axis) => [axis.id, union(specs.map((s) => s[axis.id as AxisId] ?? ['off']))]),
  ) as AxisChoice;
  const cells: TableCell[] = [];
  for (const system of systems)
    for (const mode of modes) {
      const probes = probesOf(runs, system, mode, group);
      if (!probes) continue;
      if (probes.blocked && probes.ok.length === 0) {
        const { status, reason, unsupported } = probes.blocked;
        cells.push(
          ...DEFENCE_COLUMNS.map((column) =>
            missingCell(
              defenceRowLabel(system, mode, 'every defence'),
              column,
              column === 'revoked in context' ? 'model-independent' : 'model-dependent',
              reason,
              status,
              unsupported,
            ),
          ),
        );
        continue;
      }
      for (const arm of arms)
        for (const on of axisCombinations(axesOf('grid'), axes))
          cells.push(
            ...defenceCells(
              runs,
              defenceRowLabel(system, mode, defenceLabel({ arm, ...on })),
              { system, mode, arm, axes: on },
              group,
            ),
          );
    }
  const models = [
    ...new Map(
      runs
        .flatMap((r) => r.manifest.models)
        .filter((m) => group === undefined || m.simulated === (group === 'sim'))
        .map((m) => [m.id, m.label]),
    ).values(),
  ];
  const notes = [
    `Every (system, mode, defence) cell of the grid runs, pooled over ${models.length === 1 ? `the decision model ${models[0]}` : `the decision models ${models.join(', ')}`} and all scenarios and trials; the guard (--guard) and PoEM (--poem) axes are part of the defence.`,
    `unsafe: ${COUNTING_NOTE}`,
    'revoked in context = scenarios whose context under this defence held a revoked record (retrieval only; summed over runs).',
  ];
  // A run from before the prior-step design (issue #16 item 5) has no legitimate skips: the old rule note applies.
  if (cells.some((c) => c.reason === PRIOR_STEP_REASON)) notes.push(POEM_SKIPS_NOTE);
  else if (cells.some((c) => c.status === 'by-construction'))
    notes.push(
      `${BY_CONSTRUCTION_REASON}. Rule (analysis/forged-reasoning/poem-enforcement.ts): in the grid each unit makes one decision, and the action layer records a safety step only after executing that decision, for the unit's own ledger subject; no unit can have run its safety step before its gated decision, so "allowed" is impossible there.`,
    );
  const simulatedModels =
    group === 'sim' || (group === undefined && runs.some((r) => r.manifest.models.some((m) => m.simulated)));
  const simulatedExtraction =
    modes.includes('natural') &&
    runs.some((r) => r.manifest.extraction?.simulated && r.manifest.spec.modes.includes('natural'));
  if (simulatedExtraction) notes.push('Natural-mode rows: ingestion used the simulated extractor (sim).');
  return table(
    'defence',
    'Every defence of the grid: arm × stale guard × PoEM gate, per system and mode',
    cells,
    [...DEFENCE_COLUMNS, ...POEM_COLUMNS],
    simulatedModels || simulatedExtraction,
    runs
      .filter((r) => group === undefined || r.manifest.models.some((m) => m.simulated === (group === 'sim')))
      .map((r) => r.manifest.runId),
    notes,
    group ? { modelGroup: group } : {},
  );
}

/** The defence tables of the grid runs: one, or the real models' and the simulator's apart. */
export function buildDefenceTables(runs: readonly LoadedRun[]): PaperTable[] {
  if (runs.length === 0) return [];
  const groups = modelGroupsOf(runs);
  return (groups.length > 1 ? groups : [undefined])
    .map((group) => buildDefenceTable(runs, group))
    .filter((t) => t.cells.length > 0);
}
