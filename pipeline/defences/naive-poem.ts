// NaivePoEM (poem.md §2.4) as a defence: the ablation that lets a skip run when any ledger line names the safety step,
// whoever it was for and whether or not its MAC verifies. It exists to show that PoEM's two checks are load-bearing.
import type { DefenceV1, Review, ReviewInput } from './defence-v1.js';

/** Executes the proposed action through the run's trusted layer, its skip checked by the naive gate. */
async function review(input: ReviewInput): Promise<Review | null> {
  if (input.proposedAction === null) return null;
  const trace = await input.execute(input.proposedAction, 'naive-poem');
  if (trace === null) return null;
  return { outcome: { kind: 'execute', action: trace.executedAction }, trace };
}

/** Not a grid arm and not an axis: the forged-reasoning experiment's ablation (`--defences naive-poem`). */
export const naivePoemDefence = {
  specificationVersion: 'v1',
  id: 'naive-poem',
  label: 'NaivePoEM (ablation)',
  arm: null,
  uses: [],
  create: () => ({ review }),
} as const satisfies DefenceV1;
