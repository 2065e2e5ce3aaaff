// The front-door suite's run kind (`pnpm frontdoor -o DIR`): scorecards from summary.json, cells in the viewer.
import type { RunKindV1 } from '../run-kinds/run-kind-v1.js';
import { frontdoorSections } from '../view/unit-sections.js';
import { frontdoorSuiteReport } from './frontdoor-suite-report.js';

/** Front-door suite runs. */
export const frontdoorRunKind: RunKindV1 = {
  specificationVersion: 'v1',
  id: 'frontdoor',
  suiteReport: frontdoorSuiteReport,
  viewer: { index: 'generic', sections: frontdoorSections },
};
