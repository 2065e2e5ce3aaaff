// The `zep-oracle-output-filter` arm (reference `postprocess`): the output filter on the Zep oracle's revoked facts.
import { revokedByFilterDifference } from '../../guard/output-filter.js';
import { UnsupportedFeatureError } from '#core/errors.js';
import type { DefenceV1, Review, ReviewInput } from './defence-v1.js';
import { outputFilterReview } from './output-filter.js';
import { HYPOTHETICAL_ORACLE, ORACLE_FILTER_NOT_APPLICABLE } from './zep-oracle-filter.js';

/** The output filter with the oracle's revoked set (default read minus the oracle's filtered read, spec §7.3). */
async function review(input: ReviewInput): Promise<Review> {
  if (!input.reads?.oracleFiltered)
    throw new UnsupportedFeatureError(
      'the oracle output filter',
      'a unit without oracle labels',
      ORACLE_FILTER_NOT_APPLICABLE,
    );
  return outputFilterReview(input, revokedByFilterDifference(input.reads.default, input.reads.oracleFiltered));
}

/** The paper's output-filter cell for Zep CE (reference `postprocess`): the `none` reply, blocked on the oracle's revoked facts. */
export const zepOracleOutputFilterDefence = {
  specificationVersion: 'v1',
  id: 'zep-oracle-output-filter',
  label: `output filter on the Zep oracle's revoked facts, ${HYPOTHETICAL_ORACLE}`,
  arm: { referenceName: 'postprocess' },
  uses: [],
  create: () => ({ reuseReplyOf: 'none', review, requiresOracle: ORACLE_FILTER_NOT_APPLICABLE }),
} as const satisfies DefenceV1;
