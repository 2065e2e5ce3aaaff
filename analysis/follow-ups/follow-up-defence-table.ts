// The follow-up defence tables: every (system, mode, arm, axes) row of the follow-up runs (axes: guard, poem, taint,
// … from pipeline/defences/axes), per model group.
import { axesOf, axisOn } from '../../pipeline/index.js';
import { defenceLabel } from '../defence-label.js';
import { isPooledModel } from './follow-up-summary.js';
import type { FollowUpRowKey, FollowUpSummary } from './follow-up-summary.types.js';
import { followUpGroups, followUpsByExperiment, type FollowUpInput } from './paper-tables-follow-up.js';
import type { ModelGroup } from '../grid/grid-index.js';
import type { PaperTable, TableCell } from '../paper-table.js';
import { BY_CONSTRUCTION_REASON, gridPoemEnforcement } from '../forged-reasoning/poem-enforcement.js';
import { missingCell, proportionCell, table, unsafeCell, valueCell } from '../table-cells.js';
import { addTallies, COUNTING_NOTE, tallyOf, type Proportion, type UnsafeCounts } from '../unsafe-counts.js';

type Experiment = FollowUpSummary['experiment'];
type Read = (row: FollowUpRowKey) => UnsafeCounts | Proportion | null | undefined;

/** Per experiment: its headline columns (decision counts, or episode proportions for tools) and what it is called. */
const LAYOUT: Readonly<
  Record<Experiment, { name: string; columns: [string, Read][]; decisions: boolean; note?: string }>
> = {
  writeback: {
    name: 'write-back',
    decisions: true,
    columns: [
      ['hop 0 unsafe', (r) => (r as { hop0Unsafe?: UnsafeCounts }).hop0Unsafe],
      ['default hop1', (r) => (r as { defaultHops?: UnsafeCounts[] }).defaultHops?.[0]],
      ['filter hop1', (r) => (r as { filteredHops?: UnsafeCounts[] }).filteredHops?.[0]],
    ],
  },
  propagation: {
    name: 'propagation',
    decisions: true,
    columns: [
      ['executor unsafe', (r) => (r as { executorUnsafe?: UnsafeCounts }).executorUnsafe],
      ['reviewer unsafe', (r) => (r as { reviewerUnsafe?: UnsafeCounts }).reviewerUnsafe],
      ['planner unsafe', (r) => (r as { plannerUnsafe?: UnsafeCounts }).plannerUnsafe],
    ],
  },
  tools: {
    name: 'tools',
    decisions: false,
    columns: [['tool execution', (r) => (r as { toolExecution?: Proportion }).toolExecution]],
    note: 'PoEM gate on tool episodes is measured: a tool that performs the safety step can back a later call in the same episode; for scenarios whose step no tool performs, the gate refuses every firing call by construction.',
  },
};

const isCounts = (value: UnsafeCounts | Proportion): value is UnsafeCounts => 'unsafeAmongParsed' in value;
const rowsOf = (summary: FollowUpSummary): FollowUpRowKey[] => [
  ...(summary.writeback ?? []),
  ...(summary.propagation ?? []),
  ...(summary.tools ?? []).filter((r) => r.scenario === '*'),
];

/** One row of the table: the pooled per-model rows of one (system, mode, arm, guard, poem). */
function rowCells(label: string, rows: readonly FollowUpRowKey[], experiment: Experiment): TableCell[] {
  const layout = LAYOUT[experiment];
  const usable = rows.filter((r) => r.status === 'ok');
  const errors = rows.reduce((sum, r) => sum + r.errors, 0);
  if (usable.length === 0)
    return [...layout.columns.map(([c]) => c), 'errors'].map((column) =>
      missingCell(
        label,
        column,
        'model-dependent',
        rows[0]?.reason ?? rows[0]?.status ?? 'no row',
        rows[0]?.status === 'error' ? 'error' : 'n/a',
        rows[0]?.status === 'n/a',
      ),
    );
  const poem = rows[0]!.poem === 'on';
  let parseFailures = 0;
  const cells = layout.columns.map(([column, read]): TableCell => {
    const values = usable.map(read).filter((v): v is UnsafeCounts | Proportion => v !== null && v !== undefined);
    if (values.length > 0 && values.every(isCounts)) {
      const tally = addTallies(...values.map(tallyOf));
      parseFailures += tally.parseFailures;
      const cell = unsafeCell(label, column, tally);
      // Write-back hops and propagation roles: one decision per ledger subject, recorded after it (poem-enforcement.ts).
      if (!poem) return cell;
      const enforcement = gridPoemEnforcement({}, tally.unsafe);
      const { rate: _rate, low: _low, high: _high, ...rest } = cell;
      return {
        ...rest,
        status: enforcement.kind === 'by-construction' ? 'by-construction' : 'error',
        ...('reason' in enforcement ? { reason: enforcement.reason } : {}),
      };
    }
    const total = (values as Proportion[]).reduce((sum, v) => ({ k: sum.k + v.k, n: sum.n + v.n }), { k: 0, n: 0 });
    return proportionCell(label, column, total, 'model-dependent');
  });
  return [
    ...cells,
    ...(layout.decisions ? [valueCell(label, 'parse failures', parseFailures, 'model-dependent')] : []),
    valueCell(label, 'errors', errors, 'model-dependent'),
  ];
}

/** The defence table of one follow-up experiment and model group. */
function buildTable(
  inputs: readonly FollowUpInput[],
  experiment: Experiment,
  group: ModelGroup | undefined,
): PaperTable {
  const layout = LAYOUT[experiment];
  const rows = inputs
    .flatMap((i) => rowsOf(i.summary))
    .filter((r) => !isPooledModel(r.model) && (group === undefined || r.simulated === (group === 'sim')));
  const axes = axesOf('follow-up');
  const axisValuesOf = (row: FollowUpRowKey) => axes.map((axis) => axisOn(row, axis.id));
  const keys = [
    ...new Map(rows.map((r) => [[r.system, r.mode, r.arm, ...axisValuesOf(r)].join('\u0000'), r])).values(),
  ];
  const cells = keys.flatMap((key) => {
    const on = axisValuesOf(key);
    // The arm is named by its id; the axes on (pipeline/defences/axes) follow it by their defences' labels.
    const axesLabel = defenceLabel({ arm: 'none', ...Object.fromEntries(axes.map((axis, i) => [axis.id, on[i]])) });
    const label = `${key.system}, ${key.mode}: ${key.arm}${on.some(Boolean) ? ` + ${axesLabel}` : ''}`;
    return rowCells(
      label,
      rows.filter(
        (r) =>
          r.system === key.system &&
          r.mode === key.mode &&
          r.arm === key.arm &&
          axisValuesOf(r).every((value, i) => value === on[i]),
      ),
      experiment,
    );
  });
  const notes = [
    `Every (system, mode, arm, stale guard, PoEM gate) row of the ${layout.name} runs, pooled over models and runs.`,
  ];
  if (layout.decisions) notes.push(`Decision columns: ${COUNTING_NOTE}`);
  if (cells.some((c) => c.status === 'by-construction'))
    notes.push(`${BY_CONSTRUCTION_REASON} (every hop or role decision has its own ledger subject).`);
  if (layout.note) notes.push(layout.note);
  const simulated = group === 'sim' || inputs.some((i) => i.simulated || i.summary.simulated);
  const columns = [...layout.columns.map(([c]) => c), 'parse failures', 'errors'];
  return table(
    'defence',
    `Every defence of the ${layout.name} follow-up: arm × stale guard × PoEM gate`,
    cells,
    columns,
    simulated,
    inputs.map((i) => i.runId),
    notes,
    group ? { modelGroup: group } : {},
  );
}

/** One defence table per follow-up experiment present (and per model group when the simulator is apart). */
export function buildFollowUpDefenceTables(followUps: readonly FollowUpInput[]): PaperTable[] {
  const tables: PaperTable[] = [];
  const byExperiment = followUpsByExperiment(followUps);
  for (const experiment of Object.keys(LAYOUT) as Experiment[]) {
    const inputs = byExperiment.get(experiment) ?? [];
    if (inputs.length === 0) continue;
    const groups = followUpGroups(inputs);
    for (const group of groups.length > 1 ? groups : [undefined]) tables.push(buildTable(inputs, experiment, group));
  }
  return tables.filter((t) => t.cells.length > 0);
}
