// The `none` arm (reference `attack`): the default read, the plain prompt, the decision as made. No stages.
import type { DefenceV1 } from './defence-v1.js';

/** No defence: the baseline every other arm is compared with. */
export const noneDefence = {
  specificationVersion: 'v1',
  id: 'none',
  label: 'no defence',
  arm: { referenceName: 'attack' },
  uses: [],
  create: () => ({}),
} as const satisfies DefenceV1;
