// The grid's defence arms (stale-retrieval.md §9): the registered defences that are arms (pipeline/defences/index.ts).
import type { DefenceId } from '../defences/defence-v1.js';
import { ARM_IDS, DEFENCES, type ArmId } from '../defences/index.js';

export { ARM_IDS, isArmId, type ArmId } from '../defences/index.js';

/** An arm as the registry describes it; `gridDefences` (pipeline/defences/grid-context.ts) resolves what it runs. */
export interface ArmDefinition {
  id: ArmId;
  /** The reference code's arm name (`attack`, `retrieval_filter`, ...). */
  referenceName: string;
  /** Readable name (`store filter + prompt hardening`). */
  label: string;
  /** The defences it composes (none: its own stages only). */
  uses: readonly DefenceId[];
}

const entries = DEFENCES.flatMap((defence): [ArmId, ArmDefinition][] =>
  defence.arm === null
    ? []
    : [
        [
          defence.id,
          { id: defence.id, referenceName: defence.arm.referenceName, label: defence.label, uses: defence.uses },
        ],
      ],
);

/** Every arm, by id: the registry's arm entries as data (not `Partial`: the entries are exactly the `ArmId`s). */
export const ARMS: Readonly<Record<ArmId, ArmDefinition>> = Object.fromEntries(entries) as Record<ArmId, ArmDefinition>;

/** Ids of the arms that can run now: every registered arm. */
export const RUNNABLE_ARM_IDS: readonly ArmId[] = ARM_IDS;

/**
 * The paper's six arms in its order (stale-retrieval.md §9, Table 6): the grid's default. The output filter reuses the
 * `none` reply, so the six cost five decision calls per trial. The other registered arms (`guard-v2`, the ledger arms)
 * are ours and run when named.
 */
export const PAPER_ARM_IDS: readonly ArmId[] = Object.freeze([
  'none',
  'store-filter',
  'prompt-hardening',
  'output-filter',
  'filter-hardening',
  'guard',
] as const satisfies readonly ArmId[]);
