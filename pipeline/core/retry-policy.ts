// The one retry ladder for provider calls (decisions, embeddings, extraction): bounded attempts, exponential backoff, Retry-After honoured.
import { z } from 'zod';

/** Retry settings. Defaults follow the reference main grid (stale-retrieval.md §6.2). */
export interface RetryPolicy {
  /** Attempts per call, including the first (reference: 6). */
  maxAttempts: number;
  /** Backoff before attempt n+1 is min(maxDelayMs, baseDelayMs · 2^n) + U(0, jitterMs). */
  baseDelayMs: number;
  /** Cap of one backoff, and of a server's Retry-After. */
  maxDelayMs: number;
  /** Random spread added to every backoff. */
  jitterMs: number;
}

export const DEFAULT_RETRY_POLICY: RetryPolicy = {
  maxAttempts: 6,
  baseDelayMs: 4000,
  maxDelayMs: 60_000,
  jitterMs: 2000,
};

/** A retry policy as a registry line's argument (recorded in the manifest). */
export const retryPolicySchema = z
  .object({
    maxAttempts: z.number().int().min(1).max(100),
    baseDelayMs: z.number().min(0),
    maxDelayMs: z.number().min(0),
    jitterMs: z.number().min(0),
  })
  .strict();

/**
 * What went wrong with one attempt, as the caller's SDK adapter classifies it: `unreachable` = nothing answered
 * (refused, DNS, TLS); `transient` = a timeout, 429 or 5xx (with the response headers, for Retry-After);
 * `final` = anything else (a 400, a rejected key): never retried.
 */
export type AttemptFailure =
  | { kind: 'unreachable' }
  | { kind: 'transient'; headers?: Headers | undefined }
  | { kind: 'final' };

/** [C]: a provider error naming both `temperature` and `support` means "retry without temperature". */
export function isTemperatureRejection(message: string): boolean {
  const lower = message.toLowerCase();
  return lower.includes('temperature') && lower.includes('support');
}

/** Delay before the next attempt: the server's `retry-after-ms` / `retry-after` when given (capped), else backoff. */
export function retryDelayMs(policy: RetryPolicy, attempt: number, headers: Headers | undefined): number {
  const afterMs = Number(headers?.get?.('retry-after-ms'));
  if (headers?.get?.('retry-after-ms') != null && Number.isFinite(afterMs))
    return Math.min(policy.maxDelayMs, Math.max(0, afterMs));
  const after = headers?.get?.('retry-after');
  if (after != null) {
    const seconds = Number(after);
    const ms = Number.isFinite(seconds) ? seconds * 1000 : Date.parse(after) - Date.now();
    if (Number.isFinite(ms)) return Math.min(policy.maxDelayMs, Math.max(0, ms));
  }
  return Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** attempt) + Math.random() * policy.jitterMs;
}

/**
 * The ladder's verdict after attempt `attempt` (1-based) failed: the delay before the next one, or null to give up.
 * A dead endpoint is not a rate limit: one quick retry (at most 1 s later), then the caller fails and the run's
 * circuit breaker judges, instead of minutes of backoff per call against nothing.
 */
export function nextAttemptDelay(policy: RetryPolicy, attempt: number, failure: AttemptFailure): number | null {
  if (failure.kind === 'final') return null;
  if (failure.kind === 'unreachable')
    return attempt >= Math.min(2, policy.maxAttempts) ? null : Math.min(1000, policy.baseDelayMs);
  return attempt >= policy.maxAttempts ? null : retryDelayMs(policy, attempt, failure.headers);
}

/** Waits `ms`, or less when `signal` aborts (Ctrl+C must not wait out a 60 s backoff). */
export function abortableSleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    }
    signal?.addEventListener('abort', done, { once: true });
  });
}

/** A call that failed on every attempt the ladder allowed; `cause` is the last attempt's error. */
export class RetriesExhaustedError extends Error {
  readonly attempts: number;
  constructor(attempts: number, cause: unknown) {
    super(`gave up after ${attempts} attempt(s): ${cause instanceof Error ? cause.message : String(cause)}`, { cause });
    this.name = 'RetriesExhaustedError';
    this.attempts = attempts;
  }
}

/**
 * Runs `call` until it succeeds or the ladder gives up; then throws `RetriesExhaustedError` (attempts, last error
 * as `cause`). An aborted `signal` stops before the next attempt.
 *
 * @example
 * const vectors = await withRetries(() => client.embeddings.create(body), { policy, classify: classifyOpenAIFailure });
 */
export async function withRetries<T>(
  call: (attempt: number) => Promise<T>,
  options: {
    policy: RetryPolicy;
    classify(error: unknown): AttemptFailure;
    sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
    signal?: AbortSignal;
  },
): Promise<T> {
  const sleep = options.sleep ?? abortableSleep;
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await call(attempt);
    } catch (error) {
      const delay = options.signal?.aborted ? null : nextAttemptDelay(options.policy, attempt, options.classify(error));
      if (delay === null) throw new RetriesExhaustedError(attempt, error);
      await sleep(delay, options.signal);
    }
  }
}

/**
 * How one provider attempt ended: `busy` (a 429: the endpoint is up), `refused` (a 4xx: it answered) and `cancelled`
 * (a stop) count neither way.
 */
export type AttemptResult =
  | { kind: 'ok' }
  | { kind: 'failed'; error: string }
  | { kind: 'busy' }
  | { kind: 'refused' }
  | { kind: 'cancelled' };
