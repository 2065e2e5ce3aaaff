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
  /** Pass the context records through the stale-retrieval guard; only kept texts reach the model. */
  guard: boolean;
  /**
   * `output-filter`: no decision call of its own; the reply of the `none` arm for the same trial is reused and
   * the reference output filter decides whether it would have been blocked.
   */
  derivedFrom?: 'none';
}

/** The six arms of the paper's Table 5, as the reference code runs them. */
export const ARMS: Partial<Record<ArmId, ArmDefinition>> = {
  none: { id: 'none', referenceName: 'attack', read: 'default', harden: false, guard: false },
  'store-filter': { id: 'store-filter', referenceName: 'retrieval_filter', read: 'filtered', harden: false, guard: false },
  'prompt-hardening': { id: 'prompt-hardening', referenceName: 'prompt_harden', read: 'default', harden: true, guard: false },
  'output-filter': { id: 'output-filter', referenceName: 'postprocess', read: 'default', harden: false, guard: false, derivedFrom: 'none' },
  'filter-hardening': { id: 'filter-hardening', referenceName: 'hybrid', read: 'filtered', harden: true, guard: false },
  guard: { id: 'guard', referenceName: 'guard', read: 'default', harden: false, guard: true },
};

/** Ids of the arms that can run now. */
export const RUNNABLE_ARM_IDS = Object.keys(ARMS) as ArmId[];
