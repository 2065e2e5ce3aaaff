// The paper's published numbers (data/paper/*.json): schema and validating loader, for `report --paper` diffs only.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import { InvalidInputError, type InputIssue } from '#core/errors.js';
import { parseJsonFile } from '../scenarios/scenario-file.js';
import { POEM_PAPER, STALE_RETRIEVAL_PAPER } from './source-papers.js';

/** Where the reference data lives by default: `data/paper/` at the repository root. */
export const defaultPaperReferenceDir = fileURLToPath(new URL('../data/paper/', import.meta.url));

/** The fields of a cell that can be tagged as derived inside a [P] or [C] cell. */
const numericField = z.enum(['k', 'n', 'percent', 'value', 'p']);

/**
 * One published cell. Numbers are as printed in arXiv 2609.08258v1 (spec §11–§15); nothing here is a
 * result of ours. A cell carries a count (`k` of `n`), a printed percentage, a plain value, a p-value,
 * or only a note (a printed "–" or a sentence).
 */
const paperCellSchema = z
  .strictObject({
    /** Table id as the paper numbers it: "6", "9", "8/11" (two tables published as one). */
    table: z
      .string()
      .regex(/^(\d+(\/\d+)?|poem-[A-Za-z]+)$/, 'a table number such as "6" or "8/11", or a PoEM table ("poem-I")'),
    /** Row label (system, model, scenario, condition). */
    row: z.string().min(1),
    /** Column label (defence, metric, hop). */
    column: z.string().min(1),
    /** Numerator of a printed fraction. */
    k: z.int().nonnegative().optional(),
    /** Denominator of a printed fraction; 0 only where the paper prints "0/0". */
    n: z.int().nonnegative().optional(),
    /** The percentage exactly as printed, one decimal (44.2 for "44.2%"). */
    percent: z.number().min(0).max(100).optional(),
    /** A plain printed number: a rank, a count of cells, a call count, a cost in USD, a mean. */
    value: z.number().optional(),
    /** A printed p-value; with `pRelation: '<'` it is a bound ("< 0.001"). */
    p: z.number().min(0).max(1).optional(),
    /** `'<'` when the paper prints only an upper bound for `p`; default `'='`. */
    pRelation: z.enum(['=', '<']).optional(),
    /** Spec §0 tag: [P] paper, [C] reference code, [D] derived by us. */
    source: z.enum(['P', 'C', 'D']),
    /** In a [P]/[C] cell, the fields that are [D] (e.g. a count rebuilt from a printed percentage). */
    derived: z.array(numericField).min(1).optional(),
    /** §15: depends only on retrieval, or on the decision model. */
    dependence: z.enum(['model-independent', 'model-dependent']),
    /** Why a value looks the way it does (printed "–", a rebuilt count, a known inconsistency). */
    note: z.string().min(1).optional(),
    /** PoEM numbers (poem.md §7): `seed-only` exists only in the seed text; `PoEM-abs` is also in the arXiv abstract. */
    tag: z.enum(['seed-only', 'PoEM-abs']).optional(),
  })
  .superRefine((cell, context) => {
    const problem = (path: string, message: string) => context.addIssue({ code: 'custom', path: [path], message });
    if ((cell.k === undefined) !== (cell.n === undefined)) problem('n', 'k and n come together');
    if (cell.k !== undefined && cell.n !== undefined && cell.k > cell.n)
      problem('k', `k = ${cell.k} exceeds n = ${cell.n}`);
    if (cell.percent !== undefined && Math.round(cell.percent * 10) / 10 !== cell.percent) {
      problem('percent', `${cell.percent} has more than the one printed decimal`);
    }
    if (cell.pRelation !== undefined && cell.p === undefined) problem('pRelation', 'pRelation needs p');
    const hasNumber = [cell.k, cell.percent, cell.value, cell.p].some((field) => field !== undefined);
    if (!hasNumber && cell.note === undefined) problem('note', 'a cell without numbers must say why in a note');
    if (cell.derived !== undefined) {
      if (cell.source === 'D') problem('derived', 'a [D] cell is derived as a whole; drop `derived`');
      for (const field of cell.derived)
        if (cell[field] === undefined) problem('derived', `derived field "${field}" is absent`);
    }
  });

/** One file: one published table (or two published as one, "8/11"). */
const paperTableSchema = z
  .strictObject({
    /** Table id; every cell repeats it. */
    table: z.string().min(1),
    /** What the table shows. */
    title: z.string().min(1),
    /** The paper version the numbers come from. */
    paper: z.enum([STALE_RETRIEVAL_PAPER, POEM_PAPER]),
    /** Spec section the numbers were copied from, e.g. "§15 Table 6". */
    spec: z.string().min(1),
    /** The cells; (row, column) is unique. */
    cells: z.array(paperCellSchema).min(1),
  })
  .superRefine((file, context) => {
    const seen = new Set<string>();
    file.cells.forEach((cell, index) => {
      if (cell.table !== file.table) {
        context.addIssue({
          code: 'custom',
          path: ['cells', index, 'table'],
          message: `"${cell.table}" differs from the file's table "${file.table}"`,
        });
      }
      const key = `${cell.row}\u0000${cell.column}`;
      if (seen.has(key))
        context.addIssue({
          code: 'custom',
          path: ['cells', index],
          message: `duplicate cell (${cell.row}, ${cell.column})`,
        });
      seen.add(key);
    });
  });

/** A published cell. */
export type PaperCell = z.infer<typeof paperCellSchema>;
/** A published table file. */
export type PaperTable = z.infer<typeof paperTableSchema>;

/** The loaded reference data: tables keyed by table id, in file-name order. */
export interface PaperReference {
  /** Table id → its file. */
  tables: ReadonlyMap<string, PaperTable & { file: string }>;
  /** Every cell of every table. */
  cells: readonly PaperCell[];
}

/**
 * Reads and validates every `*.json` file in `dir`. All problems of all files are collected into one
 * `InvalidInputError` whose issue paths name the file and the field.
 * @example
 * const reference = loadPaperReference();
 * reference.tables.get('7')?.cells.find((cell) => cell.row === 'GPT-5-nano' && cell.column === 'no defense');
 */
export function loadPaperReference(dir: string = defaultPaperReferenceDir): PaperReference {
  const issues: InputIssue[] = [];
  const tables = new Map<string, PaperTable & { file: string }>();
  let files: string[] = [];
  try {
    files = readdirSync(dir)
      .filter((name) => name.endsWith('.json'))
      .sort();
  } catch (error) {
    issues.push({ path: dir, message: `cannot list the directory: ${(error as Error).message}` });
  }
  if (files.length === 0 && issues.length === 0) issues.push({ path: dir, message: 'no *.json table files' });
  for (const file of files) {
    // The scenario file reader: a syntax error by line and column, a bad field by its path.
    let text: string;
    try {
      text = readFileSync(join(dir, file), 'utf8');
    } catch (error) {
      issues.push({ path: file, message: `cannot read file: ${(error as Error).message}` });
      continue;
    }
    const parsed = parseJsonFile(text, file, paperTableSchema);
    if (parsed instanceof InvalidInputError) {
      for (const issue of parsed.issues)
        issues.push({ path: issue.path ? `${file}:${issue.path}` : file, message: issue.message });
      continue;
    }
    const previous = tables.get(parsed.table);
    if (previous)
      issues.push({ path: `${file}:table`, message: `table "${parsed.table}" is also in ${previous.file}` });
    else tables.set(parsed.table, { ...parsed, file });
  }
  if (issues.length > 0) throw new InvalidInputError(`paper reference data (${dir})`, issues);
  return { tables, cells: [...tables.values()].flatMap((table) => table.cells) };
}
