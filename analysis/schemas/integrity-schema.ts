// The zod schemas of `pnpm integrity`'s results (issue #31 item 6): the report (`summary.json` and `integrity.json`
// of its run directory) and the `--json` document (also `report/scorecard.json`), from which data/schemas/
// publishes their JSON Schemas. published-schemas.test.ts checks their types are exactly `IntegrityReport` and
// `IntegrityJson`, so the interfaces and these schemas cannot change apart.
import { z } from 'zod';

const count = z.number().int().nonnegative();
const share = z.number().min(0).max(1);

const verdict = z.enum(['accepted', 'rejected', 'reported', 'n/a', 'not-evaluable', 'error']);
const edit = z.enum(['T1', 'T2', 'T3', 'T4', 'T5', 'T6', 'T7', 'T8', 'T9']);
const control = z.object({ ok: z.boolean().nullable(), detail: z.string() }).meta({ id: 'ControlResult' });

const cell = z.object({
  edit,
  variant: z.string().nullable(),
  attack: z
    .string()
    .regex(/^T[1-9](:[a-z]+)?@v\d+$/)
    .meta({ description: 'The edit and its procedure version, e.g. T6@v1 or T8:unrevoke@v1.' }),
  verdict: verdict.meta({ description: 'accepted fails; rejected and reported pass; the rest are excluded from N.' }),
  detection: z.enum(['read', 'audit']).nullable(),
  reason: z.string().nullable(),
  controls: z.object({ c1: control, c2: control, c3: control }),
  form: z.string().nullable(),
  observation: z.string().nullable(),
  commands: z.array(z.string()),
  stoppedDuringEdit: z.boolean(),
  durationMs: z.number().nonnegative(),
});

const rate = z.object({ value: share.nullable(), n: count });

const metric = z
  .object({
    value: share.nullable().meta({ description: '(passes + 0.5 · partial) / N over T1–T8; null with a reason.' }),
    reason: z.string().nullable(),
    n: count,
    passes: count,
    partial: count,
    accepted: count,
    tamperEvidence: rate,
    binding: rate,
    t9: verdict.nullable(),
  })
  .meta({ id: 'IntegrityMetric' });

const position = z.enum(['restarted', 'alive']);

const description = z.object({
  label: z.string(),
  model: z.boolean(),
  versions: z.record(z.string(), z.string()),
  store: z.string(),
  config: z.record(z.string(), z.string()),
  detection: z.enum(['read', 'audit']),
  contexts: z.union([z.literal(1), z.literal(2)]),
  unordered: z.string().optional(),
  revocationFields: z.array(z.string()).readonly().optional(),
  tooling: z.string(),
  position: position.optional(),
});

/** The integrity report, version 1 (pipeline/suites/integrity/harness/integrity-result.ts `IntegrityReport`). */
export const integrityReportSchema = z.object({
  version: z.literal(1),
  date: z.string().meta({ description: 'ISO date-time the measurement started.' }),
  command: z.string(),
  environment: z.object({ node: z.string(), platform: z.string(), recordsPerContext: count }),
  targets: z.array(
    z.object({
      id: z.string(),
      version: z.string(),
      config: z.record(z.string(), z.string()),
      description,
      unavailable: z.string().nullable(),
      cells: z.array(cell),
      metric,
    }),
  ),
  exitCode: z.number().int().meta({ description: 'The exit code of the run (integrity.md §7.2).' }),
});

/** `pnpm integrity --json` (analysis/integrity/integrity-report.ts `IntegrityJson`): the report's verdicts, without timings. */
export const integrityJsonSchema = z.object({
  targets: z.array(
    z.object({
      id: z.string(),
      version: z.string(),
      config: z.record(z.string(), z.string()),
      position: position.optional(),
      cells: z.array(
        cell.pick({
          edit: true,
          verdict: true,
          detection: true,
          reason: true,
          attack: true,
          variant: true,
          controls: true,
          form: true,
          commands: true,
        }),
      ),
      metric,
    }),
  ),
});
