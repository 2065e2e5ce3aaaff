// Qdrant records as VectorStore points: the first-upsert rank kept in the payload, and the point checks.
import type { Schemas } from '@qdrant/js-client-rest';
import { EvalError } from '#core/errors.js';
import type { PointSelector, ScoredPoint, VectorPoint } from './vector-store.js';

/** Payload key holding a point's first-upsert rank, stripped from every read (Qdrant leaves tie order open). */
export const QDRANT_RANK_KEY = '_stalebench_rank';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** What every Qdrant read returns: an id and, when asked for, the payload. */
export interface StoredRecord {
  id: Schemas['ExtendedPointId'];
  payload?: Record<string, unknown> | null;
}

/** The stored first-upsert rank; Infinity when the point has none. */
export function rankOf(record: StoredRecord): number {
  const rank = record.payload?.[QDRANT_RANK_KEY];
  return typeof rank === 'number' ? rank : Number.POSITIVE_INFINITY;
}

/** First-upsert order; points without a rank (written by something else) go last, by id. */
export function byRank(a: StoredRecord, b: StoredRecord): number {
  const difference = rankOf(a) - rankOf(b);
  if (difference !== 0 && !Number.isNaN(difference)) return difference;
  return String(a.id) < String(b.id) ? -1 : String(a.id) > String(b.id) ? 1 : 0;
}

/** The payload as the caller wrote it (a copy without the rank). */
function userPayload(record: StoredRecord): Record<string, unknown> {
  const payload = { ...record.payload };
  delete payload[QDRANT_RANK_KEY];
  return payload;
}

/** A search hit with the caller's payload. */
export function toHit(record: StoredRecord, score: number): ScoredPoint {
  return { id: String(record.id), score: score + 0, payload: userPayload(record) }; // + 0 turns -0 into 0
}

/** A point with the caller's payload and the vector as Qdrant stores it (unit length for cosine, 32-bit floats). */
export function toPoint(record: Schemas['Record']): VectorPoint {
  const vector = record.vector;
  if (!Array.isArray(vector) || !vector.every((value) => typeof value === 'number')) {
    throw new EvalError(
      'vector-collection-incompatible',
      `qdrant: point ${String(record.id)} has no single unnamed vector`,
    );
  }
  return { id: String(record.id), vector, payload: userPayload(record) };
}

/** True for an id list, false for a filter. */
export function isIdList(selector: PointSelector): selector is readonly string[] {
  return Array.isArray(selector);
}

/** Qdrant takes UUIDs or integers; the contract allows lowercase canonical UUIDs only, as the embedded store. */
export function checkId(id: string): void {
  if (!UUID.test(id))
    throw new EvalError('vector-invalid-id', `qdrant vector store: point id "${id}" is not a lowercase UUID`);
}

/** The vector has the collection's dimensions and finite values. */
export function checkVector(collection: string, size: number, vector: readonly number[]): void {
  if (vector.length !== size)
    throw new EvalError(
      'vector-dimension-mismatch',
      `collection "${collection}" expects ${size} dimensions, got ${vector.length}`,
    );
  if (!vector.every(Number.isFinite))
    throw new EvalError('vector-invalid', `collection "${collection}": vector has a non-finite value`);
}
