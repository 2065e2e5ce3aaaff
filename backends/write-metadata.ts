// Writer metadata on systems that have no place for it: a recorded warning on writes, a typed error on filtered reads.
import { UnsupportedFeatureError } from '#core/errors.js';
import type { InsertRequest, RecordedWarning, SearchRequest } from './memory-backend.js';

/** The `unsupported` warning an insert reports when it carried metadata the system cannot store; none otherwise. */
export function unstoredMetadataWarnings(request: InsertRequest, reason: string): RecordedWarning[] {
  if (request.metadata === undefined || Object.keys(request.metadata).length === 0) return [];
  return [
    {
      type: 'unsupported',
      feature: 'write metadata',
      message: `not stored (${Object.keys(request.metadata).sort().join(', ')}): ${reason}`,
    },
  ];
}

/** Throws `UnsupportedFeatureError` when a read asks for a metadata filter the system does not have. */
export function refuseMetadataFilter(system: string, request: SearchRequest, reason: string): void {
  if (request.metadataFilter !== undefined) throw new UnsupportedFeatureError(system, 'metadata filter', reason);
}
