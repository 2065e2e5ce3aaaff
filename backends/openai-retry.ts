// How an `openai` SDK error counts on the shared retry ladder (pipeline/core/retry-policy.ts): one classification for
// decisions, embeddings and extraction, so every provider call retries the same way.
import { APIConnectionError, APIConnectionTimeoutError, APIError } from 'openai';
import type { AttemptResult } from '#core/retry-policy.js';
import type { AttemptFailure } from '#core/retry-policy.js';

/**
 * A timeout, a 429 or a 5xx is transient (the full ladder, Retry-After honoured); a refused connection, DNS or
 * TLS failure is unreachable (one quick retry); anything else (400, 401, 404, ...) is final.
 *
 * @example withRetries(() => client.embeddings.create(body), { policy, classify: classifyOpenAIFailure })
 */
export function classifyOpenAIFailure(error: unknown): AttemptFailure {
  if (error instanceof APIConnectionTimeoutError) return { kind: 'transient' };
  if (error instanceof APIConnectionError) return { kind: 'unreachable' };
  if (error instanceof APIError && (error.status === 429 || (error.status !== undefined && error.status >= 500)))
    return { kind: 'transient', headers: error.headers };
  return { kind: 'final' };
}

/**
 * How a failed attempt counts for the run's circuit breaker: a 429 is a busy endpoint and a refusal (400, 401, ...) an
 * endpoint that answered, so neither counts as failing; a timeout, a 5xx or a transport error does (`message` says it).
 *
 * @example ended(attemptResultOf(error, redactedMessage));
 */
export function attemptResultOf(error: unknown, message: string): AttemptResult {
  if (error instanceof APIError && error.status === 429) return { kind: 'busy' };
  if (classifyOpenAIFailure(error).kind === 'final') return { kind: 'refused' };
  return { kind: 'failed', error: message };
}
