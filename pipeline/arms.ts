// The defence arms as data (stale-retrieval.md §9). The ids are ours; the reference code's names are kept.

/** Arm ids used across runs, summaries and reports. */
export const ARM_IDS = ['none', 'store-filter', 'prompt-hardening', 'output-filter', 'filter-hardening', 'guard'] as const;
export type ArmId = (typeof ARM_IDS)[number];

/** How an arm builds the decision context. */
export interface ArmDefinition {
  id: ArmId;
  /** The reference code's arm name (`attack`, `retrieval_filter`, ...). */
  referenceName: string;
  /** Which read supplies the facts: the default read, or the system's own filtered read. */
  read: 'default' | 'filtered';
  /** Prepend the `HARDEN` prefix to the system message. */
  harden: boolean;
}

/** Arms that this build can run. `output-filter` and `guard` arrive with the defences (issue #5). */
export const ARMS: Partial<Record<ArmId, ArmDefinition>> = {
  none: { id: 'none', referenceName: 'attack', read: 'default', harden: false },
  'store-filter': { id: 'store-filter', referenceName: 'retrieval_filter', read: 'filtered', harden: false },
  'prompt-hardening': { id: 'prompt-hardening', referenceName: 'prompt_harden', read: 'default', harden: true },
  'filter-hardening': { id: 'filter-hardening', referenceName: 'hybrid', read: 'filtered', harden: true },
};

/** Ids of the arms that can run now. */
export const RUNNABLE_ARM_IDS = Object.keys(ARMS) as ArmId[];
