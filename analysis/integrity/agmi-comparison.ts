// Our at-rest verdicts beside agmi's published table (data/agmi/at-rest.json), cell by cell, each disagreement with
// the reason our own observation gives. Reference data only: agmi's cells never stand in for a measurement of ours.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import type { CellResult, IntegrityReport, TargetResult } from '../../pipeline/index.js';
import { parseJsonFile } from '../../scenarios/scenario-file.js';

/** Where the transcribed table lives: `data/agmi/at-rest.json` at the repository root. */
const DEFAULT_AT_REST = fileURLToPath(new URL('../../data/agmi/at-rest.json', import.meta.url));

const EDITS = ['T1', 'T2', 'T3', 'T4', 'T5', 'T6', 'T7', 'T8', 'T9'] as const;
type Edit = (typeof EDITS)[number];
const agmiWord = z.enum(['accepted', 'rejected', 'reported', 'error']);
const cellsOf = <T extends z.ZodType>(word: T) => z.partialRecord(z.enum(EDITS), word);

const atRestSchema = z.strictObject({
  table: z.literal('at-rest'),
  title: z.string().min(1),
  /** Where the cells were transcribed from. */
  source: z.string().min(1),
  edits: z.tuple(EDITS.map((edit) => z.literal(edit)) as [z.ZodLiteral<'T1'>, ...z.ZodLiteral<Edit>[]]),
  rows: z
    .array(
      z.strictObject({
        /** agmi's row label as printed. */
        row: z.string().min(1),
        /** agmi's version column as printed. */
        version: z.string().min(1),
        /** Our target ids measuring this row (a `<id>@<version>` target maps to `<id>`'s row). */
        targets: z.array(z.string().min(1)),
        /** The printed verdicts; a missing edit is a blank cell (not measured by agmi). */
        cells: cellsOf(agmiWord),
        /** agmi's own explanation of a cell (its T6 `error` cells). */
        note: z.string().min(1).optional(),
        /** What agmi's note says a real measurement gives where it printed `error`. */
        predicted: cellsOf(agmiWord.exclude(['error'])).optional(),
        /** False when the row's package cannot be installed from a registry. */
        installable: z.boolean().optional(),
      }),
    )
    .min(1),
});

/** agmi's at-rest table as transcribed. */
export type AgmiAtRest = z.output<typeof atRestSchema>;

/**
 * Reads and validates the transcribed table; a bad file throws one InvalidInputError naming the file and field.
 *
 * @example const agmi = loadAgmiAtRest();
 */
export function loadAgmiAtRest(path = DEFAULT_AT_REST): AgmiAtRest {
  const parsed = parseJsonFile(readFileSync(path, 'utf8'), path, atRestSchema, {
    valid: (table) => {
      const owners = new Map<string, string>();
      const issues: { path: string; message: string }[] = [];
      table.rows.forEach((row, index) => {
        for (const id of row.targets) {
          const owner = owners.get(id);
          if (owner) issues.push({ path: `rows[${index}].targets`, message: `${id} is already the row "${owner}"` });
          owners.set(id, row.row);
        }
        for (const edit of Object.keys(row.predicted ?? {}) as Edit[])
          if (row.cells[edit] !== 'error')
            issues.push({
              path: `rows[${index}].predicted.${edit}`,
              message: 'a prediction stands only for an error cell',
            });
      });
      return issues;
    },
  });
  if (parsed instanceof Error) throw parsed;
  return parsed;
}

/** How one cell compares. */
export type CellComparison =
  | { edit: Edit; status: 'agree' | 'disagree'; ours: string; agmi: string; why: string | null }
  | { edit: Edit; status: 'agmi-error'; ours: string; predicted: string | null; matchesNote: boolean }
  | { edit: Edit; status: 'agmi-blank' | 'not-compared'; ours: string; agmi: string | null };

/** One of our targets beside its agmi row. */
export interface TargetComparison {
  target: string;
  row: string;
  versions: { ours: string; agmi: string };
  cells: CellComparison[];
  note: string | null;
}

/** The whole comparison with its counts. */
export interface AgmiComparison {
  source: string;
  targets: TargetComparison[];
  counts: { both: number; agree: number; disagree: number; agmiError: number; matchesNote: number };
  /** agmi rows no target of this run measured (with why, when the package is not installable). */
  unmeasured: { row: string; why: string }[];
}

const VERDICTS = new Set(['accepted', 'rejected', 'reported']);

/** What our own observation says about a cell: the target's reason, or what its read served. */
function observed(cell: CellResult): string {
  if (cell.verdict === 'accepted') return `served the edited store${cell.observation ? ` (${cell.observation})` : ''}`;
  return `${cell.verdict}${cell.detection ? ` on the ${cell.detection}` : ''}: ${cell.reason ?? 'no reason given'}`;
}

function compareCell(
  edit: Edit,
  cell: CellResult | undefined,
  row: AgmiAtRest['rows'][number],
  versionsDiffer: boolean,
) {
  const ours = cell ? (cell.detection ? `${cell.verdict} (${cell.detection})` : cell.verdict) : 'not run';
  const theirs = row.cells[edit];
  if (theirs === undefined) return { edit, status: 'agmi-blank', ours, agmi: null } as const;
  if (!cell || !VERDICTS.has(cell.verdict)) return { edit, status: 'not-compared', ours, agmi: theirs } as const;
  if (theirs === 'error') {
    const predicted = row.predicted?.[edit] ?? null;
    return { edit, status: 'agmi-error', ours, predicted, matchesNote: predicted === cell.verdict } as const;
  }
  if (theirs === cell.verdict) return { edit, status: 'agree', ours, agmi: theirs, why: null } as const;
  const version = versionsDiffer ? ' Versions differ, so the library may have changed.' : '';
  return { edit, status: 'disagree', ours, agmi: theirs, why: `ours ${observed(cell)}.${version}` } as const;
}

const baseId = (id: string): string => id.replace(/@[^@]+$/, '');

/**
 * Compares every target of the run that measures a row of agmi's table, cell by cell (the method cells only; a
 * variant such as T8:unrevoke has no agmi column).
 */
export function compareWithAgmi(report: Pick<IntegrityReport, 'targets'>, agmi: AgmiAtRest): AgmiComparison {
  const rowOf = new Map(agmi.rows.flatMap((row) => row.targets.map((id) => [id, row] as const)));
  const targets: TargetComparison[] = [];
  for (const target of report.targets) {
    const row = rowOf.get(baseId(target.id));
    if (!row) continue;
    const versionsDiffer = !sameVersions(target, row.version);
    targets.push({
      target: target.id,
      row: row.row,
      versions: { ours: target.version, agmi: row.version },
      cells: EDITS.map((edit) =>
        compareCell(
          edit,
          target.cells.find((cell) => cell.edit === edit && cell.variant === null),
          row,
          versionsDiffer,
        ),
      ),
      note: row.note ?? null,
    });
  }
  const cells = targets.flatMap((target) => target.cells);
  const measured = new Set(targets.map((target) => target.row));
  return {
    source: agmi.source,
    targets,
    counts: {
      both: cells.filter((cell) => cell.status === 'agree' || cell.status === 'disagree').length,
      agree: cells.filter((cell) => cell.status === 'agree').length,
      disagree: cells.filter((cell) => cell.status === 'disagree').length,
      agmiError: cells.filter((cell) => cell.status === 'agmi-error').length,
      matchesNote: cells.filter((cell) => cell.status === 'agmi-error' && cell.matchesNote).length,
    },
    unmeasured: agmi.rows
      .filter((row) => !measured.has(row.row))
      .map((row) => ({
        row: row.row,
        why:
          row.installable === false
            ? (row.note ?? 'not installable here')
            : row.targets.length
              ? `not in this run (--target ${row.targets.join(',')})`
              : 'no target',
      })),
  };
}

/** True when every `package version` agmi names appears, at that version, in our version text. */
function sameVersions(target: TargetResult, agmiVersion: string): boolean {
  const named = [...agmiVersion.matchAll(/([A-Za-z][\w.-]*) (\d[\w.]*)/g)];
  return named.length > 0 && named.every(([, name, version]) => target.version.includes(`${name} ${version}`));
}

const mark = (cell: CellComparison): string => {
  switch (cell.status) {
    case 'agree':
      return `${cell.ours} = ${cell.agmi}`;
    case 'disagree':
      return `**${cell.ours} ≠ ${cell.agmi}**`;
    case 'agmi-error':
      return `${cell.ours} · agmi error${cell.predicted ? ` (its note: ${cell.predicted})` : ''}`;
    case 'agmi-blank':
      return `${cell.ours} · agmi blank`;
    case 'not-compared':
      return `${cell.ours} · agmi ${cell.agmi}`;
  }
};

/** The comparison as Markdown: counts, one row per target with every cell, then each disagreement explained. */
export function agmiComparisonMarkdown(comparison: AgmiComparison): string {
  const { counts } = comparison;
  const escape = (text: string) => text.replace(/\|/g, '\\|');
  const lines = [
    "## Beside agmi's published at-rest table",
    '',
    `Reference data, never a result: ${comparison.source}`,
    '',
    `Cells both measure: ${counts.both}; agree ${counts.agree}, disagree ${counts.disagree}. agmi printed error on ${counts.agmiError} of this run's cells; ours matches agmi's own note on ${counts.matchesNote} of them.`,
    '',
    `| target | agmi row | versions (ours · agmi) | ${EDITS.join(' | ')} |`,
    `|${['target', 'row', 'versions', ...EDITS].map(() => '---').join('|')}|`,
    ...comparison.targets.map(
      (target) =>
        `| ${escape(target.target)} | ${escape(target.row)} | ${escape(`${target.versions.ours} · ${target.versions.agmi}`)} | ${target.cells.map((cell) => escape(mark(cell))).join(' | ')} |`,
    ),
    '',
  ];
  const explained = comparison.targets.flatMap((target) =>
    target.cells.flatMap((cell) => {
      if (cell.status === 'disagree') return [`- ${target.target} ${cell.edit}: agmi ${cell.agmi}; ${cell.why}`];
      if (cell.status === 'agmi-error')
        return [
          `- ${target.target} ${cell.edit}: agmi printed error; ours ${cell.ours}, ${cell.matchesNote ? 'as' : 'unlike'} its note predicts${cell.predicted ? ` (${cell.predicted})` : ''}. ${target.note ?? ''}`.trimEnd(),
        ];
      return [];
    }),
  );
  if (explained.length) lines.push('Each disagreement, and each cell agmi printed as error:', '', ...explained, '');
  if (comparison.unmeasured.length)
    lines.push(
      'agmi rows this run did not measure:',
      '',
      ...comparison.unmeasured.map((row) => `- ${row.row}: ${row.why}`),
      '',
    );
  return lines.join('\n');
}
