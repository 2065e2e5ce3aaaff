// The response cache as files on disk, for `pnpm run cache`: list entries (read or not), and remove them.
import { existsSync, readdirSync, readFileSync, rmdirSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { CacheEntry } from './response-cache.js';

/** One file of the cache directory that belongs to the cache layout. */
export interface CacheFile {
  /** `entry`: `<xx>/<key>.json`; `temporary`: a write cut short (`<key>.json.<hex>.tmp`). */
  kind: 'entry' | 'temporary';
  /** The key the file is named after. */
  key: string;
  path: string;
  bytes: number;
  modifiedAt: Date;
  /** The parsed entry, when the file is JSON shaped like one. */
  entry?: CacheEntry<unknown>;
  /** Why `entry` is missing for an entry file (not JSON, not an entry). */
  problem?: string;
}

const SHARD = /^[0-9a-f]{2}$/;
const ENTRY = /^([0-9a-f]{64})\.json$/;
const TEMPORARY = /^([0-9a-f]{64})\.json\.[0-9a-f]+\.tmp$/;

function parseEntry(path: string): Pick<CacheFile, 'entry' | 'problem'> {
  let value: unknown;
  try {
    value = JSON.parse(readFileSync(path, 'utf8'));
  } catch (error) {
    return { problem: `not valid JSON (${(error as Error).message})` };
  }
  const entry = value as Partial<CacheEntry<unknown>> | null;
  if (
    typeof entry !== 'object' ||
    entry === null ||
    typeof entry.key !== 'string' ||
    typeof entry.components !== 'object' ||
    entry.components === null ||
    typeof entry.storedAt !== 'string'
  ) {
    return { problem: 'not a cache entry (needs key, components, storedAt)' };
  }
  return { entry: entry as CacheEntry<unknown> };
}

/**
 * Every file of the cache layout under `dir` (`<xx>/<64 hex>.json` and leftover temporaries), sorted by key. Other
 * files are never listed, so nothing else in a mistyped `--cache-dir` can be removed.
 */
export function listCacheFiles(dir: string): CacheFile[] {
  if (!existsSync(dir)) return [];
  const files: CacheFile[] = [];
  for (const shard of readdirSync(dir, { withFileTypes: true })) {
    if (!shard.isDirectory() || !SHARD.test(shard.name)) continue;
    for (const file of readdirSync(join(dir, shard.name), { withFileTypes: true })) {
      const entryMatch = ENTRY.exec(file.name);
      const temporaryMatch = TEMPORARY.exec(file.name);
      const key = entryMatch?.[1] ?? temporaryMatch?.[1];
      if (!file.isFile() || key === undefined || !key.startsWith(shard.name)) continue;
      const path = join(dir, shard.name, file.name);
      const { size, mtime } = statSync(path);
      const base = { key, path, bytes: size, modifiedAt: mtime };
      files.push(entryMatch ? { kind: 'entry', ...base, ...parseEntry(path) } : { kind: 'temporary', ...base });
    }
  }
  return files.sort((a, b) => a.key.localeCompare(b.key) || a.path.localeCompare(b.path));
}

/** Removes the given files, then any shard directory they leave empty. */
export function removeCacheFiles(dir: string, files: readonly CacheFile[]): void {
  const shards = new Set<string>();
  for (const file of files) {
    rmSync(file.path, { force: true });
    shards.add(join(dir, file.key.slice(0, 2)));
  }
  for (const shard of shards) if (existsSync(shard) && readdirSync(shard).length === 0) rmdirSync(shard);
}
