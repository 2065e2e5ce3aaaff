// The defence specification, version 1 (types only): what a defence may do to one unit's read, prompt and decision.
import type { MemoryRecord } from '../../backends/memory-backend.js';
import type { LedgerVerdict } from '../../guard/revocation-ledger.js';

/** Registry id of a defence; a defence with `arm` set is also the grid arm of that id. Open union. */
export type DefenceId =
  | 'none'
  | 'store-filter'
  | 'prompt-hardening'
  | 'output-filter'
  | 'filter-hardening'
  | 'guard'
  | 'poem'
  | 'sentinel-style'
  | 'naive-poem'
  | 'taint'
  | (string & {});

/** What a read-stage screen is given: the retrieved records and the clock of the read. */
export interface ScreenInput {
  /** The records the read returned (after any earlier screen), in the store's rank order; never modified. */
  records: readonly MemoryRecord[];
  /** The read's clock: the run's clock when the read was made, the recorded one when a run is rescored. */
  now: Date;
  /** The revocation ledger's verdict on each record, aligned with `records`; absent when the read was not judged by one. */
  ledger?: readonly LedgerVerdict[];
}

/** A record a screen held back from the model. It is hidden from this read only; nothing is deleted. */
export interface WithheldRecordTrace {
  /** 0-based position in `ScreenInput.records`. */
  index: number;
  /** The record's text. */
  text: string;
  /** Why, in words; compared byte for byte when a run is rescored. */
  reason: string;
  /** Which rule of the screen fired (the stale guard: `explicit` or `conflict`). */
  stage: string;
  /** The newer record this one conflicts with, when the rule says so. */
  supersededBy?: string;
}

/** A screen's verdict on one read, as data: what the model sees and why the rest does not reach it. */
export interface ScreenVerdict {
  /** Positions in `ScreenInput.records` of the records passed on, ascending: only these reach the model. */
  kept: number[];
  /** Records held back, each with its reason. */
  withheld: WithheldRecordTrace[];
  /** Notes for the record (unresolved conflicts, summaries). */
  notes: string[];
}

/** The action a decision ends in, after a post-decision step. */
export type ReviewOutcome =
  /** The proposed action stands (or there was none). */
  | { kind: 'pass' }
  /** Nothing is executed: the decision is blocked and does not count as unsafe; later steps do not run. */
  | { kind: 'block' }
  /** `action` is executed instead of (or as) the proposed one, and scored. */
  | { kind: 'execute'; action: string };

/** Which proof-of-execution gate checks an execution: the PoEM gate (poem.md §2.2) or the NaivePoEM ablation (§2.4). */
export type ExecutionGate = 'poem' | 'naive-poem';

/** What a trusted executor did with a proposed action (the action layer of a run, or its replay on rescore). */
export interface ExecutedAction {
  /** The action that ran. */
  executedAction: string;
}

/** What a post-decision step is given: the decision and the unit's context. */
export interface ReviewInput {
  /** The action parsed from the reply; null when the reply gave none. */
  proposedAction: string | null;
  /** The scenario's unsafe action (what counts as unsafe when executed). */
  unsafeAction: string;
  /** The reply text ('' for a gated tool call, which has none of its own), and the unit whose reply it is when the arm reused another unit's reply (else null). */
  reply: { text: string; reusedFrom: string | null };
  /** Texts of the unit's default read and of the system's filtered read (null: none); null when the unit holds one read only. */
  reads: {
    default: readonly string[];
    filtered: readonly string[] | null;
    /** The default read minus the records the oracle labels revoked (hypothetical); absent or null without oracle labels. */
    oracleFiltered?: readonly string[] | null;
  } | null;
  /**
   * Executes an action through the run's trusted layer for this decision, its skip checked by `gate` (default
   * `poem`); null when it cannot tell (a rescore without the record's trace). A layer without that gate throws.
   */
  execute(proposedAction: string, gate?: ExecutionGate): Promise<ExecutedAction | null>;
}

/** A post-decision step's result: the outcome, and the trace the unit record keeps. */
export interface Review {
  /** What happens to the decision. */
  outcome: ReviewOutcome;
  /** JSON data for the record (the output filter's verdict, the PoEM gate's trace). */
  trace: unknown;
}

/** The stages of one defence, as its factory creates them; every stage is optional and each is data or a pure step. */
export interface DefenceStagesV1 {
  /**
   * Ask the memory system for its own filtered read (its `storeFilter`) instead of the default read; `oracle-filtered`:
   * the default-read records the system's revocation oracle marks not revoked (hypothetical: Zep CE hides that state).
   */
  read?: 'filtered' | 'oracle-filtered';
  /** The defence needs oracle exposure labels (`exposure.rule === 'oracle'`); elsewhere its units are n/a for this reason. */
  requiresOracle?: string;
  /** The screens need the revocation ledger's verdicts: the setup phase writes through the ledger client and records them. */
  ledger?: 'consult';
  /** Screens the retrieved records: only the kept ones reach the model. Pure: the same input gives the same verdict. */
  screen?(input: ScreenInput): ScreenVerdict;
  /** Text put in front of the decision's system message. */
  systemPrefix?: string;
  /** Make no decision call: reuse the reply of the same trial under this arm (the output filter reuses `none`). */
  reuseReplyOf?: DefenceId;
  /** After the decision: may block it or change what is executed. Resolves to null when it has nothing to say. */
  review?(input: ReviewInput): Promise<Review | null>;
  /**
   * Taint-carrying write-back (issue #19): a journal records the ids of the records its decision read
   * (`InsertRequest.derivedFrom`) and every read asks the system to resolve them (`SearchRequest.taint`), so the
   * filtered read drops, and the guard's stage 1 withholds, a journal derived from a revoked record. Only experiments
   * that write journals can apply it.
   */
  taint?: true;
}

/**
 * A defence: one file exporting one of these, plus one line in `pipeline/defences/index.ts`. A defence composes
 * others by id (`uses`, run first) and adds its own stages; the grid, the follow-ups and rescore all apply it
 * through the registry, never by name.
 *
 * @example
 * export const storeFilterDefence = {
 *   specificationVersion: 'v1', id: 'store-filter', label: 'store filter',
 *   arm: { referenceName: 'retrieval_filter' }, uses: [], create: () => ({ read: 'filtered' }),
 * } as const satisfies DefenceV1;
 */
export interface DefenceV1 {
  /** The version of this specification the defence implements. */
  readonly specificationVersion: 'v1';
  /** Registry id (kebab case); also the arm id (`--arms`) when `arm` is set. */
  readonly id: DefenceId;
  /** Readable name for reports (`store filter`); composed arms join their parts' labels. */
  readonly label: string;
  /** As a grid arm: the reference code's arm name. Null: not an arm of its own (an axis such as `--poem on`). */
  readonly arm: { readonly referenceName: string } | null;
  /** Defences whose stages run before this one's own, by id (composition as data). */
  readonly uses: readonly DefenceId[];
  /** Creates the stages; `settings` is validated (an `InvalidInputError` names the field); none gives the run's defaults. */
  create(settings?: unknown): DefenceStagesV1;
  /**
   * The settings `create(settings)` runs with, defaults filled in, as the manifest records them (`{}` when absent:
   * a defence with no settings). Validates like `create`.
   */
  settingsOf?(settings?: unknown): Record<string, unknown>;
}
