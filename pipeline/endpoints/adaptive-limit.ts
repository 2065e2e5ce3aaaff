// The adaptive call limit of one endpoint (base URL + model): an AIMD concurrency window under `-j`, paced by what
// the endpoint's rate-limit headers say is left, paused by Retry-After. Units wait here for a call slot.
import { parseRateLimitHeaders, type LimitState } from './rate-limit-headers.js';

/** How a call sent under a permit ended; the headers are the response's (a 429's too). */
export type CallOutcome =
  | { kind: 'ok'; headers?: Headers | undefined; tokens?: number | undefined }
  | { kind: 'rate-limited'; headers?: Headers | undefined }
  | { kind: 'failed' };

/** One call's slot; `release` exactly once (later calls are ignored). */
export interface CallPermit {
  release(outcome: CallOutcome): void;
}

/** What the limit did so far (tests and the bench read it). */
export interface CallLimitState {
  /** The concurrency window now (calls allowed in flight), at most `max`. */
  window: number;
  /** Calls in flight now. */
  inFlight: number;
  /** Calls sent under this limit. */
  sent: number;
  /** Multiplicative decreases so far (one per burst of 429s). */
  decreases: number;
  /** 429s heard. */
  rateLimited: number;
  /** The most calls in flight at once. */
  maxInFlight: number;
}

/** The call limit of one endpoint. */
export interface CallLimit {
  /** Waits for a slot; rejects when `signal` aborts first. */
  acquire(signal?: AbortSignal): Promise<CallPermit>;
  state(): CallLimitState;
}

/** Settings of `createAdaptiveLimit`. */
export interface AdaptiveLimitSettings {
  /** `-j`: never more calls in flight than this. */
  max: number;
  /** The starting window (default min(max, 4)); it doubles per window of successes until the first 429. */
  initial?: number;
  /** The model alias sent (LiteLLM's per-model key headers carry it in their name). */
  model?: string;
  /** Injected clock, ms. */
  now?: () => number;
  /** Injected timer: calls `wake` after `ms` (the limit keeps one at a time). */
  schedule?: (ms: number, wake: () => void) => void;
}

/**
 * What the headers leave of one limit. With its size known (`limit`), every answered call holds its amount until its
 * own reset, counted from its answer (`held`), and what is free is the limit less those and the calls in flight; else
 * `budget` units may still be sent before `resetAt` (null = unknown).
 */
interface Allowance {
  limit: number | undefined;
  held: { until: number; amount: number }[];
  budget: number | null;
  resetAt: number;
}

/** Without a reset header, a spent allowance is probed again this much later. */
const PROBE_MS = 1000;
/** Weight of the newest call in the running mean and deviation of tokens per call. */
const TOKEN_MEAN_WEIGHT = 0.2;

/**
 * Tokens per call, reckoned high: the running mean plus twice the running mean deviation, so that a call larger than
 * the mean rarely overdraws a token limit. `add` takes an answered call's tokens and returns the new reckoning.
 */
function runningCallTokens(): { add(tokens: number): number } {
  let mean: number | null = null;
  let deviation = 0;
  return {
    add(tokens) {
      if (mean === null) mean = tokens;
      else {
        deviation += TOKEN_MEAN_WEIGHT * (Math.abs(tokens - mean) - deviation);
        mean += TOKEN_MEAN_WEIGHT * (tokens - mean);
      }
      return mean + 2 * deviation;
    },
  };
}

/**
 * Creates the adaptive limit of one endpoint. The window starts at `initial` and doubles per window of successes
 * (slow start) until the first 429; after it, it grows by one per window of successes (additive increase) and halves
 * on a 429 (multiplicative decrease), once per burst: a 429 to a call sent before the last decrease does not
 * decrease again. Independently of the window, a call waits while the last response's `x-ratelimit-remaining-*`
 * (less the calls still in flight; tokens at the running mean of tokens per call) is spent, until its reset; and
 * every call waits out a 429's Retry-After.
 *
 * @example
 * const limit = createAdaptiveLimit({ max: 64 });
 * const permit = await limit.acquire(signal); // … send …; permit.release({ kind: 'ok', headers, tokens: 512 })
 */
export function createAdaptiveLimit(settings: AdaptiveLimitSettings): CallLimit {
  const max = Math.max(1, Math.floor(settings.max));
  const now = settings.now ?? Date.now;
  const schedule =
    settings.schedule ??
    ((ms: number, wake: () => void) => {
      setTimeout(wake, ms).unref?.();
    });
  let window = Math.min(max, Math.max(1, settings.initial ?? 4));
  let slowStartUntil = max; // ssthresh
  let inFlight = 0;
  let sent = 0;
  let recoverAfter = 0; // a 429 to a call numbered at most this belongs to a burst already answered
  let pausedUntil = 0;
  const callTokens = runningCallTokens();
  /** What a call about to be sent is reckoned to cost in tokens; null before any answer said. */
  let tokensPerCall: number | null = null;
  let wakeAt: number | null = null;
  const stats = { decreases: 0, rateLimited: 0, maxInFlight: 0 };
  const requests: Allowance = { limit: undefined, held: [], budget: null, resetAt: 0 };
  const tokens: Allowance = { limit: undefined, held: [], budget: null, resetAt: 0 };
  const waiting: { grant: () => void; signal: AbortSignal | undefined; cancel: (error: Error) => void }[] = [];

  /** When a call of `perCall` may go as far as this limit goes: now (0), a time, or never before a reply (Infinity). */
  function freeAt(allowance: Allowance, perCall: number): number {
    const t = now();
    if (allowance.limit !== undefined && allowance.held.length > 0) {
      allowance.held = allowance.held.filter((hold) => hold.until > t);
      let free = allowance.limit - inFlight * perCall - allowance.held.reduce((sum, hold) => sum + hold.amount, 0);
      if (free >= perCall) return 0;
      for (const hold of [...allowance.held].sort((a, b) => a.until - b.until)) {
        free += hold.amount;
        if (free >= perCall) return hold.until;
      }
      return Number.POSITIVE_INFINITY;
    }
    if (allowance.budget === null || allowance.budget >= perCall) return 0;
    if (t < allowance.resetAt) return allowance.resetAt;
    // Past its reset a spent allowance is back to its full size, less what is in flight (unknown without a limit).
    allowance.budget = allowance.limit === undefined ? null : allowance.limit - inFlight * perCall;
    return 0;
  }

  /** The time a send has to wait for, 0 when it may go now, Infinity when only a reply can open the way. */
  function blockedUntil(): number {
    const times = [pausedUntil, freeAt(requests, 1), tokensPerCall === null ? 0 : freeAt(tokens, tokensPerCall)];
    const until = Math.max(...times);
    if (until > now()) return until;
    return inFlight >= Math.floor(window) ? Number.POSITIVE_INFINITY : 0;
  }

  function pump(): void {
    while (waiting.length > 0) {
      const until = blockedUntil();
      if (until === 0) {
        waiting.shift()!.grant();
        continue;
      }
      if (until !== Number.POSITIVE_INFINITY && (wakeAt === null || until < wakeAt)) {
        wakeAt = until;
        schedule(until - now(), () => {
          if (wakeAt === until) wakeAt = null;
          pump();
        });
      }
      return;
    }
  }

  /** Takes the headers' word for what is left (less the calls in flight, which it has not counted yet). */
  function heard(
    headers: Headers | undefined,
    spent: { requests: number; tokens: number },
  ): ReturnType<typeof parseRateLimitHeaders> {
    const said = parseRateLimitHeaders(headers, now(), settings.model);
    const take = (allowance: Allowance, state: LimitState, perCall: number, amount: number) => {
      if (state.limit !== undefined) allowance.limit = state.limit;
      if (amount > 0 && state.resetMs !== undefined) allowance.held.push({ until: now() + state.resetMs, amount });
      if (state.remaining === undefined) return;
      allowance.budget = state.remaining - inFlight * perCall;
      allowance.resetAt = now() + (state.resetMs ?? PROBE_MS);
    };
    take(requests, said.requests, 1, spent.requests);
    take(tokens, said.tokens, tokensPerCall ?? 0, spent.tokens);
    return said;
  }

  function permit(): CallPermit {
    sent += 1;
    inFlight += 1;
    stats.maxInFlight = Math.max(stats.maxInFlight, inFlight);
    if (requests.budget !== null) requests.budget -= 1;
    if (tokens.budget !== null && tokensPerCall !== null) tokens.budget -= tokensPerCall;
    const number = sent;
    let released = false;
    return {
      release(outcome) {
        if (released) return;
        released = true;
        inFlight -= 1;
        if (outcome.kind === 'ok') {
          if (outcome.tokens !== undefined && outcome.tokens > 0) tokensPerCall = callTokens.add(outcome.tokens);
          heard(outcome.headers, { requests: 1, tokens: outcome.tokens ?? tokensPerCall ?? 0 });
          window = Math.min(max, window < slowStartUntil ? window + 1 : window + 1 / window);
        } else if (outcome.kind === 'rate-limited') {
          stats.rateLimited += 1;
          const said = heard(outcome.headers, { requests: 0, tokens: 0 });
          const wait =
            said.retryAfterMs ??
            Math.max(
              said.requests.remaining === 0 ? (said.requests.resetMs ?? 0) : 0,
              said.tokens.remaining === 0 ? (said.tokens.resetMs ?? 0) : 0,
            );
          pausedUntil = Math.max(pausedUntil, now() + wait);
          if (number > recoverAfter) {
            window = Math.max(1, window / 2);
            slowStartUntil = window;
            recoverAfter = sent;
            stats.decreases += 1;
          }
        }
        pump();
      },
    };
  }

  const watched = new WeakSet<AbortSignal>();
  function cancelWaiters(signal: AbortSignal): void {
    for (const waiter of waiting.filter((w) => w.signal === signal)) {
      waiting.splice(waiting.indexOf(waiter), 1);
      waiter.cancel(new Error('cancelled while waiting for a call slot'));
    }
  }

  return {
    acquire(signal) {
      return new Promise<CallPermit>((resolve, reject) => {
        if (signal?.aborted) return reject(new Error('cancelled while waiting for a call slot'));
        // One abort listener per signal (a run's units share one), not one per waiting call.
        if (signal && !watched.has(signal)) {
          watched.add(signal);
          signal.addEventListener('abort', () => cancelWaiters(signal), { once: true });
        }
        waiting.push({ signal, grant: () => resolve(permit()), cancel: reject });
        pump();
      });
    },
    state: () => ({ window, inFlight, sent, ...stats }),
  };
}

/** The call limits of a run: one per endpoint and model, created on first use. */
export interface CallLimits {
  /** The limit of `model` at `baseURL`. */
  of(baseURL: string, model: string): CallLimit;
}

/**
 * The run's call limits: adaptive under `max` (`-j`), one per base URL and model.
 *
 * @example const limits = createCallLimits({ max: spec.concurrency }); await limits.of(baseURL, model).acquire(signal);
 */
export function createCallLimits(settings: Omit<AdaptiveLimitSettings, 'model'>): CallLimits {
  const limits = new Map<string, CallLimit>();
  return {
    of(baseURL, model) {
      const key = `${baseURL}\n${model}`;
      const known = limits.get(key);
      if (known) return known;
      const limit = createAdaptiveLimit({ ...settings, model });
      limits.set(key, limit);
      return limit;
    },
  };
}
