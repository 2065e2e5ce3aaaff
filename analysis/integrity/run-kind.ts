// The integrity suite's run kind (`pnpm integrity -o DIR`): scorecards from summary.json, cells in the viewer.
import type { RunKindV1 } from '../run-kinds/run-kind-v1.js';
import { integritySections } from '../view/unit-sections.js';
import { integritySuiteReport } from './integrity-suite-report.js';

/** Integrity suite runs. */
export const integrityRunKind: RunKindV1 = {
  specificationVersion: 'v1',
  id: 'integrity',
  suiteReport: integritySuiteReport,
  viewer: { index: 'generic', sections: integritySections },
};
