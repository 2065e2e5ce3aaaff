// The `zep-oracle-filter-hardening` arm (reference `hybrid`): the hypothetical Zep oracle filter plus prompt hardening.
import type { DefenceV1 } from './defence-v1.js';
import { HYPOTHETICAL_ORACLE } from './zep-oracle-filter.js';

/** The paper's filter-hardening cell for Zep CE (reference `hybrid`): the oracle's filtered read, hardened prompt. */
export const zepOracleFilterHardeningDefence = {
  specificationVersion: 'v1',
  id: 'zep-oracle-filter-hardening',
  label: `Zep oracle filter + prompt hardening, ${HYPOTHETICAL_ORACLE}`,
  arm: { referenceName: 'hybrid' },
  uses: ['zep-oracle-filter', 'prompt-hardening'],
  create: () => ({}),
} as const satisfies DefenceV1;
