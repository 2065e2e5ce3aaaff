// Every throwaway part the "add a …" tests add to a copy of the source tree, one line each: throwaway-parts.e2e.test.ts
// type-checks them all in one copy (one tsc instead of one per test), and each registered-*.e2e test runs its own.
import type { SourcePart } from '../source-copy.js';
import { ECHO_EVAL_PHASE } from './echo-eval-phase.js';
import { HEDGE_AXIS } from './hedge-axis.js';
import { NOTEBOOK_BACKEND } from './notebook-backend.js';
import { SQUARES_SUITE } from './squares-suite.js';
import { TALLY_RUN_KIND } from './tally-run-kind.js';
import { THROWAWAY_DEFENCE } from './throwaway-defence.js';

/** The parts, with the test that runs each (file names under pipeline/ and analysis/). */
export const THROWAWAY_PARTS: readonly { readonly part: SourcePart; readonly test: string }[] = [
  { part: SQUARES_SUITE, test: 'pipeline/suites/registered-suite.e2e.test.ts' },
  { part: ECHO_EVAL_PHASE, test: 'pipeline/suites/registered-eval-phase.e2e.test.ts' },
  { part: HEDGE_AXIS, test: 'pipeline/defences/axes/registered-axis.e2e.test.ts' },
  { part: THROWAWAY_DEFENCE, test: 'pipeline/defences/registered-defence.e2e.test.ts' },
  { part: TALLY_RUN_KIND, test: 'analysis/run-kinds/registered-run-kind.e2e.test.ts' },
  { part: NOTEBOOK_BACKEND, test: 'backends/registered-backend.e2e.test.ts' },
];
