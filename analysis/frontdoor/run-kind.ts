// The front-door suite's run kind (`pnpm frontdoor -o DIR`): its cells in the viewer (its scorecards are the suite's
// own `report`, pipeline/suites/frontdoor/suite.ts).
import type { RunKindV1 } from '../run-kinds/run-kind-v1.js';
import { frontdoorSections } from '../view/unit-sections.js';

/** Front-door suite runs. */
export const frontdoorRunKind: RunKindV1 = {
  specificationVersion: 'v1',
  id: 'frontdoor',
  viewer: { index: 'generic', sections: frontdoorSections },
};
