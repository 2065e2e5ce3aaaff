// Embedder over any OpenAI-compatible /v1/embeddings endpoint (OpenAI, Ollama, vLLM, LiteLLM) via the official SDK.
import OpenAI, { APIConnectionError, APIError } from 'openai';
import { BackendUnavailableError, EvalError, ProviderError } from '#core/errors.js';
import { DEFAULT_RETRY_POLICY, RetriesExhaustedError, withRetries, type RetryPolicy } from '#core/retry-policy.js';
import type { Embedder } from './embedder.js';
import { classifyOpenAIFailure } from './openai-retry.js';

/** Settings of the OpenAI-compatible embedder. */
export interface OpenAIEmbedderSettings {
  /** Embedding model, e.g. `text-embedding-3-small` or `nomic-embed-text` (the paper's, via Ollama). */
  model: 'text-embedding-3-small' | 'text-embedding-3-large' | 'nomic-embed-text' | (string & {});
  /** API base URL including `/v1`; the SDK default (api.openai.com) when absent. */
  baseURL?: string;
  /** API key; the SDK reads `OPENAI_API_KEY` when absent. Never logged or put in errors. */
  apiKey?: string;
  /** Expected vector length, checked on every response; learned from the first response when absent. */
  dimensions?: number;
  /** A ready client (tests, shared connection pools); `baseURL` and `apiKey` are then ignored. */
  client?: OpenAI;
  /** The shared retry ladder (pipeline/core/retry-policy.ts); the SDK's own retries are off. */
  retry?: RetryPolicy;
  /** Injected for tests: the wait between attempts. */
  sleep?: (ms: number) => Promise<void>;
}

// OpenAI accepts at most 2,048 inputs per request; smaller batches keep local servers responsive.
const BATCH_SIZE = 256;

/**
 * Creates the `openai:<model>` embedder. Failed requests go up the shared retry ladder (429, 5xx and timeouts: up to
 * `retry.maxAttempts` attempts; an unreachable server: one quick retry). The client is built on the first `embed` call, so creating the
 * embedder needs neither a key nor a network. Vectors come back in input order (sorted by `index`).
 * `encoding_format: 'float'` is requested explicitly: the SDK's base64 default is float32-only and not every
 * OpenAI-compatible server implements it. Vectors are never truncated; a length mismatch is an error.
 *
 * @example
 * const embedder = createOpenAIEmbedder({ model: 'nomic-embed-text', baseURL: 'http://127.0.0.1:11434/v1', apiKey: 'ollama' });
 * const [vector] = await embedder.embed(['Deployment approval requires TWO reviewers.']);
 */
export function createOpenAIEmbedder(settings: OpenAIEmbedderSettings): Embedder {
  let client = settings.client;
  let dimensions = settings.dimensions;
  let servedModel: string | null = null;
  const id = `openai:${settings.model}`;

  const embedBatch = async (input: string[]): Promise<number[][]> => {
    client ??= new OpenAI({ baseURL: settings.baseURL, apiKey: settings.apiKey, maxRetries: 0 });
    const ready = client;
    let response: OpenAI.Embeddings.CreateEmbeddingResponse;
    try {
      response = await withRetries(
        () => ready.embeddings.create({ model: settings.model, input, encoding_format: 'float' }),
        {
          policy: settings.retry ?? DEFAULT_RETRY_POLICY,
          classify: classifyOpenAIFailure,
          ...(settings.sleep ? { sleep: settings.sleep } : {}),
        },
      );
    } catch (error) {
      throw toEvalError(error, id, ready.baseURL);
    }
    servedModel = typeof response.model === 'string' && response.model !== '' ? response.model : servedModel;
    const data = [...response.data].sort((a, b) => a.index - b.index);
    if (data.length !== input.length || data.some((item, position) => item.index !== position)) {
      throw new EvalError('embedding-mismatch', `${id} returned ${data.length} embeddings for ${input.length} inputs`);
    }
    return data.map((item) => {
      const vector = Array.from(item.embedding);
      dimensions ??= vector.length;
      if (vector.length !== dimensions) {
        throw new EvalError('embedding-mismatch', `${id} returned a ${vector.length}-d vector; expected ${dimensions}`);
      }
      return vector;
    });
  };

  return {
    id,
    /** 0 until the first response when `dimensions` was not given. */
    get dimensions() {
      return dimensions ?? 0;
    },
    get endpoint() {
      return { baseURL: client?.baseURL ?? settings.baseURL ?? 'https://api.openai.com/v1', servedModel };
    },
    async embed(texts) {
      const vectors: number[][] = [];
      for (let start = 0; start < texts.length; start += BATCH_SIZE) {
        vectors.push(...(await embedBatch(texts.slice(start, start + BATCH_SIZE))));
      }
      return vectors;
    },
  };
}

function toEvalError(failure: unknown, id: string, url: string): EvalError {
  const attempts = failure instanceof RetriesExhaustedError ? failure.attempts : 1;
  const error = failure instanceof RetriesExhaustedError ? failure.cause : failure;
  if (error instanceof APIConnectionError) {
    return new BackendUnavailableError(id, url, 'start the embedding server or fix the base URL', { cause: error });
  }
  if (error instanceof APIError) {
    return new ProviderError(`${id}: ${error.message}`, error.status, attempts, { cause: error });
  }
  return new EvalError('embedding-failed', `${id}: ${error instanceof Error ? error.message : String(error)}`, {
    cause: error,
  });
}
