// In-process VectorStore: exact cosine over every point, payload filters compiled once (the only compiler).
import { EvalError } from '#core/errors.js';
import type {
  MatchCondition,
  PayloadFilter,
  PayloadScalar,
  PointSelector,
  ScoredPoint,
  VectorPoint,
  VectorStore,
} from './vector-store.js';

/** The embedded store has no settings yet; the type keeps the factory shape. */
export type EmbeddedVectorStoreSettings = Record<string, never>;

/** A compiled payload filter: true when the payload passes. */
export type PayloadPredicate = (payload: Record<string, unknown>) => boolean;

interface StoredPoint {
  point: VectorPoint;
  norm: number;
}

interface Collection {
  dimensions: number;
  // A Map keeps first-insertion order, and `set` on an existing id keeps its place: that is the tie order.
  points: Map<string, StoredPoint>;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/**
 * Compiles a `PayloadFilter` into a predicate with Qdrant's semantics: every `must` holds and no `must_not`
 * holds; a key is a dotted path; an array value matches when any element does; a missing key matches nothing.
 *
 * @example
 * const keep = compilePayloadFilter({ must: [{ key: 'run_id', match: { value: 'r1' } }] });
 * keep({ run_id: 'r1' }); // true
 */
export function compilePayloadFilter(filter: PayloadFilter = {}): PayloadPredicate {
  const must = (filter.must ?? []).map(compileCondition);
  const mustNot = (filter.must_not ?? []).map(compileCondition);
  return (payload) => must.every((test) => test(payload)) && !mustNot.some((test) => test(payload));
}

function compileCondition(condition: MatchCondition): PayloadPredicate {
  const path = condition.key.split('.');
  const accepted: readonly PayloadScalar[] = 'value' in condition.match ? [condition.match.value] : condition.match.any;
  const equal = (value: unknown) => accepted.some((candidate) => candidate === value);
  return (payload) => {
    let value: unknown = payload;
    for (const part of path) {
      if (value === null || typeof value !== 'object' || Array.isArray(value)) return false;
      value = (value as Record<string, unknown>)[part];
    }
    return Array.isArray(value) ? value.some(equal) : equal(value);
  };
}

/**
 * Creates an empty in-memory vector store. Scores are exact cosine similarities in double precision; equal
 * scores keep first-upsert order. Ids must be lowercase canonical UUIDs, as a Qdrant store would require.
 *
 * @example
 * const store = createEmbeddedVectorStore();
 * await store.open();
 * await store.ensureCollection('chunks', 384);
 */
export function createEmbeddedVectorStore(_settings: EmbeddedVectorStoreSettings = {}): VectorStore {
  const collections = new Map<string, Collection>();
  let opened = false;

  const collectionOf = (name: string): Collection => {
    if (!opened) throw new EvalError('vector-store-not-open', 'embedded vector store: call open() first');
    const collection = collections.get(name);
    if (!collection) throw new EvalError('vector-collection-missing', `embedded vector store: no collection "${name}"`);
    return collection;
  };
  const checkId = (id: string): void => {
    if (!UUID.test(id))
      throw new EvalError('vector-invalid-id', `embedded vector store: point id "${id}" is not a lowercase UUID`);
  };
  const copy = ({ point }: StoredPoint): VectorPoint => structuredClone(point);
  const selected = (collection: Collection, filter?: PayloadFilter): StoredPoint[] => {
    const passes = compilePayloadFilter(filter);
    return [...collection.points.values()].filter((stored) => passes(stored.point.payload));
  };

  return {
    id: 'embedded',
    async open() {
      opened = true;
    },
    async ensureCollection(name, dimensions) {
      if (!opened) throw new EvalError('vector-store-not-open', 'embedded vector store: call open() first');
      if (!Number.isInteger(dimensions) || dimensions < 1)
        throw new RangeError(`collection "${name}": dimensions must be a positive integer`);
      const existing = collections.get(name);
      if (existing && existing.dimensions !== dimensions) {
        throw new EvalError(
          'vector-dimension-mismatch',
          `collection "${name}" has ${existing.dimensions} dimensions, not ${dimensions}`,
        );
      }
      if (!existing) collections.set(name, { dimensions, points: new Map() });
    },
    async upsert(name, points) {
      const collection = collectionOf(name);
      for (const point of points) {
        checkId(point.id);
        checkVector(name, collection.dimensions, point.vector);
      }
      for (const point of points)
        collection.points.set(point.id, { point: structuredClone(point), norm: norm(point.vector) });
    },
    async search({ collection: name, vector, limit, filter }) {
      const collection = collectionOf(name);
      checkVector(name, collection.dimensions, vector);
      if (!Number.isInteger(limit) || limit < 0)
        throw new RangeError(`search limit must be a non-negative integer, got ${limit}`);
      const queryNorm = norm(vector);
      const scored = selected(collection, filter).map(
        (stored): ScoredPoint => ({
          id: stored.point.id,
          score: cosine(vector, queryNorm, stored),
          payload: stored.point.payload,
        }),
      );
      // Array.prototype.sort is stable, so equal scores keep first-upsert order.
      return scored
        .sort((a, b) => b.score - a.score)
        .slice(0, limit)
        .map((hit) => ({ ...hit, payload: structuredClone(hit.payload) }));
    },
    async get(name, ids) {
      const collection = collectionOf(name);
      ids.forEach(checkId);
      return ids.flatMap((id) => {
        const stored = collection.points.get(id);
        return stored ? [copy(stored)] : [];
      });
    },
    async scroll(name, filter) {
      return selected(collectionOf(name), filter).map(copy);
    },
    async delete(name, selector: PointSelector) {
      const collection = collectionOf(name);
      if (isIdList(selector)) {
        selector.forEach(checkId);
        for (const id of selector) collection.points.delete(id);
        return;
      }
      for (const stored of selected(collection, selector)) collection.points.delete(stored.point.id);
    },
    async listCollections(prefix) {
      if (!opened) throw new EvalError('vector-store-not-open', 'embedded vector store: call open() first');
      return [...collections.keys()].filter((name) => name.startsWith(prefix)).sort();
    },
    async dropCollection(name) {
      if (!opened) throw new EvalError('vector-store-not-open', 'embedded vector store: call open() first');
      collections.delete(name);
    },
    async close() {
      collections.clear();
      opened = false;
    },
  };
}

function isIdList(selector: PointSelector): selector is readonly string[] {
  return Array.isArray(selector);
}

function checkVector(collection: string, dimensions: number, vector: readonly number[]): void {
  if (vector.length !== dimensions) {
    throw new EvalError(
      'vector-dimension-mismatch',
      `collection "${collection}" expects ${dimensions} dimensions, got ${vector.length}`,
    );
  }
  if (!vector.every(Number.isFinite))
    throw new EvalError('vector-invalid', `collection "${collection}": vector has a non-finite value`);
}

function norm(vector: readonly number[]): number {
  return Math.sqrt(vector.reduce((sum, value) => sum + value * value, 0));
}

function cosine(query: readonly number[], queryNorm: number, stored: StoredPoint): number {
  if (queryNorm === 0 || stored.norm === 0) return 0;
  let dot = 0;
  for (let index = 0; index < query.length; index += 1) dot += (query[index] ?? 0) * (stored.point.vector[index] ?? 0);
  return dot / (queryNorm * stored.norm);
}
