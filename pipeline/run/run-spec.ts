// RunSpec: the plain, validated description of one evaluation run (dataset, systems, models, arms, config).
// Every id-valued field is checked against its registry (systems, engines, embedders, extraction models, experiments).
import { z } from 'zod';
import { agentIdSchema } from '../suites/forged-reasoning/agents.js';
import { defaultEngines, GRAPH_ENGINES, VECTOR_ENGINES } from '../../backends/engines.js';
import { SYSTEMS } from '../../backends/index.js';
import { EMBEDDERS, EXTRACTION_MODELS } from '../../backends/model-roles.js';
import { InvalidInputError } from '#core/errors.js';
import { distinct } from '#core/distinct-list.js';
import { knownId, specPartSchema } from '#core/registry.js';
import { EXPERIMENT_ARG_SHAPE, EXPERIMENTS, experimentArgs } from './experiments.js';
import { sha256 } from '../run-log/json-files.js';
import type { EvalPhaseRulesV1 } from './eval-phase-v1.js';
import { AXES, AXIS_SPEC_SHAPE, type AxisId, type AxisV1, axisIdentity } from '../defences/axes/index.js';

const idList = distinct(z.array(z.string().min(1)).min(1));

/**
 * The share of failed units a run tolerates (`--max-error-rate`): a run below it completes (exit 4 when units are still
 * failed); above it, or past it once 20 units finished, it stops. pipeline/README.md "Transient errors do not kill a
 * good run" justifies the value.
 */
export const DEFAULT_MAX_ERROR_RATE = 0.25;

/** The control settings of a run given no flags (issue #12 defaults). */
export const DEFAULT_RUN_CONTROL = {
  preflight: true,
  requestTimeoutMs: 60_000,
  maxConsecutiveErrors: 5,
  budgetUsd: null,
  allowUnpriced: false,
  prices: null,
  confirmAboveUsd: 1,
  assumeYes: false,
  quiet: false,
  verbose: false,
  shard: null,
  endpoints: null,
  fixedConcurrency: false,
  failOn: [],
  sarif: null,
  batch: null,
} as const;

/** The run description. Everything that defines *which units exist and what they compute* is hashed. */
export const runSpecSchema = z
  .object({
    /**
     * `grid` = the main grid (stale-retrieval.md §2); `writeback`, `propagation`, `tools` = the follow-up
     * experiments of §12–§14. Absent in run logs written before the follow-ups existed (= grid).
     */
    experiment: z.enum(EXPERIMENTS.ids).default(EXPERIMENTS.ids[0]),
    /** Each experiment's own fields (`hops`, `toolSteps`, `forgeries`, ...), as its line declares them (experiments.ts). */
    ...EXPERIMENT_ARG_SHAPE,
    /** Decision-model aliases (`sim` is the offline simulator). */
    models: idList,
    /** Memory-system ids; none for a standalone experiment (forged-reasoning keeps its memory in process). */
    systems: distinct(z.array(knownId(SYSTEMS))),
    /** Seeding modes; none for a standalone experiment. */
    modes: distinct(z.array(z.enum(['direct', 'natural']))),
    /** Defence arm ids. */
    arms: idList,
    /** The defence axes (pipeline/defences/axes): `guard`, `poem` (`--guard off,on`), then `taint`, optional. */
    ...AXIS_SPEC_SHAPE,
    /**
     * forged-reasoning: the agent that proposes each action (`--agent`, pipeline/suites/forged-reasoning/agents.ts). Absent
     * (specs written before it existed) = `prompt`, the single-call harness.
     */
    agent: agentIdSchema.optional(),
    /** `--tamper unrevoke`: the at-rest edit of the integrity method (`T8:unrevoke`) between seeding and reading. Absent: none. */
    tamper: z.enum(['none', 'unrevoke']).optional(),
    /** Scenario ids, in grid order. */
    scenarios: idList,
    /** Directory of scenario JSON files; null = the built-in `scenarios/policy/`. */
    scenarioDir: z.string().nullable(),
    /**
     * `--limit N`: at most N units, round-robin across the plan's cells (pipeline/run/unit-limit.ts); absent or null = every
     * unit. Part of the run's identity: a limited run has its own run id, and a run directory is never resumed under
     * another limit.
     */
    limit: z.number().int().min(1).max(100_000_000).nullable().optional(),
    /** Trials per (scenario, system, mode, arm, model) (paper: 10). */
    trials: z.number().int().min(1).max(10_000),
    /** Retrieval depth (paper: k = 10 everywhere). */
    k: z.number().int().min(1).max(100),
    /** Seed for the simulator and any sampling we control. */
    seed: z.number().int().min(0),
    /** The shared embedder: `{ id, ...its line's arguments }` (backends/model-roles.ts). */
    embedder: specPartSchema(EMBEDDERS),
    /** Storage engines per role (backends/engines.ts); server URLs here, credentials only in the environment. */
    engine: z.object({ graph: specPartSchema(GRAPH_ENGINES), vector: specPartSchema(VECTOR_ENGINES) }).strict(),
    /** The LLM role of natural-mode ingestion: the offline simulator, or an endpoint model (backends/model-roles.ts). */
    extraction: specPartSchema(EXTRACTION_MODELS),
    /** Endpoint of the decision models (`OPENAI_BASE_URL`), null when only `sim` runs; the key is never part of the spec. */
    baseURL: z.string().url().nullable(),
    /** Units in flight at once. */
    concurrency: z.number().int().min(1).max(256),
    /** Output root; the run directory is `<out>/<runId>`. */
    out: z.string().min(1),
    /** Explicit run id; default derived from the spec hash so re-running the same command resumes. */
    runId: z
      .string()
      .regex(/^[A-Za-z0-9._-]+$/, 'letters, digits, dot, dash and underscore only')
      .nullable(),
    /** Response cache. */
    cache: z.object({ enabled: z.boolean(), dir: z.string().min(1) }).strict(),
    /** Re-run units whose record says `error`. */
    retryErrors: z.boolean(),
    /** Share of errored units tolerated before the run exits 2. */
    maxErrorRate: z.number().min(0).max(1),
    /** How this invocation spends and stops (issue #12); not part of the run's identity. */
    control: z
      .object({
        /** Probe every model endpoint once before anything is written (`--no-preflight` skips it). */
        preflight: z.boolean(),
        /** Timeout of one provider attempt (`--request-timeout`, seconds on the command line). */
        requestTimeoutMs: z.number().int().min(100).max(3_600_000),
        /** Consecutive failed units that stop the run as `aborted` (0 = off). */
        maxConsecutiveErrors: z.number().int().min(0).max(1_000_000),
        /** Spending cap in US dollars, fail-closed; null = none. */
        budgetUsd: z.number().positive().nullable(),
        /** Allow models without a known price under a budget (their spend counts only what the proxy reports). */
        allowUnpriced: z.boolean(),
        /** `--prices <file>`: USD per 1M input/output tokens per model, over data/prices.json. */
        prices: z.string().min(1).nullable(),
        /** A real run whose planned upper cost passes this asks first (TTY) or needs `--yes`. */
        confirmAboveUsd: z.number().min(0),
        /** `--yes`: do not ask. */
        assumeYes: z.boolean(),
        /** `--quiet`: no progress lines. */
        quiet: z.boolean(),
        /** `--verbose`: one line per setup probe (without it, only probes that failed). */
        verbose: z.boolean().default(false),
        /** `--shard i/n`: this invocation runs only its shard of the units (pipeline/run/shard.ts); null = every unit. */
        shard: z
          .object({ index: z.number().int().min(1), count: z.number().int().min(1).max(1024) })
          .strict()
          .refine((shard) => shard.index <= shard.count, 'index must be at most count')
          .nullable()
          .default(null),
        /** `--endpoints <file>`: the endpoint pool of the decision models (pipeline/endpoints/); null = `baseURL` alone. */
        endpoints: z.string().min(1).nullable().default(null),
        /**
         * `--fixed-concurrency`: every endpoint gets `-j` calls in flight, as units come. Without it (the default) each
         * endpoint's calls adapt below `-j` to its rate limit (pipeline/endpoints/adaptive-limit.ts).
         */
        fixedConcurrency: z.boolean().default(false),
        /** `--fail-on <rule>` (repeatable): grid thresholds (pipeline/run/grid-gate.ts); crossed → exit 5. */
        failOn: z.array(z.string().min(1)).readonly().default([]),
        /** `--sarif <file>`: the grid's failing cells as SARIF 2.1.0; null = none. */
        sarif: z.string().min(1).nullable().default(null),
        /**
         * `--batch` (issue #31): decision calls through the Batch API (pipeline/batch/), `size` requests per job at
         * most (`--batch-size`), each job polled every `pollMs` (`--batch-poll`); null = synchronous calls.
         */
        batch: z
          .object({ size: z.number().int().min(1).max(50_000), pollMs: z.number().int().min(1).max(3_600_000) })
          .strict()
          .nullable()
          .default(null),
      })
      .strict()
      .default(() => ({ ...DEFAULT_RUN_CONTROL })),
  })
  .strict();

export type RunSpec = z.infer<typeof runSpecSchema>;

/** What a spec's checks ask of its experiment's eval phase (pipeline/run/eval-phase-v1.ts). */
export type SpecRules = Pick<EvalPhaseRulesV1<unknown, unknown>, 'memorySystems' | 'refuses'>;

/** The checks across fields: what the experiment's phase runs on and refuses, then each axis turned on. */
function checkSpec(spec: RunSpec, phase: SpecRules, context: z.RefinementCtx<RunSpec>): void {
  // A phase without memory systems has no systems and no seeding; every other one needs both.
  for (const field of ['systems', 'modes'] as const) {
    if (!phase.memorySystems && spec[field].length > 0)
      context.addIssue({
        code: 'custom',
        path: [field],
        message: `${spec.experiment} keeps its reasoning memory in process: no ${field}`,
      });
    if (phase.memorySystems && spec[field].length === 0)
      context.addIssue({ code: 'custom', path: [field], message: 'needs at least one' });
  }
  const limit = phase.refuses.limit;
  if (limit && spec.limit !== null && spec.limit !== undefined)
    context.addIssue({ code: 'custom', path: ['limit'], message: limit(spec.experiment) });
  const agent = phase.refuses.agent;
  if (agent && spec.agent !== undefined && spec.agent !== 'prompt')
    context.addIssue({ code: 'custom', path: ['agent'], message: `--agent ${spec.agent} ${agent(spec.experiment)}` });
  // An axis turned on where it cannot apply (`--taint on` without journals): the axis says why.
  const experiments = EXPERIMENTS.ids.map((id) => ({ id, writesJournals: EXPERIMENTS.get(id).writesJournals }));
  const experiment = { id: spec.experiment, writesJournals: EXPERIMENTS.get(spec.experiment).writesJournals };
  for (const axis of AXES as readonly AxisV1[]) {
    const problem = spec[axis.id as AxisId]?.includes('on') ? axis.notApplicable?.(experiment, experiments) : null;
    if (problem) context.addIssue({ code: 'custom', path: [axis.id], message: problem });
  }
}

/**
 * Validates a spec and reports every problem with its path; `phaseOf` is the eval-phase registry's lookup
 * (pipeline/suites/eval-phases.ts `evalPhaseOf`), passed in because every phase is written against this file.
 */
export function parseRunSpec(input: unknown, source: string, phaseOf: (experiment: string) => SpecRules): RunSpec {
  const parsed = runSpecSchema
    .superRefine((spec, context) => checkSpec(spec, phaseOf(spec.experiment), context))
    .safeParse(input);
  if (parsed.success) return parsed.data;
  throw new InvalidInputError(
    source,
    parsed.error.issues.map((issue) => ({ path: issue.path.join('.'), message: issue.message })),
  );
}
/** What a spec's identity asks of its experiment's eval phase. */
export type IdentityRules = Pick<EvalPhaseRulesV1<unknown, unknown>, 'specIdentity' | 'runIdPrefix'>;

/** The part of a spec that determines the units and their results (not throughput or output settings). */
function specIdentity(spec: RunSpec, phase: IdentityRules): unknown {
  const {
    experiment,
    models,
    systems,
    modes,
    arms,
    tamper,
    agent,
    scenarios,
    scenarioDir,
    limit,
    trials,
    k,
    seed,
    embedder,
    extraction,
    baseURL,
    engine,
  } = spec;
  const embedded = defaultEngines(engine);
  // The grid's phase names nothing here: grid specs hash as they did before the follow-ups existed (old runs resume).
  const named = phase.specIdentity(experiment, experimentArgs(experiment, spec));
  return {
    ...named,
    models,
    systems,
    modes,
    arms,
    ...axisIdentity(spec),
    ...(tamper === undefined || tamper === 'none' ? {} : { tamper }),
    // Absent for the default harness, so runs recorded before `--agent` existed keep their run ids.
    ...(agent === undefined || agent === 'prompt' ? {} : { agent }),
    scenarios,
    scenarioDir,
    // Absent without --limit, so unlimited runs keep their run ids.
    ...(limit === null || limit === undefined ? {} : { limit }),
    trials,
    k,
    seed,
    embedder,
    extraction,
    baseURL,
    ...(embedded ? {} : { engine }),
  };
}

/** sha256 of the spec identity. */
export function specHash(spec: RunSpec, phase: IdentityRules): string {
  return sha256(JSON.stringify(specIdentity(spec, phase)));
}

/** `<prefix><models>_<hash8>`: the same command always lands in (and resumes) the same run directory. */
export function defaultRunId(spec: RunSpec, phase: IdentityRules): string {
  const models = spec.models.join('+').replace(/[^A-Za-z0-9._-]+/g, '-');
  return `${phase.runIdPrefix(spec.experiment)}${models}_${specHash(spec, phase).slice(0, 8)}`;
}
