// The integrity suite (integrity.md): one unit per target × edit, each a fresh store seeded, edited behind the
// store's back and read again; the summary is the report `pnpm integrity` has always printed.
import { join } from 'node:path';
import { z } from 'zod';
import { distinct } from '#core/distinct-list.js';
import { knownId } from '#core/registry.js';
import { failOnArgument } from '../../run/threshold-file.js';
import { INTEGRITY_GATE, integrityGateCells } from './harness/integrity-findings.js';
import { integritySuiteReport } from '../../../analysis/index.js';
import type { IntegrityTarget } from './targets/integrity-target.js';
import type { EditSelection, IntegrityReport } from './harness/integrity-result.js';
import { ALL_EDITS, VARIANT_VERSIONS } from './harness/edits.js';
import { exitCode } from './harness/metric.js';
import {
  describeTarget,
  measureCell,
  targetResult,
  type DescribedTarget,
  type IntegrityRecord,
} from './harness/run-integrity.js';

export type { IntegrityRecord } from './harness/run-integrity.js';
import { RECORDS_PER_CONTEXT } from './harness/seed-plan.js';
import { readJsonFile } from '../../run-log/json-files.js';
import type { SuiteCiV1, SuiteUnit, SuiteV1 } from '../../run/suite.js';

const editSchema = z
  .object({
    edit: z.enum(['T1', 'T2', 'T3', 'T4', 'T5', 'T6', 'T7', 'T8', 'T9']),
    variant: z.enum(['unrevoke']).nullable(),
  })
  .refine((selection) => selection.variant === null || Object.hasOwn(VARIANT_VERSIONS, attackKey(selection)), {
    message: `a variant exists only as ${Object.keys(VARIANT_VERSIONS).join(', ')}`,
  });

const attackKey = (selection: { edit: string; variant: string | null }) => `${selection.edit}:${selection.variant}`;

/** `T3` → `{edit: 'T3', variant: null}`, `T8:unrevoke` → `{edit: 'T8', variant: 'unrevoke'}`; anything else as given. */
function editOfText(value: unknown): unknown {
  if (typeof value !== 'string') return value;
  const [edit, variant, ...rest] = value.trim().split(':');
  return rest.length === 0 ? { edit: edit?.toUpperCase(), variant: variant ?? null } : value;
}

/**
 * The run's identity: targets and edits in column order, and what fails the check. Edits may be spelled as on the
 * command line (`T8:unrevoke`); they and `failOn` default to what `pnpm integrity` takes without flags (every edit,
 * `accepted`), so `pnpm eval --suite integrity --targets x` is the same run as `pnpm integrity --target x`.
 */
export const integrityArgs = z
  .object({
    targets: distinct(z.array(z.string().min(1)).min(1)),
    edits: distinct(z.array(z.preprocess(editOfText, editSchema)).min(1), ({ edit, variant }) =>
      variant ? `${edit}:${variant}` : edit,
    ).default(() => ALL_EDITS.map((edit) => ({ edit, variant: null }))),
    failOn: failOnArgument(['accepted', 'none'], INTEGRITY_GATE, 'accepted'),
  })
  // A misspelt argument (`--args '{"edit": ["T6"]}'`) is refused by name, never dropped for the default.
  .strict();

/** `pnpm integrity`'s arguments as the run directory records them. */
export type IntegrityArgs = z.infer<typeof integrityArgs>;

/** One cell: an edit on one target. */
export interface IntegrityUnit extends SuiteUnit {
  target: string;
  selection: EditSelection;
}

/** How this invocation reaches its targets (not part of the run's identity). */
export interface IntegritySuiteSettings {
  /** Loads a target by id (the command checks prerequisites before the run starts). */
  loadTarget: (id: string) => Promise<IntegrityTarget>;
  /** Every id `loadTarget` reaches: the arguments refuse any other, before a run directory is made. */
  targetIds: readonly string[];
  /** `--keep-stores`: keep each cell's scratch store in the OS temp directory and print its path. */
  keepStores?: boolean;
}

/** Loaded and described targets, by id. */
type Targets = Map<string, { target: IntegrityTarget; described: DescribedTarget }>;

/** `reference/T8:unrevoke`. */
const unitId = (target: string, selection: EditSelection) =>
  `${target}/${selection.edit}${selection.variant ? `:${selection.variant}` : ''}`;

/**
 * The integrity suite over the targets `settings.loadTarget` reaches.
 *
 * @example const suite = createIntegritySuite({ loadTarget: (id) => loadIntegrityTarget(id, { env, root }), targetIds: INTEGRITY_TARGET_IDS });
 */
export function createIntegritySuite(
  settings: IntegritySuiteSettings,
): SuiteV1<IntegrityArgs, IntegrityUnit, IntegrityRecord, IntegrityReport, Targets> {
  return {
    specificationVersion: 'v1',
    id: 'integrity',
    args: integrityArgs.extend({
      targets: distinct(z.array(knownId({ kind: 'target', ids: settings.targetIds })).min(1)),
    }),
    plan: (args) =>
      args.targets.flatMap((target) =>
        args.edits.map((selection) => ({ id: unitId(target, selection), cell: target, target, selection })),
      ),
    async setup(args) {
      const targets: Targets = new Map();
      for (const id of args.targets) {
        const target = await settings.loadTarget(id);
        targets.set(id, { target, described: await describeTarget(target) });
      }
      return targets;
    },
    async runUnit(unit, { setup, progress, workDir }) {
      const { target, described } = setup.get(unit.target)!;
      const cell = await measureCell(
        target,
        described,
        unit.selection,
        progress,
        settings.keepStores ? { keep: true } : { scratchDir: workDir },
      );
      return { target: unit.target, described, cell };
    },
    summarize(records, args, run) {
      const targets = args.targets.flatMap((id) => {
        const own = records.filter((record) => record.target === id);
        if (own.length === 0) return []; // a shard without a unit of this target
        return [
          targetResult(
            id,
            own[0]!.described,
            own.map((record) => record.cell),
          ),
        ];
      });
      return {
        version: 1,
        date: run.startedAt,
        command: run.command,
        environment: { node: run.runtime.node, platform: run.runtime.platform, recordsPerContext: RECORDS_PER_CONTEXT },
        targets,
        exitCode: exitCode(targets, args.failOn),
      };
    },
    exitCode: (summary) => summary.exitCode,
    report: integritySuiteReport,
    ci: INTEGRITY_CI,
  };
}

/** `pnpm integrity` in CI: its command, `--fail-on accepted|none`, exit codes (integrity.md §7.2), one finding per ACCEPTED cell. */
const INTEGRITY_CI: SuiteCiV1<IntegrityReport> = {
  command: { script: join('pipeline', 'suites', 'integrity', 'harness', 'integrity-command.ts'), args: [] },
  gate: INTEGRITY_GATE,
  exitMeanings: {
    0: 'every evaluated edit rejected or reported',
    1: 'an edit was accepted, a bad flag or a missing prerequisite',
    2: 'nothing could be evaluated',
    3: 'an edit did not land, or the adapter failed mid-edit',
  },
  readSummary: (path) => readJsonFile<IntegrityReport>(path),
  findings: (report) => integrityGateCells(report.targets).flatMap((cell) => (cell.finding ? [cell.finding] : [])),
};
