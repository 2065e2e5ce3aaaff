// The read-guard interface (types only): a guard wraps a backend's `search`; backends never know it exists.
import type { MemoryRecord, RecordedWarning, SearchRequest, SearchResult } from '../backends/memory-backend.js';

/** Registry id of a read guard. Open union: new guards need no type change here. */
export type GuardId = 'stale-retrieval' | (string & {});

/** Which rule withheld a record: a revocation field the backend set, or a conflict with a newer kept record. */
export type GuardStage = 'explicit' | 'conflict';

/** A record the guard lets through, with its position in the backend's result. */
export interface KeptRecord<R> {
  /** 0-based position of the record in the backend's result (its relevance rank). */
  index: number;
  /** The record exactly as the backend returned it (never copied or rewritten). */
  record: R;
}

/** A record the guard held back. It is only hidden from this read; nothing is deleted from the store. */
export interface WithheldRecord {
  /** 0-based position of the record in the backend's result. */
  index: number;
  /** The record's text (stale-retrieval.md §10.2 `textOf`). */
  text: string;
  /**
   * Why, as the reference code words it: `backend marked <field>` (explicit) or `superseded: <conflict reason>`;
   * beyond the reference, `derived_from_revoked` / `derived_from_unknown` (explicit; guard/derived-from.ts).
   * Scoring compares these strings, so they are byte-exact with [C].
   */
  reason: string;
  /** The rule that fired. */
  stage: GuardStage;
  /** For `conflict`: the text of the newer kept record this one conflicts with. Absent for `explicit`. */
  supersededBy?: string;
}

/**
 * A guard's verdict on one retrieval result, as data. `kept` is in the backend's order (ascending `index`);
 * `withheld` is in the order the guard decided (stage 1 in rank order, then stage 2 newest first).
 */
export interface GuardVerdict<R = MemoryRecord> {
  /** Records passed on to the agent, in the backend's original ranking order. */
  kept: KeptRecord<R>[];
  /** Records held back, each with its reason. */
  withheld: WithheldRecord[];
  /** Human-readable notes: unresolved conflicts, then (when anything was withheld) a summary line. */
  notes: string[];
}

/** What `wrapSearch` returns: the verdict on the backend's records plus the backend's own warnings, passed through. */
export interface GuardedResult extends GuardVerdict<MemoryRecord> {
  /** The wrapped search's `warnings`, unchanged (a guard never drops what the backend reported). */
  warnings: readonly RecordedWarning[];
}

/** Everything a guard may know about the read besides the request: the clock, never the system's identity. */
export interface GuardContext {
  /** The clock for scheduled expiries (`expiration_date`); the pipeline passes the run's clock for reproducibility. */
  now: Date;
}

/** The arguments of `ReadGuard.wrapSearch`. */
export interface WrapSearchInput {
  /** The read request, forwarded to `search` unchanged. */
  request: SearchRequest;
  /** The backend's search (or the next guard's wrapped search); called exactly once. */
  search: (request: SearchRequest) => Promise<SearchResult>;
  /** Clock and other read context. */
  context: GuardContext;
}

/**
 * A defence on the read path. It calls `search` once, unmodified, and decides which returned records the
 * agent sees. Backends never know a guard exists (STYLE.md §1).
 *
 * @example
 * const guard = createStaleRetrievalGuard();
 * const { kept, withheld, notes } = await guard.wrapSearch({
 *   request: { namespace, query, limit: 10 },
 *   search: (request) => backend.search(request),
 *   context: { now },
 * });
 */
export interface ReadGuard {
  /** Registry id (`stale-retrieval`). */
  readonly id: GuardId;
  /** Runs the wrapped search and returns the verdict on its records. */
  wrapSearch(input: WrapSearchInput): Promise<GuardedResult>;
}
