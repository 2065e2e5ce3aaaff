// Content-addressed on-disk cache of validated model replies (user-expectations.md §2 "Response cache").
import { join } from 'node:path';
import { readJsonIfExists, sha256, writeJsonAtomic } from './json-files.js';

/** Bump when the key components change: old entries then simply stop matching. */
export const CACHE_KEY_SCHEMA = 1;

/** Everything that determines a reply. The body is the exact serialized request body sent. */
export interface CacheKeyComponents {
  schema: number;
  baseURL: string;
  model: string;
  body: string;
  trial: number;
}

/** A stored reply plus the components that produced its key (for `cache explain`). */
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
  /** The stored value for a key, if any. */
  get<T>(key: string): CacheEntry<T> | undefined;
  /** Stores a value. Callers store only validated replies: never errors, empty content or filtered stops. */
  put<T>(key: string, components: CacheKeyComponents, value: T): void;
  /** Hit/miss counters for the summary. */
  stats(): { hits: number; misses: number };
}

/** Creates a cache rooted at `dir`. */
export function createResponseCache(settings: { dir: string; enabled: boolean }): ResponseCache {
  let hits = 0;
  let misses = 0;
  const pathOf = (key: string) => join(settings.dir, key.slice(0, 2), `${key}.json`);
  return {
    keyOf(partial) {
      const components: CacheKeyComponents = { schema: CACHE_KEY_SCHEMA, ...partial };
      const key = sha256(JSON.stringify([components.schema, components.baseURL, components.model, components.body, components.trial]));
      return { key, components };
    },
    get<T>(key: string) {
      const entry = settings.enabled ? readJsonIfExists<CacheEntry<T>>(pathOf(key)) : undefined;
      if (entry) hits += 1;
      else misses += 1;
      return entry;
    },
    put(key, components, value) {
      if (!settings.enabled) return;
      writeJsonAtomic(pathOf(key), { key, components, storedAt: new Date().toISOString(), value });
    },
    stats: () => ({ hits, misses }),
  };
}
