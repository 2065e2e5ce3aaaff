// The parts of one run, built and checked before anything is written: scenarios, prices and budget, decision models,
// engines, embedder and extraction model; then the preflight of the endpoints they will call.
import OpenAI from 'openai';
import { createAttemptRelay } from '../models/attempt-relay.js';
import { createBatchTransport, type BatchTransport } from '../batch/batch-transport.js';
import { resolve } from 'node:path';
import { verifyEngines, verifySystems } from '../../backends/index.js';
import type { Embedder } from '../../backends/embedder.js';
import type { ExtractionModel } from '../../backends/extraction-model.js';
import type { EngineSpec } from '../../backends/memory-backend.js';
import { createFromSpec, EMBEDDERS, EXTRACTION_MODELS } from '../../backends/model-roles.js';
import { createBudget, createSpendGate, type Budget } from './budget.js';
import type { DecisionModel } from '../models/decision-model.js';
import { isRemoteModel, type DecisionModelComponent } from '../models/decision-models.js';
import { preflight } from './preflight.js';
import { loadPrices, priceOf as lookupPrice, type Price, type PriceTier } from '../models/prices.js';
import type { Redactor } from './redact.js';
import {
  createModels,
  engineOf,
  neo4jServerOf,
  preflightTargets,
  validateComponents,
  type ComponentRules,
  type RunScenarios,
  type RunSecrets,
} from './run-components.js';
import type { EvalPhaseRulesV1 } from './eval-phase-v1.js';
import { defaultRunId, type RunSpec } from './run-spec.js';
import { shardOf, shardRunId } from './shard.js';
import type { EndpointPool } from '../endpoints/endpoint-pool.js';
import { endpointPoolOf } from '../endpoints/run-endpoint-pool.js';
import { createCallLimits } from '../endpoints/adaptive-limit.js';
import { createTokenCounter, type TokenCounter } from '../models/token-count.js';

/** Everything `createRunParts` built, for the phases after it. */
export interface RunParts extends RunScenarios {
  runId: string;
  /** The run directory: the same spec always maps to the same one, so re-issuing a command resumes it. */
  runDir: string;
  /**
   * The price a run's calls are billed at, per model id (`--prices` or data/prices.json), null when unknown: the
   * batch price under `--batch`, else the standard one. The budget reserves and the account records at it.
   */
  priceOf: (model: string, tier?: PriceTier) => Price | null;
  /** The standard (synchronous) price per model id, for the plan's comparison under `--batch`. */
  standardPriceOf: (model: string) => Price | null;
  /** The `--budget-usd` cap, or null without one. */
  budget: Budget | null;
  /** The decision models' registry components (model plus capabilities), in spec order. */
  modelComponents: DecisionModelComponent[];
  /** The decision models, in spec order. */
  models: DecisionModel[];
  /** forged-reasoning's `--attacker-model <alias>` as a model, else null (the mutation engine, or no attacker). */
  attackerModel: DecisionModel | null;
  /** The storage engines with their credentials. */
  engine: EngineSpec;
  /** The embedder every system of the run shares. */
  embedder: Embedder;
  /** The extraction model of natural-mode ingestion. */
  extraction: ExtractionModel;
  /** `--endpoints`: the decision models' endpoint pool (its counts go into the manifest), else null. */
  pool: EndpointPool | null;
  /** Where the decision models report their provider attempts; the run's control listens (pipeline/models/attempt-relay.ts). */
  attempts: ReturnType<typeof createAttemptRelay>;
  /** `--batch`: the run's Batch API transport (a follow-up's units join its round barrier), else null. */
  batch: BatchTransport | null;
}

/** The rules of the run's eval phase that its parts are built with. */
export type PartsRules = ComponentRules & Pick<EvalPhaseRulesV1<RunSpec, RunScenarios>, 'runIdPrefix' | 'specIdentity'>;

/**
 * Validates the spec's components, loads the scenarios and prices, arms the budget, and creates the decision models,
 * engines, embedder and extraction model (in this order, so the first bad input is the one reported).
 */
export async function createRunParts(
  spec: RunSpec,
  secrets: RunSecrets,
  redact: Redactor,
  log: (line: string) => void,
  phase: PartsRules,
): Promise<RunParts> {
  validateComponents(spec, phase);
  const scenarioSets = await phase.scenarios(spec);
  const { scenarios, exploitScenarios, reasoningScenarios } = scenarioSets;
  const extraModels = phase.extraModels(spec);
  const aliases = [...spec.models, ...extraModels];
  const runId = shardRunId(spec.runId ?? defaultRunId(spec, phase), shardOf(spec, phase));
  const runDir = resolve(spec.out, runId);
  const prices = loadPrices(spec.control.prices);
  const batchPrices = loadPrices(spec.control.prices, 'batch');
  const standardPriceOf = (model: string) => lookupPrice(prices, model);
  const billedTier: PriceTier = spec.control.batch ? 'batch' : 'standard';
  const priceOf = (model: string, tier: PriceTier = billedTier) =>
    lookupPrice(tier === 'batch' ? batchPrices : prices, model);
  const counters = new Map<string, TokenCounter>(
    await Promise.all(aliases.filter(isRemoteModel).map(async (m) => [m, await createTokenCounter(m)] as const)),
  );
  const budget: Budget | null =
    spec.control.budgetUsd === null
      ? null
      : createBudget({
          limitUsd: spec.control.budgetUsd,
          priceOf,
          allowUnpriced: spec.control.allowUnpriced,
          tier: billedTier,
        });
  budget?.checkModels(aliases.filter(isRemoteModel));
  const spend = budget
    ? createSpendGate(budget, {
        countTokens: (model, messages) =>
          counters.get(model)!.count(messages.map((m) => ({ role: m.role as 'user', content: m.content }))),
        priceOf,
      })
    : undefined;
  const pool = endpointPoolOf(spec, secrets, aliases);
  const attempts = createAttemptRelay();
  // `-j` bounds every endpoint's calls in flight; adaptively below it unless `--fixed-concurrency`.
  const limits = spec.control.fixedConcurrency ? null : createCallLimits({ max: spec.concurrency });
  const batch = batchTransportOf(spec, secrets, runDir, log);
  const modelComponents = await createModels(spec, {
    pool,
    attempts,
    limits,
    batch,
    scenarios,
    exploitScenarios,
    reasoningScenarios,
    secrets,
    redact,
    extraModels,
    ...(spend ? { spend } : {}),
  });
  // The victims; a forged-reasoning attacker model (`--attacker-model <alias>`) comes after them.
  const models = modelComponents.slice(0, spec.models.length).map((component) => component.model);
  const attackerModel = modelComponents[spec.models.length]?.model ?? null;
  const engine = engineOf(spec, secrets);
  await verifyEngines(engine);
  await verifySystems(spec.systems, { neo4j: neo4jServerOf(secrets) });
  const endpoint = { baseURL: spec.baseURL, apiKey: secrets.apiKey };
  const embedder = await createFromSpec(EMBEDDERS, spec.embedder, endpoint);
  const extraction = await createFromSpec(EXTRACTION_MODELS, spec.extraction, endpoint);
  return {
    ...scenarioSets,
    runId,
    runDir,
    priceOf,
    standardPriceOf,
    budget,
    modelComponents,
    models,
    attackerModel,
    engine,
    embedder,
    extraction,
    pool,
    attempts,
    batch,
  };
}

/** `--batch`: the run's Batch API transport on the run's endpoint (pipeline/batch/), else null. */
function batchTransportOf(
  spec: RunSpec,
  secrets: RunSecrets,
  runDir: string,
  log: (line: string) => void,
): BatchTransport | null {
  if (!spec.control.batch || spec.baseURL === null) return null;
  // No SDK retries: a retried `batches.create` whose first try reached the server would submit the chunk twice.
  const client = new OpenAI({
    baseURL: spec.baseURL,
    apiKey: secrets.apiKey ?? '',
    maxRetries: 0,
    timeout: spec.control.requestTimeoutMs,
  });
  return createBatchTransport({ client, runDir, ...spec.control.batch, retryErrors: spec.retryErrors, log });
}

/** With `--preflight` (the default), probes every endpoint the run will call and logs one line per endpoint. */
export async function preflightRun(
  spec: RunSpec,
  secrets: RunSecrets,
  log: (line: string) => void,
  phase: Pick<ComponentRules, 'extraModels'>,
): Promise<void> {
  const targets = preflightTargets(spec, secrets, phase.extraModels(spec));
  if (spec.control.preflight && targets.length > 0) {
    for (const report of await preflight(targets, { timeoutMs: 10_000, onWait: log }))
      log(
        `preflight ${report.baseURL} (${report.roles.join('+')}): ok in ${report.ms} ms (${report.checkedBy === 'models-list' ? 'GET /models' : 'one 1-token request per alias'})`,
      );
  }
}
