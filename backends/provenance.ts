// Taint-carrying write-back (issue #19 item 1): a derived record's provenance resolved at read time, for backends.
import { UnsupportedFeatureError } from '#core/errors.js';
import type { FieldValue, InsertRequest, SearchRequest } from './memory-backend.js';

/**
 * A derived record's standing at read time: `clean` (nothing it derives from is revoked), `revoked` (something it
 * derives from, directly or through another derived record, is revoked or gone as revoked), `unknown` (its list is
 * missing, or names a record the store no longer holds, or loops): `unknown` reads as revoked (fail closed).
 */
export type ProvenanceStatus = 'clean' | 'revoked' | 'unknown';

/** What the resolver asks a store about one record id. */
export interface ProvenanceGraph {
  /** Whether the store holds the record as revoked; `undefined` when it does not hold it at all. */
  revoked(id: string): boolean | undefined;
  /** The ids it was derived from; `null` for a derived record with no stored list (old data); `undefined`: not derived. */
  derivedFrom(id: string): readonly string[] | null | undefined;
}

/**
 * Resolves derived records against the store's current state (so a revocation after the journal was written counts).
 * Returns null for a record that is not derived. Memoised per resolver: create one per read.
 *
 * @example createProvenanceResolver(graph)('journal-2') // 'revoked' when journal-1 it read derives from expired v1
 */
export function createProvenanceResolver(graph: ProvenanceGraph): (id: string) => ProvenanceStatus | null {
  const known = new Map<string, ProvenanceStatus | null>();
  const resolve = (id: string, path: ReadonlySet<string>): ProvenanceStatus | null => {
    const memo = known.get(id);
    if (memo !== undefined) return memo;
    const list = graph.derivedFrom(id);
    if (list === undefined) return null;
    let status: ProvenanceStatus = list === null ? 'unknown' : 'clean';
    for (const ancestor of list ?? []) {
      const revoked = graph.revoked(ancestor);
      const inherited = path.has(ancestor) ? 'unknown' : resolve(ancestor, new Set([...path, id]));
      if (revoked === true || inherited === 'revoked') {
        status = 'revoked';
        break;
      }
      if (revoked === undefined || inherited === 'unknown') status = 'unknown';
    }
    known.set(id, status);
    return status;
  };
  return (id) => resolve(id, new Set([id]));
}

/** Whether a read with `taint` and a filter leaves the record out: `revoked` and `unknown` read as revoked. */
export const taintFiltersOut = (status: ProvenanceStatus | null): boolean =>
  status === 'revoked' || status === 'unknown';

/** The fields a taint read adds to a derived record (`derived_from` is the id list as JSON, null when missing). */
export function provenanceFields(
  list: readonly string[] | null,
  status: ProvenanceStatus,
): Record<'derived_from' | 'derived_from_status', FieldValue> {
  return { derived_from: list === null ? null : JSON.stringify(list), derived_from_status: status };
}

/** Throws `UnsupportedFeatureError` when a write carries provenance or a read asks for taint on a system without it. */
export function refuseProvenance(system: string, request: InsertRequest | SearchRequest, reason: string): void {
  if ('derivedFrom' in request && request.derivedFrom !== undefined)
    throw new UnsupportedFeatureError(system, 'write provenance (derivedFrom)', reason);
  if ('taint' in request && request.taint === true)
    throw new UnsupportedFeatureError(system, 'taint read (provenance)', reason);
}
