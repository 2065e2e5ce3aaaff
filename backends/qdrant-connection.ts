// Connecting to Qdrant: the lazy client import, the short-timeout probe, and HTTP / network error mapping.
import type { QdrantClient } from '@qdrant/js-client-rest';
import { BackendUnavailableError, EvalError } from '#core/errors.js';

/** What to do when no server answers. */
export const QDRANT_START_HINT =
  'start a Qdrant server, e.g. `docker run -p 6333:6333 qdrant/qdrant`, and set QDRANT_URL (plus QDRANT_API_KEY if it needs one)';

/** Where a Qdrant server is. */
export interface QdrantEndpoint {
  /** REST URL with scheme and port, e.g. `http://127.0.0.1:6333`. */
  url: string;
  /** API key for a server that needs one (Qdrant Cloud, `QDRANT__SERVICE__API_KEY`). */
  apiKey?: string;
}

/**
 * Imports `@qdrant/js-client-rest` and creates a client whose every request times out after `timeoutMs`.
 * A URL the client rejects (no `http://` / `https://`) throws `BackendUnavailableError`.
 */
export async function createQdrantClient(endpoint: QdrantEndpoint, timeoutMs: number): Promise<QdrantClient> {
  let module: typeof import('@qdrant/js-client-rest');
  try {
    module = await import('@qdrant/js-client-rest');
  } catch (error) {
    throw new EvalError(
      'missing-dependency',
      'the qdrant vector store needs @qdrant/js-client-rest: pnpm add @qdrant/js-client-rest@1.18.0',
      { cause: error },
    );
  }
  try {
    // checkCompatibility off: it sends an unawaited request whose failure only prints a console warning.
    return new module.QdrantClient({
      url: endpoint.url,
      ...(endpoint.apiKey ? { apiKey: endpoint.apiKey } : {}),
      timeout: timeoutMs,
      checkCompatibility: false,
    });
  } catch (error) {
    throw new BackendUnavailableError(
      'qdrant',
      endpoint.url,
      `not a Qdrant URL (${(error as Error).message}); ${QDRANT_START_HINT}`,
      { cause: error },
    );
  }
}

/**
 * Asks the server for its version on a client of its own with a short timeout (default 5 s), so a wrong URL fails
 * in seconds. Throws `BackendUnavailableError` (URL plus how to start a server, or to check the API key).
 *
 * @example
 * const version = await probeQdrant({ url: 'http://127.0.0.1:6333' }); // e.g. '1.15.4'
 */
export async function probeQdrant(endpoint: QdrantEndpoint, timeoutMs = 5_000): Promise<string> {
  const client = await createQdrantClient(endpoint, timeoutMs);
  const info = await client.versionInfo().catch((error: unknown) => {
    const status = httpStatus(error);
    const hint =
      status === 401 || status === 403 ? 'the server refused the API key: check QDRANT_API_KEY' : QDRANT_START_HINT;
    throw new BackendUnavailableError(
      'qdrant',
      endpoint.url,
      status === undefined ? hint : `HTTP ${status} from the root endpoint; ${hint}`,
      { cause: error },
    );
  });
  if (typeof info?.version !== 'string')
    throw new BackendUnavailableError(
      'qdrant',
      endpoint.url,
      `the server does not answer like Qdrant; ${QDRANT_START_HINT}`,
    );
  return info.version;
}

/**
 * Deletes the named collections that exist (for collections a library such as mem0 created for the run).
 *
 * @example
 * await dropQdrantCollections({ url }, ['stalebench_r1_mem0', 'stalebench_r1_mem0_entities']);
 */
export async function dropQdrantCollections(
  endpoint: QdrantEndpoint,
  names: readonly string[],
  timeoutMs = 60_000,
): Promise<void> {
  const client = await createQdrantClient(endpoint, timeoutMs);
  for (const name of names) {
    const { exists } = await qdrantRequest(endpoint.url, `collectionExists ${name}`, () =>
      client.collectionExists(name),
    );
    if (exists) await qdrantRequest(endpoint.url, `deleteCollection ${name}`, () => client.deleteCollection(name));
  }
}

/**
 * Runs one client request. An HTTP error becomes `EvalError('qdrant-request-failed')` with the server's message; a
 * network failure or timeout (no HTTP status) becomes `BackendUnavailableError`.
 */
export async function qdrantRequest<T>(url: string, action: string, request: () => Promise<T>): Promise<T> {
  try {
    return await request();
  } catch (error) {
    const status = httpStatus(error);
    if (status === undefined)
      throw new BackendUnavailableError('qdrant', url, `${action} failed (${String(error)}); ${QDRANT_START_HINT}`, {
        cause: error,
      });
    const data = (error as { data?: { status?: { error?: unknown } } }).data;
    throw new EvalError(
      'qdrant-request-failed',
      `qdrant: ${action} failed with HTTP ${status}: ${String(data?.status?.error ?? (error as Error).message)}`,
      { cause: error },
    );
  }
}

function httpStatus(error: unknown): number | undefined {
  const status = (error as { status?: unknown } | null)?.status;
  return typeof status === 'number' ? status : undefined;
}
