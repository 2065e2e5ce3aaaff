// The registries of the two model roles inside memory systems: embedders and extraction models. One lazy line each,
// the single source of their ids for the command line, the run spec, `--help`, the preflight and the manifest.
import { z } from 'zod';
import {
  createComponent,
  defineRegistry,
  factory,
  type ComponentArgs,
  type FactoryEntry,
  type Registry,
  type SpecPart,
} from '#core/registry.js';
import { DEFAULT_RETRY_POLICY, retryPolicySchema } from '#core/retry-policy.js';
import type { Embedder } from './embedder.js';
import type { ExtractionModel } from './extraction-model.js';

/** What a model-role line may use but never records: the key, and the run's endpoint as a fallback base URL. */
export interface EndpointContext {
  apiKey?: string | undefined;
  /** The run's endpoint (`OPENAI_BASE_URL`), for a line without a base URL of its own; null when none. */
  baseURL?: string | null | undefined;
}

/** A model-role line: a factory plus what the command line and the preflight ask of it. */
export interface ModelRoleEntry<Instance> extends FactoryEntry<Instance, EndpointContext> {
  /** Calls an endpoint: needs a key and a preflight, and spends outside a decision budget. */
  remote: boolean;
  /** The endpoint and model it calls (for the preflight), or null when it calls none. */
  endpoint(args: ComponentArgs, context: EndpointContext): { baseURL: string; model: string } | null;
  /** Present on a line that serves endpoint aliases: its arguments for `alias` (absent: its environment default). */
  fromAlias?(alias: string | undefined, env: NodeJS.ProcessEnv): ComponentArgs;
}

const embedder = (line: ModelRoleEntry<Embedder>) => line;
const extractor = (line: ModelRoleEntry<ExtractionModel>) => line;
const modelName = z.string().min(1);
const modelArgs = (args: ComponentArgs) => z.object({ model: modelName }).loose().parse(args);

/** Embedders: every system of a run shares one (the paper gave all systems one embedder). The first line is the default. */
export const EMBEDDERS = defineRegistry('embedder', {
  lexical: embedder({
    ...factory({
      summary: 'hashed bag of words, offline (default)',
      args: z.object({ dimensions: z.number().int().positive().optional() }).strict(),
      create: async (args): Promise<Embedder> => (await import('./lexical-embedder.js')).createLexicalEmbedder(args),
    }),
    remote: false,
    endpoint: () => null,
  }),
  openai: embedder({
    ...factory({
      summary:
        'any OpenAI-compatible /v1/embeddings (--embedding-model; STALEBENCH_EMBEDDINGS_BASE_URL, else OPENAI_BASE_URL)',
      args: z
        .object({
          model: modelName,
          baseURL: z.string().url().nullable().default(null),
          dimensions: z.number().int().positive().optional(),
          retry: retryPolicySchema.default(DEFAULT_RETRY_POLICY),
        })
        .strict(),
      create: async ({ model, baseURL, dimensions, retry }, context: EndpointContext): Promise<Embedder> => {
        const url = baseURL ?? context.baseURL ?? undefined;
        return (await import('./openai-embedder.js')).createOpenAIEmbedder({
          model,
          retry,
          ...(url ? { baseURL: url } : {}),
          ...(context.apiKey ? { apiKey: context.apiKey } : {}),
          ...(dimensions ? { dimensions } : {}),
        });
      },
    }),
    remote: true,
    endpoint: (args, context) => {
      const url = (typeof args.baseURL === 'string' ? args.baseURL : null) ?? context.baseURL ?? null;
      return url === null ? null : { baseURL: url, model: modelArgs(args).model };
    },
    fromAlias: (model, env) => ({
      model: model ?? env.STALEBENCH_EMBEDDING_MODEL ?? 'text-embedding-3-small',
      baseURL: env.STALEBENCH_EMBEDDINGS_BASE_URL ?? null,
    }),
  }),
});

/** Extraction models: the LLM role of natural-mode ingestion. The first line is the default. */
export const EXTRACTION_MODELS = defineRegistry('extraction-model', {
  sim: extractor({
    ...factory({
      summary: 'the offline deterministic extractor (default; natural-mode results are marked simulated)',
      args: z.object({}).strict(),
      create: async (): Promise<ExtractionModel> =>
        (await import('./sim-extraction-model.js')).createSimExtractionModel(),
    }),
    remote: false,
    endpoint: () => null,
  }),
  openai: extractor({
    ...factory({
      summary: 'an endpoint alias (any other value of --extraction-model), at temperature 0 through OPENAI_BASE_URL',
      args: z
        .object({
          model: modelName,
          jsonMode: z.boolean().default(true),
          retry: retryPolicySchema.default(DEFAULT_RETRY_POLICY),
        })
        .strict(),
      create: async ({ model, jsonMode, retry }, context: EndpointContext): Promise<ExtractionModel> =>
        (await import('./openai-extraction-model.js')).createOpenAIExtractionModel({
          model,
          jsonMode,
          retry,
          ...(context.baseURL ? { baseURL: context.baseURL } : {}),
          ...(context.apiKey ? { apiKey: context.apiKey } : {}),
        }),
    }),
    remote: true,
    endpoint: (args, context) => (context.baseURL ? { baseURL: context.baseURL, model: modelArgs(args).model } : null),
    fromAlias: (model) => ({ model }),
  }),
});

/** The embedder spec part of `--embedder <id>` (a remote line reads `--embedding-model` or its environment default). */
export function embedderSpecPart(id: string, model: string | undefined, env: NodeJS.ProcessEnv): SpecPart {
  const line = EMBEDDERS.has(id) ? EMBEDDERS.get(id) : undefined;
  return { id, ...(line?.remote ? line.fromAlias?.(model, env) : {}) };
}

/** The extraction spec part of `--extraction-model <value>`: an offline line by its id, any other value an endpoint alias. */
export function extractionSpecPart(value: string, env: NodeJS.ProcessEnv): SpecPart {
  if (EXTRACTION_MODELS.has(value) && !EXTRACTION_MODELS.get(value).remote) return { id: value };
  const aliasLine = EXTRACTION_MODELS.ids.find((id) => EXTRACTION_MODELS.get(id).fromAlias !== undefined);
  return aliasLine === undefined
    ? { id: value }
    : { id: aliasLine, ...EXTRACTION_MODELS.get(aliasLine).fromAlias?.(value, env) };
}

/** Creates the component a spec part names, tagged with its record (`recordOf`). */
export function createFromSpec<Instance extends object>(
  registry: Registry<string, ModelRoleEntry<Instance>>,
  part: SpecPart,
  context: EndpointContext,
): Promise<Instance> {
  const { id, ...args } = part;
  return createComponent(registry, id, args, context);
}

/** The first offline extraction model (the simulator): what `--dry-run` plans natural mode with, sending nothing. */
export function createOfflineExtractionModel(): Promise<ExtractionModel> {
  const id = EXTRACTION_MODELS.ids.find((line) => !EXTRACTION_MODELS.get(line).remote) ?? EXTRACTION_MODELS.ids[0];
  return createFromSpec(EXTRACTION_MODELS, { id }, {});
}
