// Content-addressed on-disk cache of validated model replies (user-expectations.md §2 "Response cache").
import { join } from 'node:path';
import { readJsonIfExists, sha256, writeJsonAtomic } from '../run-log/json-files.js';
import { redactDeep, type Redactor } from '../run/redact.js';

/**
 * Bump when the key components change: old entries then simply stop matching.
 * 2: the sample identity joined the key (issue 11: units with byte-identical prompts shared one reply).
 */
export const CACHE_KEY_SCHEMA = 2;

/**
 * The response cache `pnpm eval` and `pnpm run cache` use without `--cache-dir`: `$STALEBENCH_CACHE_DIR`, else
 * `.stalebench-cache` in the current directory (the test setup points the variable into each test file's own
 * temporary directory, pipeline/test-support/isolated-home.ts).
 */
export function defaultCacheDir(env: NodeJS.ProcessEnv): string {
  return env.STALEBENCH_CACHE_DIR || '.stalebench-cache';
}

/** What a cache key looks like: a sha256 in lowercase hex. */
export const CACHE_KEY_PATTERN = /^[0-9a-f]{64}$/;

/** Everything that determines a reply. */
export interface CacheKeyComponents {
  /** The key schema the entry was written under (`CACHE_KEY_SCHEMA`). */
  schema: number;
  /** Endpoint base URL (never the key). */
  baseURL: string;
  /** The model alias as sent. */
  model: string;
  /** The draw's sample identity (`DecisionRequest.sample`): which unit, and which call inside it. */
  sample: string;
  /** Trial index. */
  trial: number;
  /** The exact serialized request body sent. */
  body: string;
}

/** A stored reply plus the components that produced its key (for `pnpm run cache explain`). */
export interface CacheEntry<T> {
  key: string;
  components: CacheKeyComponents;
  storedAt: string;
  value: T;
}

/** A directory of cache entries; `disabled` turns every lookup into a miss and every store into a no-op. */
export interface ResponseCache {
  /** The sha256 key of a set of components. */
  keyOf(components: Omit<CacheKeyComponents, 'schema'>): { key: string; components: CacheKeyComponents };
  /** The stored value for a key, if any. An entry that does not belong to its key (edited, corrupt) is a miss. */
  get<T>(key: string): CacheEntry<T> | undefined;
  /**
   * Stores a value, redacted first (a reply can echo the key). Callers store only validated replies: never errors,
   * empty content or filtered stops. An entry whose key components hold a secret is not stored at all: redacting
   * them would break the entry's key, and storing them would write the secret.
   */
  put<T>(key: string, components: CacheKeyComponents, value: T): void;
  /** Hit/miss counters for the summary. */
  stats(): { hits: number; misses: number };
}

/** The key of a set of components: sha256 over all of them, in a fixed order. */
export function cacheKeyOf(components: CacheKeyComponents): string {
  const { schema, baseURL, model, sample, trial, body } = components;
  return sha256(JSON.stringify([schema, baseURL, model, sample, trial, body]));
}

/** Where an entry lives: `<dir>/<first two hex digits>/<key>.json`. */
export function cacheEntryPath(dir: string, key: string): string {
  return join(dir, key.slice(0, 2), `${key}.json`);
}

/** Whether a parsed file is an entry of this key, written under the current schema. */
function isEntryOf(entry: unknown, key: string): entry is CacheEntry<unknown> {
  if (typeof entry !== 'object' || entry === null) return false;
  const { key: stored, components } = entry as Partial<CacheEntry<unknown>>;
  return (
    stored === key &&
    typeof components === 'object' &&
    components !== null &&
    components.schema === CACHE_KEY_SCHEMA &&
    cacheKeyOf(components) === key
  );
}

function readEntry<T>(path: string, key: string): CacheEntry<T> | undefined {
  try {
    const entry = readJsonIfExists<unknown>(path);
    return isEntryOf(entry, key) ? (entry as CacheEntry<T>) : undefined;
  } catch {
    return undefined; // not JSON: a miss, and the next store replaces it
  }
}

/** Settings of `createResponseCache`. */
export interface ResponseCacheSettings {
  dir: string;
  enabled: boolean;
  /** The run's redactor: every stored value is redacted with it, so a replay returns what the records hold. */
  redact?: Redactor;
}

/** Creates a cache rooted at `dir`. */
export function createResponseCache(settings: ResponseCacheSettings): ResponseCache {
  let hits = 0;
  let misses = 0;
  return {
    keyOf(partial) {
      const components: CacheKeyComponents = { schema: CACHE_KEY_SCHEMA, ...partial };
      return { key: cacheKeyOf(components), components };
    },
    get<T>(key: string) {
      const entry = settings.enabled ? readEntry<T>(cacheEntryPath(settings.dir, key), key) : undefined;
      if (entry) hits += 1;
      else misses += 1;
      return entry;
    },
    put(key, components, value) {
      if (!settings.enabled) return;
      const redact = settings.redact;
      if (redact && redactDeep(components, redact) !== components) return;
      writeJsonAtomic(cacheEntryPath(settings.dir, key), {
        key,
        components,
        storedAt: new Date().toISOString(),
        value: redact ? redactDeep(value, redact) : value,
      });
    },
    stats: () => ({ hits, misses }),
  };
}
