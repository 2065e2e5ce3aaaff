// What a response says about the endpoint's rate limit: OpenAI's `x-ratelimit-*`, LiteLLM's equivalents, Retry-After.

/** One limit (requests or tokens) as a response states it; a field is undefined when the response does not say. */
export interface LimitState {
  /** The limit's full size (`x-ratelimit-limit-*`). */
  limit?: number;
  /** What is left of it (`x-ratelimit-remaining-*`). */
  remaining?: number;
  /** Time until it is back to its full size (`x-ratelimit-reset-*`), ms from the response. */
  resetMs?: number;
}

/** The rate-limit state one response reports. */
export interface RateLimitHeaders {
  requests: LimitState;
  tokens: LimitState;
  /** `retry-after-ms`, else `retry-after` (seconds or an HTTP date), ms from the response. */
  retryAfterMs?: number;
}

const UNIT_MS: Record<string, number> = { h: 3_600_000, m: 60_000, s: 1000, ms: 1, us: 0.001, µs: 0.001, ns: 1e-6 };

/**
 * A reset header as ms from `now`: OpenAI's Go durations (`1s`, `6m0s`, `12ms`, `1h2m3.5s`); a bare number of seconds
 * (LiteLLM), or epoch seconds when it is past 10⁹; an HTTP or ISO date. Undefined when unreadable.
 */
export function parseResetMs(value: string | null | undefined, now: number): number | undefined {
  const text = value?.trim();
  if (!text) return undefined;
  if (/^\d+(\.\d+)?$/.test(text)) {
    const seconds = Number(text);
    return seconds > 1e9 ? Math.max(0, seconds * 1000 - now) : seconds * 1000;
  }
  const parts = [...text.matchAll(/(\d+(?:\.\d+)?)(ms|us|µs|ns|h|m|s)/g)];
  if (parts.length > 0 && parts.map((part) => part[0]).join('') === text)
    return parts.reduce((sum, [, amount, unit]) => sum + Number(amount) * UNIT_MS[unit!]!, 0);
  const date = Date.parse(text);
  return Number.isFinite(date) ? Math.max(0, date - now) : undefined;
}

const count = (value: string | null | undefined): number | undefined => {
  if (value == null || value.trim() === '') return undefined;
  const parsed = Number(value);
  // Azure answers -1 for "no such limit".
  return Number.isFinite(parsed) && parsed >= 0 ? parsed : undefined;
};

/** The first header present among `names`. */
const first = (headers: Headers, names: readonly string[]): string | null => {
  for (const name of names) {
    const value = headers.get(name);
    if (value !== null) return value;
  }
  return null;
};

function limitOf(headers: Headers, kind: 'requests' | 'tokens', model: string | undefined, now: number): LimitState {
  // OpenAI's names, a LiteLLM proxy's own (the same), the provider's behind LiteLLM (`llm_provider-` prefixed), and a
  // LiteLLM key's per-model remainder (`x-litellm-key-remaining-<kind>-<model>`).
  const names = (field: string) => [`x-ratelimit-${field}-${kind}`, `llm_provider-x-ratelimit-${field}-${kind}`];
  const keyRemaining = model ? [`x-litellm-key-remaining-${kind}-${model}`] : [];
  const state: LimitState = {};
  const limit = count(first(headers, names('limit')));
  const remaining = count(first(headers, [...names('remaining'), ...keyRemaining]));
  const resetMs = parseResetMs(first(headers, names('reset')), now);
  if (limit !== undefined) state.limit = limit;
  if (remaining !== undefined) state.remaining = remaining;
  if (resetMs !== undefined) state.resetMs = resetMs;
  return state;
}

/**
 * Reads a response's rate-limit headers (`model`: the alias sent, for LiteLLM's per-model key headers).
 *
 * @example
 * parseRateLimitHeaders(new Headers({ 'x-ratelimit-remaining-requests': '0', 'x-ratelimit-reset-requests': '1s' }), Date.now())
 * // { requests: { remaining: 0, resetMs: 1000 }, tokens: {} }
 */
export function parseRateLimitHeaders(headers: Headers | undefined, now: number, model?: string): RateLimitHeaders {
  const result: RateLimitHeaders = { requests: {}, tokens: {} };
  if (!headers?.get) return result;
  result.requests = limitOf(headers, 'requests', model, now);
  result.tokens = limitOf(headers, 'tokens', model, now);
  const afterMs = count(headers.get('retry-after-ms'));
  const after = afterMs ?? parseResetMs(headers.get('retry-after'), now);
  if (after !== undefined) result.retryAfterMs = after;
  return result;
}
