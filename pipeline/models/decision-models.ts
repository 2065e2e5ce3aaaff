// The decision-model registry: one line per implementation of the v1 spec, the single source of how a `--model`
// alias becomes a model, what it records in the manifest, and the capabilities only some implementations have.
import type { AttemptObserver } from './attempt-relay.js';
import { z } from 'zod';
import { InvalidInputError, UnsupportedFeatureError } from '#core/errors.js';
import {
  createComponent,
  defineRegistry,
  factory,
  type ComponentArgs,
  type ComponentRecord,
  type FactoryEntry,
  type Registry,
} from '#core/registry.js';
import { DEFAULT_RETRY_POLICY, retryPolicySchema } from '#core/retry-policy.js';
import type { ExploitScenario } from '../../scenarios/exploit-scenario.js';
import type { Scenario } from '../../scenarios/scenario.js';
import type { ForgedReasoningScenario } from '../../scenarios/forged-reasoning-scenario.js';
import type { SpendGate } from '../run/budget.js';
import type { DecisionModel, DecisionRequest } from './decision-model.js';
import type { EndpointPool } from '../endpoints/endpoint-pool.js';
import { createOpenAIDecisionModel, OPENAI_DECISION_DEFAULTS } from './openai-decision-model.js';
import type { CallLimits } from '../endpoints/adaptive-limit.js';
import type { BatchTransport } from '../batch/batch-transport.js';
import type { Redactor } from '../run/redact.js';
import type { ResponseCache } from './response-cache.js';
import { createSimDecisionModel, DEFAULT_SIM_PARAMETERS } from './sim-decision-model.js';

/** What only some implementations offer beyond the spec; the pipeline asks for a capability, never for an id. */
export interface DecisionModelCapabilities {
  /** `--dry-run`: whether this exact call would be answered from the response cache. Absent: the model never sends. */
  cacheLookup?(request: DecisionRequest): boolean;
  /** Aliases whose provider rejected `temperature`, now on its default (the manifest's `modelsOnProviderDefaultTemperature`). */
  temperatureFallbacks?(): readonly string[];
}

/** A created decision model and its capabilities. */
export interface DecisionModelComponent {
  model: DecisionModel;
  capabilities: DecisionModelCapabilities;
}

/** What a line may use but never records: the run's scenarios, the key, the cache, the budget, the redactor. */
export interface DecisionModelContext {
  scenarios: readonly Scenario[];
  exploitScenarios: readonly ExploitScenario[];
  /** Forged-reasoning scenarios (the simulator reads their notes); absent outside that experiment. */
  reasoningScenarios?: readonly ForgedReasoningScenario[];
  apiKey: string | undefined;
  cache?: ResponseCache;
  spend?: SpendGate;
  redact?: Redactor;
  /** `--endpoints`: the pool endpoint models send through (each endpoint with its own key). */
  pool?: EndpointPool;
  /** Hears every provider attempt (the run's circuit breaker). */
  attempts?: AttemptObserver;
  /** The run's adaptive call limits per endpoint and model; absent = `--fixed-concurrency` (units at `-j`, no pacing). */
  limits?: CallLimits;
  /** `--batch`: endpoint models send their calls as Batch API jobs through this transport (pipeline/batch/). */
  batch?: BatchTransport;
}

/** The run-level settings a line's arguments are taken from. */
export interface DecisionModelRunSettings {
  seed: number;
  baseURL: string | null;
  timeoutMs: number;
}

/** One decision-model line. */
export interface DecisionModelEntry extends FactoryEntry<DecisionModelComponent, DecisionModelContext> {
  /** Sends requests to an endpoint: needs `OPENAI_API_KEY`, a preflight, and a price under a budget. */
  remote: boolean;
  /** True on the line that serves every alias no offline line is named after. */
  servesAliases: boolean;
  /** Its arguments for a `--model` alias in a run with these settings. */
  argsFor(alias: string, run: DecisionModelRunSettings): ComponentArgs;
}

const line = (entry: DecisionModelEntry) => entry;
const probability = z.number().min(0).max(1);

export const DECISION_MODELS = defineRegistry('decision-model', {
  sim: line({
    ...factory({
      summary: 'the offline simulator (--model sim): deterministic, every output that used it says sim (simulated)',
      args: z
        .object({
          seed: z.number().int().min(0),
          parameters: z
            .object({
              followRevoked: probability,
              guardrailFactor: probability,
              hardenFactor: probability,
              unparseableRate: probability,
              quoteRate: probability,
              followJournal: probability,
              followClaimedStep: probability,
              followImpliedStep: probability,
              followJudgment: probability,
            })
            .strict()
            .default(DEFAULT_SIM_PARAMETERS),
        })
        .strict(),
      create: async ({ seed, parameters }, context: DecisionModelContext) => ({
        model: createSimDecisionModel({
          scenarios: context.scenarios,
          exploitScenarios: context.exploitScenarios,
          ...(context.reasoningScenarios ? { reasoningScenarios: context.reasoningScenarios } : {}),
          seed,
          parameters,
        }),
        capabilities: {},
      }),
    }),
    remote: false,
    servesAliases: false,
    argsFor: (_alias, run) => ({ seed: run.seed }),
  }),
  'openai-compatible': line({
    ...factory({
      summary:
        'any other alias, served by your OpenAI-compatible endpoint (OPENAI_BASE_URL, OPENAI_API_KEY; a LiteLLM proxy works)',
      args: z
        .object({
          model: z.string().min(1),
          baseURL: z.string().url(),
          temperature: z.number().min(0).max(2).default(OPENAI_DECISION_DEFAULTS.temperature),
          maxTokens: z.number().int().min(1).default(OPENAI_DECISION_DEFAULTS.maxTokens),
          timeoutMs: z.number().int().min(100).default(OPENAI_DECISION_DEFAULTS.timeoutMs),
          retry: retryPolicySchema.default(DEFAULT_RETRY_POLICY),
        })
        .strict(),
      create: async (args, context: DecisionModelContext) => {
        if (!context.apiKey && !context.pool)
          throw new InvalidInputError('environment', [
            {
              path: 'OPENAI_API_KEY',
              message: `model "${args.model}" needs an endpoint key; set OPENAI_API_KEY (any placeholder works for a local proxy without auth), or use --model sim`,
            },
          ]);
        const model = createOpenAIDecisionModel({
          ...args,
          apiKey: context.apiKey ?? '',
          ...(context.pool ? { pool: context.pool } : {}),
          ...(context.cache ? { cache: context.cache } : {}),
          ...(context.spend ? { spend: context.spend } : {}),
          ...(context.redact ? { redact: context.redact } : {}),
          ...(context.attempts ? { attempts: context.attempts } : {}),
          ...(context.limits ? { limits: context.limits } : {}),
          ...(context.batch ? { batch: context.batch } : {}),
        });
        return {
          model,
          capabilities: { cacheLookup: model.wouldHitCache, temperatureFallbacks: model.providerDefaultTemperature },
        };
      },
    }),
    remote: true,
    servesAliases: true,
    argsFor: (alias, run) => ({
      model: alias,
      ...(run.baseURL === null ? {} : { baseURL: run.baseURL }),
      timeoutMs: run.timeoutMs,
    }),
  }),
});

/** The line that serves a `--model` alias: an offline line named after it, else the line that serves every alias. */
export function decisionModelLineOf(
  alias: string,
  registry: Registry<string, DecisionModelEntry> = DECISION_MODELS,
): string {
  if (registry.has(alias) && !registry.get(alias).remote) return alias;
  return registry.ids.find((id) => registry.get(id).servesAliases) ?? alias;
}

/** Whether a `--model` alias sends requests (and so needs a key, a preflight, a price, a token counter). */
export function isRemoteModel(alias: string): boolean {
  return DECISION_MODELS.get(decisionModelLineOf(alias)).remote;
}

/** The manifest record of a `--model` alias in a run with these settings. */
export function decisionModelRecord(alias: string, run: DecisionModelRunSettings): ComponentRecord {
  const id = decisionModelLineOf(alias);
  return DECISION_MODELS.record(id, DECISION_MODELS.get(id).argsFor(alias, run));
}

/**
 * Creates the model a `--model` alias names, tagged with its record. A model following another version of the
 * spec is refused with `UnsupportedFeatureError`, never half-used.
 */
export async function createDecisionModel(
  alias: string,
  run: DecisionModelRunSettings,
  context: DecisionModelContext,
  registry: Registry<string, DecisionModelEntry> = DECISION_MODELS,
): Promise<DecisionModelComponent> {
  const id = decisionModelLineOf(alias, registry);
  const component = await createComponent(registry, id, registry.get(id).argsFor(alias, run), context);
  const version: string = component.model.specificationVersion;
  if (version !== 'v1')
    throw new UnsupportedFeatureError(
      `decision-model "${id}"`,
      `specification ${version}`,
      'this pipeline speaks the v1 decision-model spec (pipeline/models/decision-model.ts)',
    );
  return component;
}
