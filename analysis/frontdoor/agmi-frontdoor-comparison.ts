// Our front-door cells beside agmi's published front-door table (data/agmi/front-door.json): the verdict word per
// target × attack, with the fixture counts and embedders of both where they differ. Reference data only.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import type { FrontdoorResults } from '../../pipeline/index.js';
import { parseJsonFile } from '../../scenarios/scenario-file.js';

const DEFAULT_FRONT_DOOR = fileURLToPath(new URL('../../data/agmi/front-door.json', import.meta.url));

const frontDoorSchema = z.strictObject({
  table: z.literal('front-door'),
  title: z.string().min(1),
  source: z.string().min(1),
  attacks: z.array(z.string().regex(/^[a-z_]+$/)).min(1),
  rows: z
    .array(
      z.strictObject({
        row: z.string().min(1),
        version: z.string().min(1),
        targets: z.array(z.string().min(1)),
        /** The printed cell text, e.g. `surfaced (4 of 5)`, `kept out (5 of 5)`, `n/a, no metadata filter on search`. */
        cells: z.record(
          z.string(),
          z.string().regex(/^(surfaced|kept out|n\/a)\b/, 'starts with surfaced, kept out or n/a'),
        ),
      }),
    )
    .min(1),
});

/** agmi's front-door table as transcribed. */
export type AgmiFrontDoor = z.output<typeof frontDoorSchema>;

/** Reads and validates the transcribed table; a bad file throws one InvalidInputError naming the file and field. */
export function loadAgmiFrontDoor(path = DEFAULT_FRONT_DOOR): AgmiFrontDoor {
  const parsed = parseJsonFile(readFileSync(path, 'utf8'), path, frontDoorSchema, {
    valid: (table) =>
      table.rows.flatMap((row, index) =>
        Object.keys(row.cells)
          .filter((attack) => !table.attacks.includes(attack))
          .map((attack) => ({ path: `rows[${index}].cells.${attack}`, message: "not one of the table's attacks" })),
      ),
  });
  if (parsed instanceof Error) throw parsed;
  return parsed;
}

/** One cell beside agmi's. */
export interface FrontDoorCellComparison {
  attack: string;
  status: 'agree' | 'disagree' | 'not-compared';
  ours: string;
  agmi: string;
}

/** The comparison: per mapped target its cells, and the counts. */
export interface AgmiFrontDoorComparison {
  source: string;
  targets: { target: string; row: string; ours: string; agmi: string; cells: FrontDoorCellComparison[] }[];
  counts: { both: number; agree: number; disagree: number };
}

const wordOf = (text: string): string =>
  text.startsWith('surfaced') ? 'surfaced' : text.startsWith('kept out') ? 'kept out' : 'n/a';

/**
 * Compares every target of the run that measures a row of agmi's front-door table, attack by attack (the verdict
 * word: surfaced, kept out, n/a; an n/a on either side is not compared).
 */
export function compareFrontDoorWithAgmi(results: FrontdoorResults, agmi: AgmiFrontDoor): AgmiFrontDoorComparison {
  const rowOf = new Map(agmi.rows.flatMap((row) => row.targets.map((id) => [id, row] as const)));
  const targets = results.targets.flatMap((target) => {
    const row = rowOf.get(target.id.replace(/@[^@]+$/, ''));
    if (!row) return [];
    const cells = target.cells.flatMap((cell): FrontDoorCellComparison[] => {
      const attack = cell.attack.replace(/@v\d+$/, '');
      const theirs = row.cells[attack];
      if (theirs === undefined) return [];
      const ours = `${cell.verdict} (${cell.fixtures.fell} of ${cell.fixtures.total} fell)`;
      if (cell.verdict === 'n/a' || wordOf(theirs) === 'n/a')
        return [{ attack, status: 'not-compared', ours, agmi: theirs }];
      return [{ attack, status: wordOf(theirs) === cell.verdict ? 'agree' : 'disagree', ours, agmi: theirs }];
    });
    return [
      { target: target.id, row: row.row, ours: `${target.version}; ${target.embedder}`, agmi: row.version, cells },
    ];
  });
  const cells = targets.flatMap((target) => target.cells);
  return {
    source: agmi.source,
    targets,
    counts: {
      both: cells.filter((cell) => cell.status !== 'not-compared').length,
      agree: cells.filter((cell) => cell.status === 'agree').length,
      disagree: cells.filter((cell) => cell.status === 'disagree').length,
    },
  };
}

/** The comparison as Markdown: the counts, then one line per cell. */
export function agmiFrontDoorMarkdown(comparison: AgmiFrontDoorComparison): string {
  const { counts } = comparison;
  return [
    "## Beside agmi's published front-door table",
    '',
    `Reference data, never a result: ${comparison.source}`,
    '',
    `Cells both measure: ${counts.both}; agree ${counts.agree}, disagree ${counts.disagree}.`,
    '',
    ...comparison.targets.flatMap((target) => [
      `### ${target.target} · agmi: ${target.row}`,
      '',
      `Ours: ${target.ours}. agmi: ${target.agmi}.`,
      '',
      ...target.cells.map(
        (cell) =>
          `- ${cell.attack}: ${cell.status === 'disagree' ? '**differs**' : cell.status === 'agree' ? 'agrees' : 'not compared'} — ours ${cell.ours}; agmi ${cell.agmi}`,
      ),
      '',
    ]),
  ].join('\n');
}
