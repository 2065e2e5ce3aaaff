// The grid run kind (`pnpm eval`, experiment `grid`, the default): probes in setup.jsonl, units in records.jsonl.
import { join } from 'node:path';
import { z } from 'zod';
import { InvalidInputError } from '#core/errors.js';
import { formatSummaryTable } from '../format-table.js';
import { summarizeRun } from '../load-run.js';
import { POEM_NOT_RECHECKED } from '../recompute-poem.js';
import { gridPlannedUnits } from '../run-progress.js';
import { evalManifestSchema, unitKeyFields, validateFile } from '../run-kinds/report-checks.js';
import type { RunKindV1 } from '../run-kinds/run-kind-v1.js';
import { recomputeGrid } from './recompute-grid.js';
import type { Summary } from './summarize.js';

const manifestSchema = evalManifestSchema(z.literal('grid').optional());
const recordSchema = z
  .object({
    unitId: z.string().min(1),
    key: z.object({
      ...unitKeyFields,
      scenario: z.string().min(1),
      guard: z.boolean().optional(),
      poem: z.boolean().optional(),
    }),
    status: z.enum(['ok', 'error']),
    scores: z.object({ unsafe: z.boolean().nullable(), parseFailure: z.boolean() }).optional(),
  })
  .refine((r) => r.status !== 'ok' || r.scores !== undefined, {
    path: ['scores'],
    message: 'a completed unit needs its scores',
  });
const probeSchema = z.object({
  system: z.string().min(1),
  mode: z.enum(['direct', 'natural']),
  scenario: z.string().min(1),
  status: z.enum(['ok', 'not-applicable', 'error']),
  defaultRead: z.array(z.object({ text: z.string() })).optional(),
  filteredRead: z
    .array(z.object({ text: z.string() }))
    .nullable()
    .optional(),
  exposure: z.object({ exposed: z.boolean(), revokedRank: z.number().nullable() }).optional(),
  guard: z.object({ withheldTexts: z.array(z.string()) }).optional(),
});

/** Grid runs: Tables 6–13 and the defence table, rescored cell by cell, indexed by unit key in the viewer. */
export const gridRunKind: RunKindV1 = {
  specificationVersion: 'v1',
  id: 'grid',
  report: {
    check(runDir, manifestPath) {
      validateFile(manifestPath, manifestSchema, false);
      const probes = validateFile(join(runDir, 'setup.jsonl'), probeSchema, true);
      const records = validateFile(join(runDir, 'records.jsonl'), recordSchema, true);
      if (probes + records === 0)
        throw new InvalidInputError(runDir, [
          { path: 'setup.jsonl, records.jsonl', message: 'no probe and no unit recorded: nothing to report' },
        ]);
    },
    unitsDone: (run) => run.records.size,
    plannedUnits: gridPlannedUnits,
    tableInput: (run) => ({ grid: run }),
    paper: 'stalebench',
  },
  rescore: {
    scenarios: 'policy',
    async recompute({ run, scenarios, rules, parser, log, onGridRecord }) {
      if (scenarios.kind !== 'policy') throw new Error('a grid run is scored with policy scenarios');
      const grid = await recomputeGrid({
        run,
        scenarios: scenarios.byId,
        rules,
        parser,
        log,
        ...(onGridRecord ? { onRecord: onGridRecord } : {}),
      });
      const summary = summarizeRun({ ...run, probes: grid.probes, records: grid.records });
      return { summary, grid, lines: grid.lines, oracleSystems: grid.oracleSystems, notRechecked: [] };
    },
    poemNotRechecked: POEM_NOT_RECHECKED,
    guardRescore: true,
    format: (summary) => formatSummaryTable(summary as Summary),
    summaryEntries: 'cells',
    parserNote: '',
  },
  viewer: { index: 'grid', figures: true, transcripts: 'policy' },
};
