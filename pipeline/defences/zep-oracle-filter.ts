// The `zep-oracle-filter` arms: the paper harness's hypothetical filtered read for Zep CE (stale-retrieval.md §3.5, §9).
import type { MemoryRecord } from '../../backends/memory-backend.js';
import { applyOutputFilter, revokedByFilterDifference } from '../../guard/output-filter.js';
import { UnsupportedFeatureError } from '../core/errors.js';
import type { ProbeRecord } from '../run-log.js';
import type { DefenceV1, Review, ReviewInput } from './defence-v1.js';
import type { OutputFilterTrace } from './traces.js';

/** The words every surface shows for these arms: Zep CE offers no such read to an application. */
export const HYPOTHETICAL_ORACLE = 'hypothetical (oracle)';

/** Why the oracle arms are n/a on a system whose exposure labels do not come from its store's revocation state. */
export const ORACLE_FILTER_NOT_APPLICABLE =
  "the oracle filter reads the store's own revocation state where the API hides it (Zep CE's exposure rule `oracle`); this system's labels come from another rule";

/**
 * The oracle's filtered read of a probe: the default-read records its oracle labels mark not revoked, in rank order,
 * as the paper's `zep_probe.py` built Zep's filter arm from `expired_at`/`invalid_at` read out of Zep's Neo4j. Null
 * when the probe's labels are not the oracle's (the arms are n/a there).
 */
export function oracleFilteredRead(
  probe: Pick<ProbeRecord, 'exposure' | 'defaultRead' | 'defaultLabels'>,
): MemoryRecord[] | null {
  if (probe.exposure?.rule !== 'oracle') return null;
  const labels = probe.defaultLabels ?? [];
  return (probe.defaultRead ?? []).filter((_, index) => labels[index] !== true);
}

/** The output filter with the oracle's revoked set (default read minus the oracle's filtered read, spec §7.3). */
async function review(input: ReviewInput): Promise<Review> {
  if (!input.reads?.oracleFiltered)
    throw new UnsupportedFeatureError('the oracle output filter', 'a unit without oracle labels', ORACLE_FILTER_NOT_APPLICABLE);
  const revokedFacts = revokedByFilterDifference(input.reads.default, input.reads.oracleFiltered);
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

/**
 * The paper's store-filter cell for Zep CE (reference `retrieval_filter`): the facts the oracle marks not revoked.
 * Hypothetical: CE's API hides `expired_at`/`invalid_at`, so no application can make this read.
 */
export const zepOracleFilterDefence = {
  specificationVersion: 'v1',
  id: 'zep-oracle-filter',
  label: `Zep oracle filter, ${HYPOTHETICAL_ORACLE}`,
  arm: { referenceName: 'retrieval_filter' },
  uses: [],
  create: () => ({ read: 'oracle-filtered', requiresOracle: ORACLE_FILTER_NOT_APPLICABLE }),
} as const satisfies DefenceV1;

/** The paper's filter-hardening cell for Zep CE (reference `hybrid`): the oracle's filtered read, hardened prompt. */
export const zepOracleFilterHardeningDefence = {
  specificationVersion: 'v1',
  id: 'zep-oracle-filter-hardening',
  label: `Zep oracle filter + prompt hardening, ${HYPOTHETICAL_ORACLE}`,
  arm: { referenceName: 'hybrid' },
  uses: ['zep-oracle-filter', 'prompt-hardening'],
  create: () => ({}),
} as const satisfies DefenceV1;

/** The paper's output-filter cell for Zep CE (reference `postprocess`): the `none` reply, blocked on the oracle's revoked facts. */
export const zepOracleOutputFilterDefence = {
  specificationVersion: 'v1',
  id: 'zep-oracle-output-filter',
  label: `output filter on the Zep oracle's revoked facts, ${HYPOTHETICAL_ORACLE}`,
  arm: { referenceName: 'postprocess' },
  uses: [],
  create: () => ({ reuseReplyOf: 'none', review, requiresOracle: ORACLE_FILTER_NOT_APPLICABLE }),
} as const satisfies DefenceV1;
