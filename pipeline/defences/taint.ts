// The `taint` defence (issue #19 item 1): taint-carrying write-back, the `--taint on` axis of the journal experiments.
import { InvalidInputError } from '#core/errors.js';
import type { DefenceV1 } from './defence-v1.js';

/**
 * Journals carry the ids of the records their decision read, and every read of the unit asks the system to resolve
 * them (backends/provenance.ts): a journal derived from a revoked record — revoked then or later — is left out of
 * the filtered read and withheld by the guard's stage 1 (`derived_from_revoked`); one whose provenance cannot be
 * traced is treated the same way (`derived_from_unknown`). It has no settings.
 *
 * @example pnpm eval --experiment writeback --model sim --arms direct --taint off,on
 */
export const taintDefence = {
  specificationVersion: 'v1',
  id: 'taint',
  label: 'taint (journal provenance)',
  arm: null,
  uses: [],
  create(settings: unknown = {}) {
    if (typeof settings !== 'object' || settings === null || Object.keys(settings).length > 0)
      throw new InvalidInputError('taint settings', [{ path: '', message: 'the taint defence takes no settings' }]);
    return { taint: true };
  },
} as const satisfies DefenceV1;
