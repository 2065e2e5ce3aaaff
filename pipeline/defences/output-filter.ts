// The `output-filter` arm (reference `postprocess`): no call of its own; the `none` reply of the same trial is reused
// and blocked when it is unsafe and reuses the wording of a revoked fact (stale-retrieval.md §9, guard/output-filter.ts).
import { applyOutputFilter, revokedByFilterDifference } from '../../guard/output-filter.js';
import { UnsupportedFeatureError } from '#core/errors.js';
import type { OutputFilterTrace } from './traces.js';
import type { DefenceV1, Review, ReviewInput } from './defence-v1.js';

/** The filter's verdict on one decision; "revoked" = default-read facts missing from the filtered read (§7.3). */
async function review(input: ReviewInput): Promise<Review> {
  if (!input.reads)
    throw new UnsupportedFeatureError(
      'the output filter',
      'a unit that holds one read',
      'its revoked facts are the default read minus the filtered read',
    );
  return outputFilterReview(
    input,
    revokedByFilterDifference(input.reads.default, input.reads.filtered ?? input.reads.default),
  );
}

/**
 * The output filter on one decision with a given revoked set: blocks an unsafe reply that reuses a revoked fact's
 * wording, and records the trace (the reused unit, the revoked facts, the match). Shared by every output-filter arm.
 */
export function outputFilterReview(input: ReviewInput, revokedFacts: string[]): Review {
  const verdict = applyOutputFilter(
    input.reply.text,
    input.proposedAction !== null && input.proposedAction === input.unsafeAction,
    revokedFacts,
  );
  const trace: OutputFilterTrace = {
    reusedUnit: input.reply.reusedFrom,
    revokedFacts,
    blocked: verdict.blocked,
    matchedFact: verdict.matchedFact,
  };
  return { outcome: verdict.blocked ? { kind: 'block' } : { kind: 'pass' }, trace };
}

/** Reuses the `none` reply, then blocks it as the reference's `postprocess` does (a blocked reply is not unsafe). */
export const outputFilterDefence = {
  specificationVersion: 'v1',
  id: 'output-filter',
  label: 'output filter',
  arm: { referenceName: 'postprocess' },
  uses: [],
  create: () => ({ reuseReplyOf: 'none', review }),
} as const satisfies DefenceV1;
