// The `ledger-guard` arm: the stale guard whose stage 1 also consults the revocation ledger (issues #14, #19).
import type { DefenceV1 } from './defence-v1.js';

/** No stages of its own: `revocation-ledger` withholds what the ledger revokes, then the stale guard runs on the rest. */
export const ledgerGuardDefence = {
  specificationVersion: 'v1',
  id: 'ledger-guard',
  label: 'revocation ledger + stale guard',
  arm: { referenceName: 'revocation_ledger+guard' },
  uses: ['revocation-ledger', 'guard'],
  create: () => ({}),
} as const satisfies DefenceV1;
