// The `ledger-filter` arm: the store filter consulting the revocation ledger (issue #14 item 4).
import type { DefenceV1 } from './defence-v1.js';

/** No stages of its own: the filtered read of `store-filter`, judged by `revocation-ledger`. */
export const ledgerFilterDefence = {
  specificationVersion: 'v1',
  id: 'ledger-filter',
  label: 'store filter + revocation ledger',
  arm: { referenceName: 'retrieval_filter+revocation_ledger' },
  uses: ['store-filter', 'revocation-ledger'],
  create: () => ({}),
} as const satisfies DefenceV1;
