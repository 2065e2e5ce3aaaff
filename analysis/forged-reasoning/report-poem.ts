// `pnpm report` on forged-reasoning runs: the run checked and loaded, its summary as the PoEM tables' input, and the
// `--paper` diff against the PoEM paper's published numbers (data/paper/poem/, all seed-only).
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { InvalidInputError } from '#core/errors.js';
import { FORGED_REASONING_FILE, readForgedReasoningRecords } from '../../pipeline/index.js';
import { summarizeForgedReasoningRun } from './forged-reasoning-summary.js';
import { runLogVersionField, type LoadedRun } from '../load-run.js';
import { diffAgainstPaper } from '../paper-diff.js';
import { defaultPaperReferenceDir, loadPaperReference } from '../paper-reference.js';
import { POEM_TABLE_IDS } from '../source-papers.js';
import type { PaperDiff, PaperTable } from '../paper-table.js';
import type { ForgedReasoningInput } from '../tables/poem-tables.js';

/** The manifest fields every report reads, whatever the experiment (a report checks only what it reads). */
export const reportManifestFields = {
  version: runLogVersionField,
  runId: z.string().min(1),
  status: z.enum(['started', 'success', 'error', 'cancelled', 'aborted', 'budget']),
  specHash: z.string().min(1),
  simulated: z.boolean(),
  models: z.array(z.object({ id: z.string().min(1), label: z.string().min(1), simulated: z.boolean() })).min(1),
};

// Only the fields the report reads are checked.
const manifestSchema = z.object({
  ...reportManifestFields,
  spec: z.object({
    experiment: z.literal('forged-reasoning'),
    arms: z.array(z.string()).min(1),
    scenarios: z.array(z.string()).min(1),
    trials: z.number().int().positive(),
  }),
});
const lineSchema = z.object({
  unitId: z.string().min(1),
  type: z.enum(['forged-reasoning-end', 'adaptive-attacker-end']),
  key: z.object({ scenario: z.string().min(1), model: z.string().min(1) }),
  status: z.enum(['ok', 'error']),
});

/** One error naming the file, the line and the field; nothing is loaded on a bad file. */
function check(path: string, rows: string[], schema: z.ZodType, lines: boolean): number {
  const issues = rows.flatMap((row, index) => {
    if (row.trim() === '') return [];
    const where = lines ? `line ${index + 1}` : '';
    let json: unknown;
    try {
      json = JSON.parse(row);
    } catch (error) {
      return [{ path: where, message: `not valid JSON (${(error as Error).message})` }];
    }
    const parsed = schema.safeParse(json);
    return parsed.success
      ? []
      : parsed.error.issues.map((issue) => ({
          path: [where, issue.path.join('.')].filter(Boolean).join(': '),
          message: issue.message,
        }));
  });
  if (issues.length > 0) throw new InvalidInputError(path, issues.slice(0, 5));
  return rows.filter((row) => row.trim() !== '').length;
}

/** Checks a forged-reasoning run's manifest and records as far as the report reads them; nothing is loaded on a bad file. */
export function checkForgedReasoningRun(runDir: string, manifestPath: string): void {
  check(manifestPath, [readFileSync(manifestPath, 'utf8')], manifestSchema, false);
  const path = join(runDir, FORGED_REASONING_FILE);
  const rows = existsSync(path) ? readFileSync(path, 'utf8').split('\n') : [];
  // A last line without its newline is a write cut short by a kill; the loader skips it, and so does the check.
  rows.pop();
  if (check(path, rows, lineSchema, true) === 0)
    throw new InvalidInputError(path, [
      { path: '', message: 'missing or empty: a forged-reasoning run records its units there' },
    ]);
}

/** Units recorded by a forged-reasoning run (trial units and attacker loops). */
export function reasoningUnitsDone(runDir: string): number {
  return readForgedReasoningRecords(runDir).size;
}

/** The PoEM tables' input of one loaded forged-reasoning run, from its stored records only. */
export function reasoningInputOf(run: LoadedRun): ForgedReasoningInput {
  return { runId: run.manifest.runId, simulated: run.manifest.simulated, summary: summarizeForgedReasoningRun(run) };
}

/** `--paper`: the PoEM tables against data/paper/poem/ (model-dependent cells side by side, never a reproduction). */
export function poemPaperDiff(tables: readonly PaperTable[], paperDir?: string): PaperDiff {
  return diffAgainstPaper(
    tables,
    loadPaperReference(join(paperDir ?? defaultPaperReferenceDir, 'poem')),
    POEM_TABLE_IDS,
  );
}
