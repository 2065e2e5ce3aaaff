// The proof-of-execution gate (poem.md §2.2) as a defence: the `--poem on` axis. A parsed decision is executed by the
// run's trusted action layer, which runs the safe action instead of a skip that no verified ledger event backs.
import { GRID_PRIOR_STEP_DESIGN } from '../suites/grid/poem-prior-step.js';
import type { DefenceV1, Review, ReviewInput } from './defence-v1.js';

/** Executes the proposed action through the layer; what counts is the executed action, not the proposed one. */
async function review(input: ReviewInput): Promise<Review | null> {
  if (input.proposedAction === null) return null;
  const trace = await input.execute(input.proposedAction);
  if (trace === null) return null;
  return { outcome: { kind: 'execute', action: trace.executedAction }, trace };
}

/** Not an arm: `--poem on` puts it after every arm's own stages. */
export const poemDefence = {
  specificationVersion: 'v1',
  id: 'poem',
  label: 'PoEM gate',
  arm: null,
  uses: [],
  create: () => ({ review }),
  /** Recorded in the manifest: which grid units run their safety step before deciding (pipeline/suites/grid/poem-prior-step.ts). */
  settingsOf: () => ({ gridPriorStep: GRID_PRIOR_STEP_DESIGN }),
} as const satisfies DefenceV1;
