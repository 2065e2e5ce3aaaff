// The vector storage engine under the langmem and cognee backends (types only), shaped like Qdrant's point API
// (collections of `{id, vector, payload}`, payload filters with `must` / `must_not`) so a Qdrant store can
// honour the same contract later.

/** A scalar a payload condition can match: Qdrant's keyword, integer and bool matches. */
export type PayloadScalar = string | number | boolean;

/**
 * One condition on a payload key (Qdrant `FieldCondition` with `match`).
 * `key` is a dotted path into the payload (`value.kind`). When the value at the path is an array, the condition
 * holds if ANY element matches (Qdrant's array semantics). Equality is strict: `1` does not match `'1'`.
 * A missing key never matches, so it fails a `must` and passes a `must_not`.
 */
export interface MatchCondition {
  /** Dotted path into the payload. */
  key: string;
  /** `{value}`: equal to it; `{any}`: equal to one of them (an empty list matches nothing). */
  match: { value: PayloadScalar } | { any: readonly PayloadScalar[] };
}

/**
 * A payload filter: a point passes when every `must` condition holds and no `must_not` condition holds.
 * An absent or empty filter passes every point.
 *
 * @example
 * // this run's points of one namespace, except drafts
 * const filter: PayloadFilter = {
 *   must: [{ key: 'run_id', match: { value: 'r1' } }, { key: 'namespace', match: { value: 'mfa' } }],
 *   must_not: [{ key: 'status', match: { value: 'draft' } }],
 * };
 */
export interface PayloadFilter {
  /** Conditions that must all hold (AND). */
  must?: readonly MatchCondition[];
  /** Conditions none of which may hold. */
  must_not?: readonly MatchCondition[];
}

/** A stored point. */
export interface VectorPoint {
  /** Lowercase canonical UUID string (Qdrant accepts UUIDs or unsigned integers; we use UUIDs only). */
  id: string;
  /** Embedding; its length must equal the collection's dimensions. */
  vector: number[];
  /** JSON-compatible data stored with the point and returned by every read. */
  payload: Record<string, unknown>;
}

/** A search hit. */
export interface ScoredPoint {
  /** Point id. */
  id: string;
  /** Cosine similarity with the query vector, in [-1, 1]; a zero vector scores 0. */
  score: number;
  /** The point's payload. */
  payload: Record<string, unknown>;
}

/** Arguments of `VectorStore.search`. */
export interface VectorSearch {
  /** Collection to read. */
  collection: string;
  /** Query embedding, of the collection's dimensions. */
  vector: readonly number[];
  /** Maximum number of hits; 0 returns none. */
  limit: number;
  /** Applied before ranking and `limit` (Qdrant's filtered search). */
  filter?: PayloadFilter;
}

/** Which points `delete` removes: these ids, or every point passing the filter. */
export type PointSelector = readonly string[] | PayloadFilter;

/**
 * A vector engine. Connecting is explicit (`open`), never in a factory. Every read returns copies, so callers
 * cannot change stored points by mutating results.
 *
 * @example
 * const store = createEmbeddedVectorStore();
 * await store.open();
 * await store.ensureCollection('memories', 384);
 * await store.upsert('memories', [{ id, vector, payload: { run_id: 'r1' } }]);
 * const hits = await store.search({ collection: 'memories', vector: query, limit: 10 });
 */
export interface VectorStore {
  /** Engine id for descriptions and logs (`embedded`, `qdrant`). */
  readonly id: string;
  /** Connects or creates the engine. Idempotent; must precede every other call. */
  open(): Promise<void>;
  /** Creates a cosine collection if missing; an existing one with other dimensions is an error. */
  ensureCollection(name: string, dimensions: number): Promise<void>;
  /** Inserts or overwrites points by id. An overwritten point keeps its place in scroll and tie order. */
  upsert(collection: string, points: readonly VectorPoint[]): Promise<void>;
  /**
   * Exact cosine ranking, best first, of the points passing `filter`. Ties are broken by first-upsert order
   * (earlier first), so results are deterministic; a server engine must reproduce that order for ties.
   */
  search(request: VectorSearch): Promise<ScoredPoint[]>;
  /** The points with these ids, in the order asked; missing ids are skipped. */
  get(collection: string, ids: readonly string[]): Promise<VectorPoint[]>;
  /** Every point passing `filter` (all points without one), in first-upsert order. */
  scroll(collection: string, filter?: PayloadFilter): Promise<VectorPoint[]>;
  /** Removes the selected points; missing ids are ignored. A point upserted again later counts as new. */
  delete(collection: string, selector: PointSelector): Promise<void>;
  /**
   * Names of this store's collections that start with `prefix` (every one for `''`), sorted. With the run
   * namespace roots of `backends/run-namespace.ts`, this finds one process's collections or every run's.
   */
  listCollections(prefix: string): Promise<string[]>;
  /** Deletes a collection with its points; a missing collection is no error. */
  dropCollection(name: string): Promise<void>;
  /** Releases the engine. The embedded engine drops its data. */
  close(): Promise<void>;
}
