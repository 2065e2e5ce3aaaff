// The integrity suite's run kind (`pnpm integrity -o DIR`): its cells in the viewer (its scorecards are the suite's own
// `report`, pipeline/suites/integrity/suite.ts).
import type { RunKindV1 } from '../run-kinds/run-kind-v1.js';
import { integritySections } from '../view/unit-sections.js';

/** Integrity suite runs. */
export const integrityRunKind: RunKindV1 = {
  specificationVersion: 'v1',
  id: 'integrity',
  viewer: { index: 'generic', sections: integritySections },
};
