// The endpoint pool: hands each decision request to an endpoint with room, within every endpoint's concurrency limit,
// by weight; an endpoint that answers 429 cools down (Retry-After honoured) while the others keep serving.
import OpenAI from 'openai';
import { retryDelayMs, type RetryPolicy } from '#core/retry-policy.js';
import type { EndpointCounts } from '../run-log/run-log.js';
import type { PoolEndpoint } from './endpoints-file.js';

/** How a request sent through a lease ended. */
export type LeaseOutcome =
  | { kind: 'ok' }
  | { kind: 'rate-limited'; headers?: Headers | undefined }
  | { kind: 'failed' };

/** One request's hold on one endpoint; `release` exactly once. */
export interface EndpointLease {
  /** The endpoint's client (its base URL and key; the SDK's own retries off). */
  client: OpenAI;
  /** The endpoint's name, for error texts. */
  name: string;
  baseURL: string;
  release(outcome: LeaseOutcome): void;
}

/** A pool of endpoints serving the run's decision-model aliases. */
export interface EndpointPool {
  /** Waits for an endpoint that serves `model`, has room and is not cooling down; rejects when `signal` aborts. */
  acquire(model: string, signal?: AbortSignal): Promise<EndpointLease>;
  /** What each endpoint did so far (the manifest's `endpoints`). */
  counts(): EndpointCounts[];
  /** The aliases no endpoint serves (the caller refuses them before anything is sent). */
  unserved(models: readonly string[]): string[];
}

/** Cool-down after a 429 without Retry-After: 1 s, doubling per consecutive 429 of the endpoint, at most 60 s. */
const COOL_DOWN: RetryPolicy = { maxAttempts: 1, baseDelayMs: 500, maxDelayMs: 60_000, jitterMs: 100 };

interface Slot {
  endpoint: PoolEndpoint;
  client: OpenAI;
  inFlight: number;
  coolUntil: number;
  consecutive429: number;
  counts: EndpointCounts;
}

/**
 * Creates the pool. Among the endpoints with room that serve the alias and are not cooling down, a request goes to
 * the one with the fewest requests in flight per unit of weight (file order breaks ties); waiting requests are
 * served first come, first served.
 *
 * @example
 * const pool = createEndpointPool(loadEndpointsFile('endpoints.json', process.env), { timeoutMs: 60_000 });
 * const lease = await pool.acquire('gpt-5-nano'); // … lease.client.chat.completions.create(…); lease.release({ kind: 'ok' })
 */
export function createEndpointPool(
  endpoints: readonly PoolEndpoint[],
  options: { timeoutMs: number; now?: () => number },
): EndpointPool {
  const now = options.now ?? Date.now;
  const slots: Slot[] = endpoints.map((endpoint) => ({
    endpoint,
    client: new OpenAI({
      baseURL: endpoint.baseURL,
      apiKey: endpoint.apiKey,
      maxRetries: 0,
      timeout: options.timeoutMs,
    }),
    inFlight: 0,
    coolUntil: 0,
    consecutive429: 0,
    counts: {
      name: endpoint.name,
      baseURL: endpoint.baseURL,
      keyEnv: endpoint.keyEnv,
      maxConcurrency: endpoint.maxConcurrency,
      weight: endpoint.weight,
      requests: 0,
      ok: 0,
      rateLimited: 0,
      failed: 0,
      maxInFlight: 0,
    },
  }));
  const serves = (slot: Slot, model: string) => slot.endpoint.models === null || slot.endpoint.models.includes(model);
  const waiting: {
    model: string;
    signal: AbortSignal | undefined;
    grant: (slot: Slot) => void;
    cancel: (error: Error) => void;
  }[] = [];
  const watched = new WeakSet<AbortSignal>();
  let wake: ReturnType<typeof setTimeout> | null = null;

  function cancelWaiters(signal: AbortSignal): void {
    for (const waiter of waiting.filter((w) => w.signal === signal)) {
      waiting.splice(waiting.indexOf(waiter), 1);
      waiter.cancel(new Error('cancelled while waiting for an endpoint'));
    }
  }

  function pick(model: string): Slot | null {
    const open = slots.filter(
      (s) => serves(s, model) && s.inFlight < s.endpoint.maxConcurrency && s.coolUntil <= now(),
    );
    if (open.length === 0) return null;
    return open.reduce((best, s) =>
      (s.inFlight + 1) / s.endpoint.weight < (best.inFlight + 1) / best.endpoint.weight ? s : best,
    );
  }

  function pump(): void {
    for (let i = 0; i < waiting.length; ) {
      const slot = pick(waiting[i]!.model);
      if (!slot) {
        i += 1;
        continue;
      }
      const [waiter] = waiting.splice(i, 1);
      waiter!.grant(slot);
    }
    // Requests still waiting for an endpoint that is only cooling down: look again when the first cool-down ends.
    const cooling = slots.filter((s) => s.coolUntil > now()).map((s) => s.coolUntil);
    if (waiting.length > 0 && cooling.length > 0 && wake === null)
      wake = setTimeout(
        () => {
          wake = null;
          pump();
        },
        Math.max(0, Math.min(...cooling) - now()),
      );
  }

  function lease(slot: Slot): EndpointLease {
    slot.inFlight += 1;
    slot.counts.requests += 1;
    slot.counts.maxInFlight = Math.max(slot.counts.maxInFlight, slot.inFlight);
    let released = false;
    return {
      client: slot.client,
      name: slot.endpoint.name,
      baseURL: slot.endpoint.baseURL,
      release(outcome) {
        if (released) return;
        released = true;
        slot.inFlight -= 1;
        if (outcome.kind === 'ok') {
          slot.counts.ok += 1;
          slot.consecutive429 = 0;
        } else if (outcome.kind === 'rate-limited') {
          slot.counts.rateLimited += 1;
          slot.consecutive429 += 1;
          slot.coolUntil = Math.max(
            slot.coolUntil,
            now() + retryDelayMs(COOL_DOWN, slot.consecutive429, outcome.headers),
          );
        } else slot.counts.failed += 1;
        pump();
      },
    };
  }

  return {
    acquire(model, signal) {
      if (!slots.some((s) => serves(s, model)))
        return Promise.reject(new Error(`no endpoint of the pool serves model "${model}"`));
      return new Promise((resolve, reject) => {
        if (signal?.aborted) return reject(new Error('cancelled while waiting for an endpoint'));
        // One abort listener per signal (a run's units share one), not one per waiting request.
        if (signal && !watched.has(signal)) {
          watched.add(signal);
          signal.addEventListener('abort', () => cancelWaiters(signal), { once: true });
        }
        waiting.push({ model, signal, grant: (slot) => resolve(lease(slot)), cancel: reject });
        pump();
      });
    },
    counts: () => slots.map((s) => ({ ...s.counts })),
    unserved: (models) => models.filter((model) => !slots.some((s) => serves(s, model))),
  };
}
