// The forged-reasoning run kind (`pnpm eval --experiment forged-reasoning`): the PoEM paper's tables; no rescore path.
import { followUpPlannedUnits } from '../run-progress.js';
import type { RunKindV1 } from '../run-kinds/run-kind-v1.js';
import { checkForgedReasoningRun, reasoningInputOf, reasoningUnitsDone } from './report-poem.js';

/** Forged-reasoning runs: read as stored (their stored scores have no recomputation), diffed against the PoEM paper. */
export const forgedReasoningRunKind: RunKindV1 = {
  specificationVersion: 'v1',
  id: 'forged-reasoning',
  report: {
    check: checkForgedReasoningRun,
    unitsDone: (run) => reasoningUnitsDone(run.runDir),
    // Its manifest does not always record its planned units: planned as the follow-ups plan theirs.
    plannedUnits: followUpPlannedUnits,
    tableInput: (run) => ({ forgedReasoning: reasoningInputOf(run) }),
    paper: 'poem',
  },
  viewer: { index: 'generic' },
};
