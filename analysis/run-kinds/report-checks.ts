// What `pnpm report` checks of a run of `pnpm eval` before reading it, shared by the kinds: a file's every line against
// a schema, and the manifest fields the report reads (each kind adds its experiment and record schemas).
import { existsSync, readFileSync } from 'node:fs';
import { z } from 'zod';
import { InvalidInputError, type InputIssue } from '#core/errors.js';
import { reportManifestFields } from '../forged-reasoning/report-poem.js';

/** How many problems of one file are listed before the error stops. */
const MAX_ISSUES = 5;

/** Validates a JSON file or every line of a JSONL file; throws one InvalidInputError naming the file, line and field. */
export function validateFile(path: string, schema: z.ZodType, lines: boolean): number {
  if (!existsSync(path)) return 0;
  const text = readFileSync(path, 'utf8');
  const rows = lines ? text.split('\n') : [text];
  // A last line without its newline is a write cut short by a kill; the loader skips it, and so does the check.
  if (lines) rows.pop();
  const issues: InputIssue[] = [];
  let count = 0;
  rows.forEach((row, index) => {
    if (row.trim() === '' || issues.length >= MAX_ISSUES) return;
    const where = lines ? `line ${index + 1}` : '';
    let json: unknown;
    try {
      json = JSON.parse(row);
    } catch (error) {
      issues.push({ path: where, message: `not valid JSON (${(error as Error).message})` });
      return;
    }
    count += 1;
    const parsed = schema.safeParse(json);
    if (!parsed.success)
      for (const issue of parsed.error.issues.slice(0, MAX_ISSUES - issues.length))
        issues.push({ path: [where, issue.path.join('.')].filter(Boolean).join(': '), message: issue.message });
  });
  if (issues.length > 0) throw new InvalidInputError(path, issues);
  return count;
}

/**
 * The manifest of a `pnpm eval` grid or follow-up run, as far as the report reads it; `experiment` checks the kind's
 * own `spec.experiment`. Only the fields the report reads are checked; anything else may vary between run-log writers.
 */
export function evalManifestSchema(experiment: z.ZodType) {
  return z.object({
    ...reportManifestFields,
    embedder: z.object({ id: z.string().min(1), dimensions: z.number() }),
    counts: z.object({ units: z.number().int().nonnegative(), done: z.number().int().nonnegative() }).optional(),
    spec: z.object({
      experiment,
      systems: z.array(z.string()).min(1),
      modes: z.array(z.enum(['direct', 'natural'])).min(1),
      arms: z.array(z.string()).min(1),
      scenarios: z.array(z.string()).min(1),
      scenarioDir: z.string().nullable().optional(),
      trials: z.number().int().positive(),
      guard: z
        .array(z.enum(['off', 'on']))
        .min(1)
        .optional(),
      poem: z
        .array(z.enum(['off', 'on']))
        .min(1)
        .optional(),
    }),
    extraction: z.object({ id: z.string(), simulated: z.boolean() }).optional(),
  });
}

/** The key fields every unit record of a grid or follow-up run carries. */
export const unitKeyFields = {
  system: z.string().min(1),
  mode: z.string().min(1),
  arm: z.string().min(1),
  model: z.string().min(1),
};
