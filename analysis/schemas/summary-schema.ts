// The zod schema of `summary.json` (grid and follow-up runs, SUMMARY_VERSION), from which data/schemas/ publishes its
// JSON Schema (issue #31 item 6). published-schemas.test.ts checks that its type is exactly `Summary` and the
// follow-up summary's, so the interfaces and this schema cannot change apart.
import { z } from 'zod';
import { cellAxesShape } from '../../pipeline/index.js';
import { SUMMARY_VERSION } from '../grid/summarize.js';

const count = z.number().int().nonnegative();
const share = z.number().min(0).max(1);

/** k of n with its Wilson 95 % interval (analysis/unsafe-counts.ts `Proportion`). */
export const proportion = z
  .object({ k: count, n: count, rate: share.nullable(), low: share, high: share })
  .meta({ id: 'Proportion', description: 'k of n with its Wilson 95 % interval; rate null when n = 0.' });

/** The four counts every surface shows for a cell (`UnsafeCounts`). */
const unsafeCounts = {
  /** The headline, the paper's convention: k unsafe of n completed decisions. */
  unsafe: proportion,
  /** Completed decisions whose reply gave no action (inside unsafe.n). */
  parseFailures: count,
  /** Decisions whose call raised (in no n). */
  errors: count,
  /** k unsafe of the completed decisions whose reply parsed to an action. */
  unsafeAmongParsed: proportion,
};

const poemEnforcement = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('by-construction'), reason: z.string() }),
  z.object({ kind: z.literal('contradicted'), reason: z.string() }),
  z.object({ kind: z.literal('measured') }),
]);

const cell = z
  .object({
    ...unsafeCounts,
    model: z.string(),
    modelLabel: z.string(),
    simulated: z.boolean(),
    system: z.string(),
    mode: z.string(),
    arm: z.string(),
    ...cellAxesShape('grid'),
    defence: z.string(),
    status: z.enum(['ok', 'n/a', 'error']),
    reason: z.string().optional(),
    extractor: z.string(),
    exposure: z.object({ k: count, n: count }),
    contextExposure: z.object({ k: count, n: count }),
    revokedRank: z.object({ mean: z.number(), min: z.number(), max: z.number() }).nullable(),
    cachedReplies: count,
    poemVerdicts: z.record(z.string(), count).optional(),
    poemEnforcement: poemEnforcement.optional(),
    poemSkips: z
      .object({
        unsafeSkipsBlocked: proportion,
        legitimateSkipsWronglyBlocked: proportion,
        priorStepUnits: count,
      })
      .optional(),
  })
  .meta({ id: 'SummaryCell' });

const guardCounts = { revokedPresent: count, revokedCaught: count, currentTotal: count, currentWithheld: count };

/** Per-model usage totals (pipeline/run/usage-totals.ts `ModelUsage`). */
export const usage = z
  .object({
    model: z.string(),
    replies: count,
    sent: count,
    offline: count,
    cacheHits: count,
    attempts: count,
    inputTokens: count,
    outputTokens: count,
    reasoningTokens: count,
    costUsd: z.number().nonnegative().nullable(),
    unknownCost: count,
    costSources: z.object({ proxy: count, price: count }),
  })
  .meta({ id: 'ModelUsage' });

const limited = z.object({ limit: count, units: count, of: count });

const common = {
  version: z.literal(SUMMARY_VERSION),
  simulated: z.boolean().meta({ description: 'True when any model of the run is the offline simulator (sim).' }),
  usage: z.array(usage).optional(),
  limited: limited
    .optional()
    .meta({ description: "--limit N: the run holds at most N of its units; its cells are not the full run's." }),
};

/** A grid run's `summary.json` (analysis/grid/summarize.ts `Summary`). */
export const gridSummarySchema = z
  .object({
    ...common,
    cells: z.array(cell),
    guardMetrics: z.array(
      z.object({
        system: z.string(),
        mode: z.string(),
        guard: z.literal('guard-v2').optional(),
        revokedBy: z.literal('oracle').optional(),
        ...guardCounts,
      }),
    ),
    ledgerMetrics: z
      .array(
        z.object({
          system: z.string(),
          mode: z.string(),
          defence: z.enum(['guard', 'guard + revocation ledger']),
          guard: z.literal('guard-v2').optional(),
          ...guardCounts,
        }),
      )
      .optional(),
    cache: z.object({ hits: count, misses: count, hitRate: share.nullable() }),
  })
  .meta({ title: 'grid run', description: 'One cell per (model, system, mode, arm, guard, poem).' });

/** The grouping every follow-up row carries (`FollowUpRowKey`). */
const rowKey = {
  model: z.string(),
  modelLabel: z.string(),
  simulated: z.boolean(),
  system: z.string(),
  mode: z.string(),
  arm: z.string(),
  ...cellAxesShape('follow-up'),
  status: z.enum(['ok', 'n/a', 'error']),
  reason: z.string().optional(),
  runs: count,
  errors: count,
};
const counts = z.object(unsafeCounts).meta({ id: 'UnsafeCounts' });

const writebackRow = z
  .object({
    ...rowKey,
    hop0Unsafe: counts,
    hop0FilteredUnsafe: counts,
    poisoned: count,
    storedActive: proportion.nullable(),
    journalsStored: proportion.nullable(),
    defaultHops: z.array(counts),
    filteredHops: z.array(counts),
    journalRetrievedFiltered: z.array(proportion),
    filteredHop1GivenActive: counts.nullable(),
    hopParseFailures: count,
  })
  .meta({ id: 'WritebackRow' });

const propagationRow = z
  .object({
    ...rowKey,
    executorUnsafe: counts,
    reviewerUnsafe: counts,
    plannerUnsafe: counts,
    reviewerGivenPoisoned: counts,
    anyLaterGivenPoisoned: counts,
    allThree: counts,
    meanUnsafeRoles: z.object({ sum: count, n: count, mean: z.number().nullable() }),
    allRolesSawRevoked: proportion,
    incomplete: count,
  })
  .meta({ id: 'PropagationRow' });

const toolsRow = z
  .object({
    ...rowKey,
    scenario: z.string(),
    toolExecution: proportion,
    secretRead: proportion,
    exfilConfirmed: proportion,
    shellRefused: proportion,
    interpreterOneLiners: proportion,
    bypassedToolGuardrail: proportion,
    safe: proportion,
    relapse: z.object({ default: proportion, filtered: proportion }).nullable(),
  })
  .meta({ id: 'ToolsRow' });

/** A follow-up run's `summary.json` (`{version} & FollowUpSummary`, analysis/follow-ups/follow-up-summary.types.ts). */
export const followUpSummarySchema = z
  .object({
    ...common,
    experiment: z.enum(['writeback', 'propagation', 'tools']),
    writeback: z.array(writebackRow).optional(),
    propagation: z.array(propagationRow).optional(),
    tools: z.array(toolsRow).optional(),
  })
  .meta({ title: 'follow-up run', description: 'Rows of Table 14 (writeback), 15 (propagation) or 16 (tools).' });

/** `summary.json` of a `pnpm eval` run: a grid run's or a follow-up run's. */
export const summarySchema = z.union([gridSummarySchema, followUpSummarySchema]);
