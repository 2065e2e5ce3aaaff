// Decision model for any OpenAI-compatible endpoint (OpenAI, a LiteLLM proxy, vLLM, ...) via the official SDK.
import OpenAI, { APIConnectionError, APIConnectionTimeoutError, APIError } from 'openai';
import type { ChatCompletion } from 'openai/resources/chat/completions';
import { ProviderError, StorageError } from '#core/errors.js';
import type { SpendGate } from '../run/budget.js';
import { scopedSignal } from './call-signal.js';
import { describeFailure } from './endpoint-failure.js';
import { createRedactor, type Redactor } from '../run/redact.js';
import type { DecisionModel, DecisionRequest, DecisionResponse, SamplingParameters, Usage } from './decision-model.js';
import type { ResponseCache } from './response-cache.js';
import {
  abortableSleep,
  DEFAULT_RETRY_POLICY,
  isTemperatureRejection,
  nextAttemptDelay,
  type RetryPolicy,
} from '#core/retry-policy.js';
import { attemptResultOf, classifyOpenAIFailure } from '../../backends/openai-retry.js';
import type { AttemptObserver } from './attempt-relay.js';
import type { EndpointLease, EndpointPool } from '../endpoints/endpoint-pool.js';
import type { CallLimits, CallPermit } from '../endpoints/adaptive-limit.js';
import type { BatchTransport } from '../batch/batch-transport.js';
import { sha256 } from '../run-log/json-files.js';

/** Settings of `createOpenAIDecisionModel`. */
export interface OpenAIDecisionModelSettings {
  /** The alias sent as `model`, unchanged (a LiteLLM `model_name`). */
  model: string;
  /** Endpoint; defaults to `OPENAI_BASE_URL` or the OpenAI API. */
  baseURL: string;
  /** Key; read by the caller from `OPENAI_API_KEY`. Never stored anywhere. */
  apiKey: string;
  /** Protocol settings (stale-retrieval.md §6.2): temperature 0.7, 2000 output tokens. */
  temperature?: number;
  maxTokens?: number;
  /** Per-attempt timeout (`--request-timeout`, default 60 s; the reference used 180 s per call). */
  timeoutMs?: number;
  /** The single retry layer: the SDK's own retries are off. */
  retry?: RetryPolicy;
  /** Reply cache; `undefined` disables caching. */
  cache?: ResponseCache;
  /** `--budget-usd`: every attempt is reserved before it is sent and settled after; absent = no budget. */
  spend?: SpendGate;
  /** Redacts every error text and note this model produces (default: the key and key-shaped strings). */
  redact?: Redactor;
  /** `--endpoints`: each attempt goes to an endpoint of the pool instead of `baseURL` (still the cache's endpoint). */
  pool?: EndpointPool;
  /** Hears every attempt sent and how it ended (the run's circuit breaker, pipeline/models/attempt-relay.ts). */
  attempts?: AttemptObserver;
  /** The run's adaptive call limits (pipeline/endpoints/adaptive-limit.ts): each attempt waits for a slot of its endpoint. */
  limits?: CallLimits;
  /** Injected for tests; must resolve early when `signal` aborts. */
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  /**
   * `--batch` (issue #31): every call not answered by the cache goes through the Batch API instead of a
   * chat-completions request; the reply, its cache entry and its spend are the ones a synchronous call records.
   */
  batch?: BatchTransport;
}

/** What the cache stores: only validated, non-empty replies. */
interface CachedReply {
  text: string;
  finishReason: string | null;
  responseModel: string | null;
  systemFingerprint: string | null;
  usage: Usage | null;
  sent: SamplingParameters;
}

/** GPT-5 and o-series reasoning models take `max_completion_tokens`, not `max_tokens`. */
export function usesCompletionTokenCap(model: string): boolean {
  return /(^|\/)(gpt-5|o1|o3|o4)/i.test(model);
}

const KEPT_HEADER = /^(x-litellm-|x-ratelimit-|openai-processing-ms$|x-request-id$|llm_provider-x-request-id$)/i;

function keptHeaders(headers: Headers | undefined): Record<string, string> {
  const kept: Record<string, string> = {};
  headers?.forEach((value, name) => {
    if (KEPT_HEADER.test(name) && !/key|auth/i.test(name)) kept[name.toLowerCase()] = value;
  });
  return kept;
}

function usageOf(completion: ChatCompletion): Usage | null {
  const usage = completion.usage;
  if (!usage) return null;
  return {
    promptTokens: usage.prompt_tokens,
    completionTokens: usage.completion_tokens,
    reasoningTokens: usage.completion_tokens_details?.reasoning_tokens ?? undefined,
    cachedTokens: usage.prompt_tokens_details?.cached_tokens ?? undefined,
  };
}

/** An endpoint decision model: the v1 spec plus what only it offers, exposed as capabilities by its registry line. */
export interface OpenAIDecisionModel extends DecisionModel {
  /** This model's alias when the provider rejected `temperature` and it now runs on the provider default. */
  providerDefaultTemperature(): readonly string[];
  /** Whether this exact call would be answered from the response cache without sending anything (`--dry-run`). */
  wouldHitCache(request: DecisionRequest): boolean;
}

/** The protocol's sampling settings (stale-retrieval.md §6.2); the registry line records them. */
export const OPENAI_DECISION_DEFAULTS = { temperature: 0.7, maxTokens: 2000, timeoutMs: 60_000 } as const;

/**
 * Creates a decision model that talks to an OpenAI-compatible chat-completions endpoint.
 *
 * @example
 * const model = createOpenAIDecisionModel({ model: 'gpt-5-nano', baseURL: process.env.OPENAI_BASE_URL!, apiKey });
 * const reply = await model.decide({ messages, trial: 0, sample: 'grid/<unit id>' });
 */
export function createOpenAIDecisionModel(settings: OpenAIDecisionModelSettings): OpenAIDecisionModel {
  const temperature = settings.temperature ?? OPENAI_DECISION_DEFAULTS.temperature;
  const maxTokens = settings.maxTokens ?? OPENAI_DECISION_DEFAULTS.maxTokens;
  const retry = settings.retry ?? DEFAULT_RETRY_POLICY;
  const sleep = settings.sleep ?? abortableSleep;
  const timeoutMs = settings.timeoutMs ?? OPENAI_DECISION_DEFAULTS.timeoutMs;
  const redact = settings.redact ?? createRedactor([settings.apiKey]);
  const client = new OpenAI({ baseURL: settings.baseURL, apiKey: settings.apiKey, maxRetries: 0, timeout: timeoutMs });
  const tokenCap: SamplingParameters = usesCompletionTokenCap(settings.model)
    ? { max_completion_tokens: maxTokens }
    : { max_tokens: maxTokens };
  const requested: SamplingParameters = { temperature, ...tokenCap };
  let temperatureRejected = false;

  function bodyOf(messages: DecisionRequest['messages'], withTemperature: boolean) {
    const sent: SamplingParameters = withTemperature ? requested : { ...tokenCap };
    return {
      sent,
      body: { model: settings.model, messages: messages.map((m) => ({ role: m.role, content: m.content })), ...sent },
    };
  }

  function keyOf(body: unknown, request: Pick<DecisionRequest, 'trial' | 'sample'>) {
    return settings.cache?.keyOf({
      baseURL: settings.baseURL,
      model: settings.model,
      sample: request.sample,
      body: JSON.stringify(body),
      trial: request.trial,
    });
  }

  // A temperature rejection is remembered in the cache too, so a resumed run sends (and looks up) the body
  // that the provider accepted last time instead of paying for a rejected call first. It is per endpoint and
  // model, not per sample: its key is computed once.
  let marker: ReturnType<typeof keyOf>;
  const rejectionMarker = () =>
    (marker ??= keyOf({ marker: 'temperature-rejected' }, { trial: -1, sample: '(temperature-rejection marker)' }));

  type Key = ReturnType<typeof keyOf>;
  /** One call's cache keys by body variant (with / without temperature): each body is serialized and hashed once. */
  function callKeys(request: DecisionRequest): (withTemperature: boolean) => Key {
    const keys = new Map<boolean, Key>();
    return (withTemperature) => {
      if (!keys.has(withTemperature))
        keys.set(withTemperature, keyOf(bodyOf(request.messages, withTemperature).body, request));
      return keys.get(withTemperature);
    };
  }

  function lookup(
    request: DecisionRequest,
    keyFor = callKeys(request),
  ): { key: string; reply: CachedReply | undefined } | undefined {
    if (!settings.cache) return undefined;
    if (!temperatureRejected && settings.cache.get(rejectionMarker()!.key)) temperatureRejected = true;
    const { key } = keyFor(!temperatureRejected)!;
    return { key, reply: settings.cache.get<CachedReply>(key)?.value };
  }

  /** The pool's endpoint for one attempt (null without a pool); a stop while waiting cancels the call. */
  async function leaseFor(signal: AbortSignal | undefined, attempt: number): Promise<EndpointLease | null> {
    if (!settings.pool) return null;
    try {
      return await settings.pool.acquire(settings.model, signal);
    } catch (error) {
      throw new ProviderError((error as Error).message, undefined, attempt - 1, { cause: error });
    }
  }

  /** The endpoint's call slot for one attempt (null without limits); a stop while waiting cancels the call. */
  async function permitFor(lease: EndpointLease | null, signal: AbortSignal | undefined, attempt: number) {
    if (!settings.limits) return null;
    try {
      return await settings.limits.of(lease?.baseURL ?? settings.baseURL, settings.model).acquire(signal);
    } catch (error) {
      throw new ProviderError((error as Error).message, undefined, attempt - 1, { cause: error });
    }
  }

  /** The budget's reservation for one attempt (undefined without a budget); a stop while waiting cancels the call. */
  async function reserveFor(
    request: DecisionRequest,
    messages: readonly { role: string; content: string }[],
    attempt: number,
  ) {
    if (!settings.spend) return undefined;
    let reservation: Awaited<ReturnType<SpendGate['before']>>;
    try {
      reservation = await settings.spend.before(settings.model, messages, maxTokens, request.signal);
    } catch (error) {
      if (!request.signal?.aborted) throw error;
      throw new ProviderError('cancelled before sending', undefined, attempt - 1, { cause: error });
    }
    // Granted after a wait, as the run stopped: nothing was sent, so nothing is counted.
    if (request.signal?.aborted) {
      settings.spend.after(reservation, { billed: false });
      throw new ProviderError('cancelled before sending', undefined, attempt - 1);
    }
    return reservation;
  }

  /** The reply of a completion as a synchronous call records it, cached when it is a valid, non-empty reply. */
  function answered(
    request: DecisionRequest,
    data: ChatCompletion,
    sent: SamplingParameters,
    key: Key,
    call: Pick<DecisionResponse, 'attempts' | 'headers' | 'notes'>,
  ): DecisionResponse {
    const choice = data.choices[0];
    const reply: CachedReply = {
      text: choice?.message?.content ?? '',
      finishReason: choice ? (choice.finish_reason ?? null) : 'no-choices',
      responseModel: data.model ?? null,
      systemFingerprint: data.system_fingerprint ?? null,
      usage: usageOf(data),
      sent,
    };
    if (reply.text.trim() !== '' && reply.finishReason !== 'content_filter' && key) {
      settings.cache!.put(key.key, key.components, reply);
      if (temperatureRejected)
        settings.cache!.put(rejectionMarker()!.key, rejectionMarker()!.components, { rejected: true });
    }
    return {
      ...reply,
      sample: request.sample,
      ...(key ? { cacheKey: key.key } : {}),
      cached: false,
      requested,
      ...call,
    };
  }

  /**
   * `--batch`: the call as one request of a Batch API job. Its `custom_id` is the draw's identity (model, sample,
   * trial and exact body), so a resumed run finds the job that holds it; the budget reserves and settles it at the
   * prices of the spend gate (batch prices under `--batch`). An error line is this call's error (one attempt).
   */
  async function decideInBatch(request: DecisionRequest, keyFor: (withTemperature: boolean) => Key) {
    const withTemperature = !temperatureRejected;
    const { sent, body } = bodyOf(request.messages, withTemperature);
    if (request.signal?.aborted) throw new ProviderError('cancelled before sending', undefined, 0);
    // A reservation may wait on calls in jobs: at a follow-up's round barrier it counts as waiting, like the call.
    const reservation = await settings.batch!.waiting(() => reserveFor(request, body.messages, 1));
    const customId = sha256(
      JSON.stringify({ model: settings.model, sample: request.sample, trial: request.trial, body }),
    );
    let answer: Awaited<ReturnType<BatchTransport['send']>>;
    // A signal of this call only: the run's signal keeps one listener however many calls wait on their jobs.
    const scoped = scopedSignal(request.signal);
    try {
      answer = await settings.batch!.send(customId, body, scoped.signal).finally(scoped.release);
    } catch (error) {
      // The run stopped while the job ran: it may still bill (a resume collects it), so the reservation stays spent.
      if (reservation) settings.spend!.after(reservation, { billed: 'unknown' });
      throw new ProviderError('cancelled', undefined, 1, { cause: error });
    }
    if (!answer.ok) {
      if (reservation) settings.spend!.after(reservation, { billed: false });
      throw new ProviderError(redact(answer.message), answer.status, 1);
    }
    const usage = usageOf(answer.completion);
    if (reservation) settings.spend!.after(reservation, { billed: true, usage, headers: {} });
    const headers: Record<string, string> = answer.requestId ? { 'x-request-id': answer.requestId } : {};
    const reply = answered(request, answer.completion, sent, keyFor(withTemperature), {
      attempts: 1,
      headers,
      notes: [],
    });
    return { ...reply, batch: answer.batchId };
  }

  async function decide(request: DecisionRequest): Promise<DecisionResponse> {
    const keyFor = callKeys(request);
    const found = lookup(request, keyFor);
    const hit = found?.reply;
    const drawn = { sample: request.sample, ...(found ? { cacheKey: found.key } : {}) };
    if (hit)
      return {
        ...hit,
        ...drawn,
        cached: true,
        attempts: 0,
        requested,
        headers: {},
        notes: hit.sent.temperature === undefined ? ['temperature dropped: provider rejected it'] : [],
      };
    if (settings.batch) return decideInBatch(request, keyFor);
    const notes: string[] = [];
    for (let attempt = 1; ; attempt += 1) {
      const withTemperature = !temperatureRejected;
      const { sent, body } = bodyOf(request.messages, withTemperature);
      if (request.signal?.aborted) throw new ProviderError('cancelled before sending', undefined, attempt - 1);
      // Waits while calls in flight hold the money this attempt needs; throws BudgetExhaustedError, before anything
      // is sent, when it cannot be covered.
      const reservation = await reserveFor(request, body.messages, attempt);
      let lease: EndpointLease | null = null;
      let permit: CallPermit | null;
      try {
        lease = await leaseFor(request.signal, attempt);
        permit = await permitFor(lease, request.signal, attempt);
      } catch (error) {
        lease?.release({ kind: 'failed' });
        if (reservation) settings.spend!.after(reservation, { billed: false });
        throw error;
      }
      let settled = false;
      const settle = (outcome: Parameters<SpendGate['after']>[1]) => {
        if (reservation && !settled) settings.spend!.after(reservation, outcome);
        settled = true;
      };
      // The SDK's abort listener goes on a signal of this attempt only, not on the run's (pipeline/models/call-signal.ts).
      const scoped = scopedSignal(request.signal);
      const ended = settings.attempts?.started();
      try {
        const { data, response } = await (lease?.client ?? client).chat.completions
          .create(body, { signal: scoped.signal })
          .withResponse()
          .finally(scoped.release);
        lease?.release({ kind: 'ok' });
        permit?.release({ kind: 'ok', headers: response.headers, tokens: data.usage?.total_tokens });
        ended?.({ kind: 'ok' });
        const headers = keptHeaders(response.headers);
        settle({ billed: true, usage: usageOf(data), headers });
        if (temperatureRejected) notes.push('temperature dropped: provider rejected it');
        return answered(request, data, sent, keyFor(withTemperature), { attempts: attempt, headers, notes });
      } catch (error) {
        if (error instanceof StorageError) throw error; // the cache's disk, not the endpoint: the run stops on it
        // An HTTP error or a refused connection produced no answer to bill; a timeout or an abort mid-answer may have.
        const answered = error instanceof APIError && error.status !== undefined;
        const outcome =
          error instanceof APIError && error.status === 429
            ? ({ kind: 'rate-limited', headers: error.headers } as const)
            : ({ kind: 'failed' } as const);
        lease?.release(outcome);
        permit?.release(outcome);
        settle(
          answered ||
            (error instanceof APIConnectionError &&
              !(error instanceof APIConnectionTimeoutError) &&
              !request.signal?.aborted)
            ? { billed: false }
            : { billed: 'unknown' },
        );
        if (request.signal?.aborted) {
          ended?.({ kind: 'cancelled' });
          throw new ProviderError('cancelled', undefined, attempt, { cause: error });
        }
        const status = error instanceof APIError ? error.status : undefined;
        // Every error text is redacted (a 401 body can echo the key) and names the endpoint for transport failures.
        const message = redact(
          error instanceof APIConnectionError
            ? `${lease?.baseURL ?? settings.baseURL}: ${describeFailure(error, timeoutMs)}`
            : error instanceof Error
              ? error.message
              : String(error),
        );
        ended?.(attemptResultOf(error, message));
        if (!temperatureRejected && isTemperatureRejection(message)) {
          temperatureRejected = true;
          notes.push(`provider rejected temperature=${temperature}: ${message.slice(0, 200)}`);
          // Resent at once without temperature, as long as the ladder has attempts left.
          if (attempt >= retry.maxAttempts)
            throw new ProviderError(`${message} (gave up after ${attempt} attempts)`, status, attempt, {
              cause: error,
            });
          continue;
        }
        // The shared ladder (pipeline/core/retry-policy.ts): 429, 5xx and timeouts back off; a dead endpoint gets one quick
        // retry, then the unit fails and the circuit breaker judges the run; anything else is final.
        const failure = classifyOpenAIFailure(error);
        const delay = nextAttemptDelay(retry, attempt, failure);
        if (failure.kind === 'final') throw new ProviderError(message, status, attempt, { cause: error });
        if (delay === null)
          throw new ProviderError(`${message} (gave up after ${attempt} attempts)`, status, attempt, { cause: error });
        // In a pool a 429 cools that endpoint down; the next attempt waits in the pool for one with room instead.
        const pooled429 = lease !== null && status === 429;
        if (!isTemperatureRejection(message) && !pooled429) await sleep(delay, request.signal);
      }
    }
  }

  return {
    specificationVersion: 'v1',
    description: {
      id: settings.model,
      label: settings.model,
      kind: 'openai-compatible',
      simulated: false,
      baseURL: settings.baseURL,
      settings: { temperature, maxTokens, tokenCapParameter: Object.keys(tokenCap)[0], timeoutMs, retry },
    },
    decide,
    providerDefaultTemperature: () => (temperatureRejected ? [settings.model] : []),
    wouldHitCache: (request: DecisionRequest) => lookup(request)?.reply !== undefined,
  };
}
