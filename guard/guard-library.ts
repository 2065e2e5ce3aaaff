// `stalebench/guard`: the guard in front of any memory — mem0's `Memory.search`, our backends' search (graphiti), or plain records.
import type { MemoryItem, SearchMemoryOptions } from 'mem0ai/oss';
import type { Embedder } from '../backends/embedder.js';
import { toMem0Record } from '../backends/mem0-records.js';
import type { MemoryRecord, SearchRequest, SearchResult } from '../backends/memory-backend.js';
import { InvalidInputError } from '#core/errors.js';
import { textOf, type GuardInput } from './guard-record.js';
import type { WithheldRecord } from './read-guard.js';
import { applyStaleRetrievalGuard, memoryRecordToGuardInput } from './stale-retrieval-guard.js';
import { applyGuardV2, embeddingSimilarity } from './stale-retrieval-guard-v2.js';

/** Which guard filters the records: the reference port (`guard`, default) or the stronger `guard-v2`. */
export type GuardName = 'guard' | 'guard-v2';

/** How the wrapped search is guarded. */
export interface GuardOptions {
  /** The guard (default `guard`, the paper's reference, exact). */
  guard?: GuardName;
  /** Its settings (`GuardConfig` or `GuardV2Config` fields); validated, unknown keys rejected. */
  config?: Record<string, unknown>;
  /** guard-v2 only: the embedder for subject similarity. */
  embedder?: Embedder;
  /** The clock for scheduled expiries (default: the wall clock at each search). */
  now?: () => Date;
}

/** A guarded result: what the guard let through, and beside it what it held back and why. */
export interface Guarded<T> {
  /** The kept records, unchanged, in the memory's own ranking order. */
  kept: T[];
  /** The withheld records with their reasons (`index` is the position in the memory's result). */
  withheld: WithheldRecord[];
  /** Unresolved conflicts and the summary line. */
  notes: string[];
}

const GUARD_NAMES: readonly GuardName[] = ['guard', 'guard-v2'];

/**
 * Runs the chosen guard on guard inputs (strings, or maps with a text field and snake_case metadata) and returns
 * kept positions with the verdict. Throws `InvalidInputError` for an unknown guard or bad settings.
 */
export async function guardRecords(
  inputs: readonly GuardInput[],
  options: GuardOptions = {},
): Promise<{ kept: number[]; withheld: WithheldRecord[]; notes: string[] }> {
  const name = options.guard ?? 'guard';
  if (!GUARD_NAMES.includes(name))
    throw new InvalidInputError('guard options', [
      { path: 'guard', message: `expected one of ${GUARD_NAMES.join(', ')}` },
    ]);
  if (options.embedder && name !== 'guard-v2')
    throw new InvalidInputError('guard options', [{ path: 'embedder', message: 'only guard-v2 uses an embedder' }]);
  const now = options.now?.() ?? new Date();
  const config = options.config ?? {};
  const verdict =
    name === 'guard'
      ? applyStaleRetrievalGuard(inputs, config, now)
      : applyGuardV2(
          inputs,
          config,
          now,
          options.embedder ? await embeddingSimilarity(options.embedder, inputs.map(textOf)) : undefined,
        );
  return { kept: verdict.kept.map((k) => k.index), withheld: verdict.withheld, notes: verdict.notes };
}

/** The part of mem0's `Memory` the wrapper calls. */
export interface Mem0Searchable {
  /** mem0's own search (`mem0ai/oss`). */
  search(query: string, config: SearchMemoryOptions): Promise<{ results: MemoryItem[] }>;
}

/**
 * Wraps mem0's `Memory.search`: the same call, then the guard on its results (mem0's `createdAt`, `updatedAt` and
 * `metadata.expiration_date` are read as the guard's `created_at`, `updated_at`, `expiration_date`). The result keeps
 * mem0's shape, with `results` = the kept items and `withheld` / `notes` beside them.
 *
 * @example
 * const search = guardMem0Search(memory, { guard: 'guard-v2' });
 * const { results, withheld } = await search('What is our MFA policy?', { filters: { user_id: 'alice' } });
 */
export function guardMem0Search(memory: Mem0Searchable, options: GuardOptions = {}) {
  return async (
    query: string,
    config: SearchMemoryOptions,
  ): Promise<{ results: MemoryItem[]; withheld: WithheldRecord[]; notes: string[] }> => {
    const found = await memory.search(query, config);
    const verdict = await guardRecords(
      found.results.map((item) => memoryRecordToGuardInput(toMem0Record(item))),
      options,
    );
    return {
      ...found,
      results: verdict.kept.map((i) => found.results[i] as MemoryItem),
      withheld: verdict.withheld,
      notes: verdict.notes,
    };
  };
}

/** Any of our memory systems' search (graphiti's included): `(request) → SearchResult`. */
export type BackendSearch = (request: SearchRequest) => Promise<SearchResult>;

/**
 * Wraps one of our backends' `search` (graphiti: `createGraphitiBackend(...).search`): the same request, then the
 * guard; `records` are the kept ones, the backend's warnings pass through.
 *
 * @example const search = guardBackendSearch((request) => graphiti.search(request), { guard: 'guard' });
 */
export function guardBackendSearch(search: BackendSearch, options: GuardOptions = {}) {
  return async (request: SearchRequest): Promise<SearchResult & Guarded<MemoryRecord>> => {
    const result = await search(request);
    const verdict = await guardRecords(result.records.map(memoryRecordToGuardInput), options);
    const kept = verdict.kept.map((i) => result.records[i] as MemoryRecord);
    return { records: kept, warnings: result.warnings, kept, withheld: verdict.withheld, notes: verdict.notes };
  };
}
