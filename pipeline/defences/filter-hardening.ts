// The `filter-hardening` arm (reference `hybrid`): the store filter and prompt hardening together, composed as data.
import type { DefenceV1 } from './defence-v1.js';

/** No stages of its own: the filtered read of `store-filter`, then the prefix of `prompt-hardening`. */
export const filterHardeningDefence = {
  specificationVersion: 'v1',
  id: 'filter-hardening',
  label: 'store filter + prompt hardening',
  arm: { referenceName: 'hybrid' },
  uses: ['store-filter', 'prompt-hardening'],
  create: () => ({}),
} as const satisfies DefenceV1;
