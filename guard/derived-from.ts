// Stage 1's taint rule (issue #19 item 1): a record derived from a revoked one reads as revoked. Not in the reference.

/**
 * The stage-1 reason for a record whose provenance the store resolved (`derived_from_status`, set by a taint read;
 * backends/provenance.ts): `derived_from_revoked` when something it derives from is revoked, `derived_from_unknown`
 * when its provenance cannot be traced (fail closed); null otherwise. Records without the field (every record of the
 * paper's vectors) are untouched, so the reference port stays exact.
 *
 * @example derivedFromRevocation({ fact: 'Decision record: ...', derived_from_status: 'revoked' }) // 'derived_from_revoked'
 */
export function derivedFromRevocation(record: unknown): 'derived_from_revoked' | 'derived_from_unknown' | null {
  if (typeof record !== 'object' || record === null || !Object.hasOwn(record, 'derived_from_status')) return null;
  return derivedFromStatus((record as { derived_from_status: unknown }).derived_from_status);
}

/** `derivedFromRevocation` of a record whose `derived_from_status` is `status` (`undefined` when absent). */
export function derivedFromStatus(status: unknown): 'derived_from_revoked' | 'derived_from_unknown' | null {
  if (status === 'revoked') return 'derived_from_revoked';
  if (status === 'unknown') return 'derived_from_unknown';
  return null;
}
