// The one retry ladder for provider calls (decisions, embeddings, extraction): bounded attempts, exponential backoff, Retry-After honoured.

/** Retry settings. Defaults follow the reference main grid (stale-retrieval.md §6.2). */
export interface RetryPolicy {
  /** Attempts per decision, including the first (reference: 6). */
  maxAttempts: number;
  /** Backoff before attempt n+1 is min(maxDelayMs, baseDelayMs · 2^n) + U(0, jitterMs). */
  baseDelayMs: number;
  maxDelayMs: number;
  jitterMs: number;
}

export const DEFAULT_RETRY_POLICY: RetryPolicy = { maxAttempts: 6, baseDelayMs: 4000, maxDelayMs: 60_000, jitterMs: 2000 };

/** [C]: a provider error naming both `temperature` and `support` means "retry without temperature". */
export function isTemperatureRejection(message: string): boolean {
  const lower = message.toLowerCase();
  return lower.includes('temperature') && lower.includes('support');
}

/** Delay before the next attempt: the server's `retry-after-ms` / `retry-after` when given (capped), else backoff. */
export function retryDelayMs(policy: RetryPolicy, attempt: number, headers: Headers | undefined): number {
  const afterMs = Number(headers?.get?.('retry-after-ms'));
  if (headers?.get?.('retry-after-ms') != null && Number.isFinite(afterMs)) return Math.min(policy.maxDelayMs, Math.max(0, afterMs));
  const after = headers?.get?.('retry-after');
  if (after != null) {
    const seconds = Number(after);
    const ms = Number.isFinite(seconds) ? seconds * 1000 : Date.parse(after) - Date.now();
    if (Number.isFinite(ms)) return Math.min(policy.maxDelayMs, Math.max(0, ms));
  }
  return Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** attempt) + Math.random() * policy.jitterMs;
}
