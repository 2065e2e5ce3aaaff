// Layout and pieces the grid tables share (Tables 6–13): the paper's row labels, systems, arms, and notes.
import { COUNTING_NOTE } from '../unsafe-counts.js';
import { pool, probesOf, type GridIndex, type ModelGroup } from '../grid/grid-index.js';
import type { LoadedRun } from '../load-run.js';
import type { TableCell } from '../paper-table.js';
import { missingCell, proportionCell, unsafeCell, valueCell } from '../table-cells.js';

/** Our system ids → the paper's row labels. */
const SYSTEM_LABELS: Readonly<Record<string, string>> = {
  graphiti: 'graphiti',
  'mem0-exp': 'mem0 (exp.)',
  mem0: 'mem0',
  langmem: 'langmem',
  cognee: 'cognee',
  'zep-ce': 'zep',
};
/** The two systems that return the revoked record in direct mode; the paper pools Tables 6 (pooled row), 7 and 8/11 over them. */
export const EXPOSED_SYSTEMS: readonly string[] = ['graphiti', 'mem0-exp'];
/** Our reading of the paper's unidentified "three clean-context baselines" (spec §16 item 6). */
export const CLEAN_SYSTEMS: readonly string[] = ['cognee', 'langmem', 'mem0'];
/** The paper's nine decision-model labels (Table 7 rows); a run's model id or label that matches one takes its label. */
const PAPER_MODEL_LABELS = [
  'GPT-5.5',
  'Grok-4',
  'DeepSeek-V4-Flash',
  'GPT-5-nano',
  'Gemini-2.5-Flash',
  'Grok-4-Fast (non-reasoning)',
  'GLM-5.2',
  'Gemma-3-27B-IT',
  'Kimi-K2.6',
] as const;

/** Tables 6 and 13: the arms and their column labels, in the paper's order. */
export const TABLE6_ARMS: [string, string][] = [
  ['none', 'no defense'],
  ['store-filter', 'filter'],
  ['prompt-hardening', 'prompt'],
  ['output-filter', 'output'],
  ['filter-hardening', 'filter+prompt'],
  ['guard', 'guard'],
];

/** The paper's row label of a system id (the id itself when the paper has none). */
export const systemLabel = (id: string) => SYSTEM_LABELS[id] ?? id;
const normalized = (text: string) => text.toLowerCase().replace(/[^a-z0-9]/g, '');

/** The paper's label for a model whose id or label names one of its nine models; otherwise the run's own label. */
export function modelRowLabel(model: { id: string; label: string }): string {
  const candidates = [model.id, model.id.split('/').pop() ?? model.id, model.label].map(normalized);
  const paper = PAPER_MODEL_LABELS.find(
    (label) =>
      candidates.includes(normalized(label)) || candidates.includes(normalized(label.replace(/\s*\(.*\)$/, ''))),
  );
  return paper ?? model.label;
}

/** The notes every unsafe table of a grid index carries: how it counts, and what it left out. */
export function indexNotes(index: GridIndex): string[] {
  const notes = [
    `Unsafe cells: ${COUNTING_NOTE}`,
    `${index.parseFailures} completed trial(s) gave no action (not unsafe, inside n); ${index.errors} errored trial(s) are in no n. Per cell: the defence table, and tables.csv (parse_failures, errors, unsafe_among_parsed_*).`,
  ];
  if (index.axisUnits > 0)
    notes.push(
      `${index.axisUnits} unit(s) with --guard on or --poem on are not in the paper's layout; they are in the defence table.`,
    );
  return notes;
}

/** The table extras of a model group (none for all models). */
export const extrasOf = (group: ModelGroup | undefined) => (group ? { modelGroup: group } : {});

/** One system row of Tables 6 and 13: exposure, rank (Table 6 only) and one cell per arm run. */
export function systemRow(index: GridIndex, system: string, row: string, withRank: boolean): TableCell[] {
  const probes = probesOf(index.runs, system, 'direct', index.group);
  if (!probes) return [];
  const columns = [...(withRank ? ['rank'] : []), ...TABLE6_ARMS.map(([, column]) => column)];
  if (probes.blocked && probes.ok.length === 0) {
    const { status, reason, unsupported } = probes.blocked;
    return ['exposure', ...columns].map((column) =>
      missingCell(
        row,
        column,
        column === 'exposure' || column === 'rank' ? 'model-independent' : 'model-dependent',
        reason,
        status,
        unsupported,
      ),
    );
  }
  const embedder = probes.embedders.join(' + ');
  const cells = [
    proportionCell(row, 'exposure', { k: probes.repeatedExposed, n: probes.repeatedOk }, 'model-independent', {
      models: probes.models,
      embedder,
    }),
  ];
  if (withRank) {
    const ranks = probes.ok.map((p) => p.exposure?.revokedRank).filter((r): r is number => typeof r === 'number');
    cells.push(
      ranks.length === 0
        ? { ...missingCell(row, 'rank', 'model-independent', 'no revoked record returned'), embedder }
        : {
            ...valueCell(row, 'rank', ranks.reduce((a, b) => a + b, 0) / ranks.length, 'model-independent'),
            embedder,
            reason: `mean over ${ranks.length} exposed scenario(s), range ${Math.min(...ranks)}–${Math.max(...ranks)}`,
          },
    );
  }
  for (const [arm, column] of TABLE6_ARMS) {
    const tally = pool(index, { systems: [system], arm });
    if (tally.completed + tally.errors > 0) cells.push(unsafeCell(row, column, tally));
  }
  return cells;
}

/** The systems among `systems` whose direct probes have at least one usable row in the index's group. */
export const present = (index: GridIndex, systems: readonly string[]) =>
  systems.filter((s) => probesOf(index.runs, s, 'direct', index.group)?.ok.length);
/** The runs a table's cells come from: those with a decision model in the group (all, for model-independent tables). */
export const runIds = (runs: readonly LoadedRun[], group?: ModelGroup) =>
  runs
    .filter((r) => group === undefined || r.manifest.models.some((m) => m.simulated === (group === 'sim')))
    .map((r) => r.manifest.runId);
/** The note naming the embedder(s) behind a table's retrieval-only cells. */
export const embedderNote = (cells: readonly TableCell[]) => {
  const embedders = [...new Set(cells.map((c) => c.embedder).filter((e): e is string => e !== undefined))];
  return embedders.length === 0
    ? []
    : [
        `Retrieval-only cells were produced with the embedder ${embedders.join('; ')} (manifest.embedder); they depend on it.`,
      ];
};
