// The decision-model specification, version v1 (types only): a chat model that answers one decision prompt.
// Nothing here exists for one implementation: the simulator's needs travel in `metadata`, and what only an endpoint
// model offers (cache lookups for --dry-run, the temperature fallback) is a capability of its registry line.

/** One chat message, as sent on the wire. */
export interface ChatMessage {
  role: 'system' | 'user' | 'assistant';
  content: string;
}

/** Model ids are open: any alias an OpenAI-compatible endpoint or LiteLLM proxy serves. */
export type ModelId = 'sim' | 'gpt-5-nano' | 'gpt-5.5' | (string & {});

/** One decision call. */
export interface DecisionRequest {
  /** The exact messages to send. */
  messages: readonly ChatMessage[];
  /** Trial index, part of the cache key so that trials stay independent. */
  trial: number;
  /**
   * The sample identity of this call: which unit of which experiment, and which call inside the unit (a hop and
   * read, a role, an agent episode and step), e.g. `grid/<unit id>` or `writeback/<unit id>#hop1:filtered`. It is
   * the identity of the draw: the same sample, trial and messages are the same draw (a response-cache hit, the
   * same simulator answer); calls of different samples draw independently even when their messages are
   * byte-identical. Built by `pipeline/models/sample-identity.ts`.
   */
  sample: string;
  /** Cancels an in-flight call (Ctrl+C). */
  signal?: AbortSignal;
  /** What the call is about; never sent, never part of the draw's identity (an endpoint model ignores it). */
  metadata?: DecisionMetadata;
}

/** Facts about a call that are not in its messages: read by implementations that need them (the simulator does). */
export interface DecisionMetadata {
  /** The scenario the call belongs to: a policy scenario (one decision) or an exploit scenario (a tool-agent step). */
  scenario: string;
}

/** Sampling parameters as requested by the protocol and as actually sent. */
export interface SamplingParameters {
  temperature?: number;
  max_tokens?: number;
  max_completion_tokens?: number;
}

/** Token usage as reported by the provider. */
export interface Usage {
  promptTokens: number;
  completionTokens: number;
  reasoningTokens?: number;
  cachedTokens?: number;
}

/** The outcome of one decision call that returned a reply (possibly empty). */
export interface DecisionResponse {
  /** Raw reply text (the first choice's content; '' when the provider returned none). */
  text: string;
  /** The request's sample identity: the draw this reply is (a reused reply keeps the sample that drew it). */
  sample: string;
  /** The response-cache key of this draw (`pnpm run cache explain <key>`), when a cache is configured. */
  cacheKey?: string;
  /** Why `text` is empty or partial: the provider's finish reason, `no-choices`, or null. */
  finishReason: string | null;
  /** Served from the on-disk response cache. */
  cached: boolean;
  /** Provider calls made for this decision (1 when no retry happened; 0 on a cache hit or for `sim`). */
  attempts: number;
  /** What the protocol asked for. */
  requested: SamplingParameters;
  /** What was in the body of the request that succeeded. */
  sent: SamplingParameters;
  /** `response.model` echoed by the provider (alias drift shows here). */
  responseModel: string | null;
  /** Provider-side fingerprint, when given. */
  systemFingerprint: string | null;
  /** Token usage, when given. */
  usage: Usage | null;
  /** Selected response headers (LiteLLM's `x-litellm-*`, never auth headers). */
  headers: Record<string, string>;
  /** Recorded fallbacks, e.g. `temperature dropped after the provider rejected it`. */
  notes: readonly string[];
  /**
   * The Batch API job that answered this call (`--batch`, pipeline/batch/); absent for a synchronous call. Its spend
   * is priced at the model's batch price wherever replies are priced.
   */
  batch?: string;
}

/** What the manifest says about a model. */
export interface ModelDescription {
  /** The alias as given on the command line. */
  id: ModelId;
  /** How tables name it: the alias, or `sim (simulated)`. */
  label: string;
  /** The registry line that built it (pipeline/models/decision-models.ts): `openai-compatible`, `sim`, ... */
  kind: 'openai-compatible' | 'sim' | (string & {});
  /** True for the offline simulator: every output that used it must say so. */
  simulated: boolean;
  /** Endpoint base URL (never the key), or null for `sim`. */
  baseURL: string | null;
  /** Protocol settings (temperature, token cap, retry ladder, simulator parameters). */
  settings: Record<string, unknown>;
}

/**
 * Answers decision prompts. Implementations own their retries (the shared ladder, pipeline/core/retry-policy.ts) and throw
 * `ProviderError` when a call finally fails; an empty or unparseable reply is returned, not thrown.
 */
export interface DecisionModel {
  /** The version of this specification the implementation follows; the registry refuses any other. */
  readonly specificationVersion: 'v1';
  /** Registry description, written to the manifest. */
  readonly description: ModelDescription;
  /** Sends one decision prompt and returns the raw reply. */
  decide(request: DecisionRequest): Promise<DecisionResponse>;
}
