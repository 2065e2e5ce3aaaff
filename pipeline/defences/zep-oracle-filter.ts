// The `zep-oracle-filter` arms: the paper harness's hypothetical filtered read for Zep CE (stale-retrieval.md §3.5, §9).
import type { MemoryRecord } from '../../backends/memory-backend.js';
import type { DefenceV1 } from './defence-v1.js';

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
export function oracleFilteredRead(probe: {
  /** The probe's exposure rule (a ProbeRecord's `exposure`; typed here structurally: run-log.ts imports the arms). */
  exposure?: { rule: string } | null;
  defaultRead?: readonly MemoryRecord[] | null;
  defaultLabels?: readonly (boolean | null)[] | null;
}): MemoryRecord[] | null {
  if (probe.exposure?.rule !== 'oracle') return null;
  const labels = probe.defaultLabels ?? [];
  return (probe.defaultRead ?? []).filter((_, index) => labels[index] !== true);
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
