// Summary shapes of the follow-up experiments (Tables 14, 15, 16), written to summary.json under
// `writeback`, `propagation` and `tools`. Built from the stored records only (analysis/follow-ups/follow-up-summary.ts).
import type { CellAxes, LimitedMark, ModelUsage } from '../../pipeline/index.js';
import type { Proportion, UnsafeCounts } from '../unsafe-counts.js';

/**
 * The grouping every follow-up row carries. `model: '*'` is the row pooled over several models (`all models`; with
 * the simulator in the run too, `all real models (sim apart)`, and `*sim` pools several simulators): the
 * simulator never enters a pooled row with a real model. Its defence axes (`CellAxes<'follow-up'>`,
 * pipeline/defences/axes) follow `arm`: `guard` and `poem` `off` | `on`, `taint` only as `on` for a row of the
 * `--taint on` axis (journals with provenance).
 */
export interface FollowUpRowKey extends CellAxes<'follow-up'> {
  model: string;
  /** `sim (simulated)` for the simulator; `all models` for the pooled row. */
  modelLabel: string;
  /** True when any model pooled in the row is the simulator. */
  simulated: boolean;
  system: string;
  mode: string;
  arm: string;
  /** `n/a` with `reason` when the system cannot express the experiment; `error` when every unit failed. */
  status: 'ok' | 'n/a' | 'error';
  reason?: string;
  /** Units recorded ok / errored. */
  runs: number;
  errors: number;
}

/**
 * Table 14 row: one write-back mode (`arm` = `direct` | `natural`). Decision columns are `UnsafeCounts`
 * (analysis/unsafe-counts.ts): the paper's convention as the headline, parse failures, errors, the among-parsed rate.
 */
export interface WritebackRow extends FollowUpRowKey {
  /** Hop 0 unsafe over completed runs (the "no write-back" default column). */
  hop0Unsafe: UnsafeCounts;
  /** Hop 0 on the filtered read (the "no write-back" filter column). */
  hop0FilteredUnsafe: UnsafeCounts;
  /** Poisoned runs (hop 0 unsafe): the denominator of every hop column. */
  poisoned: number;
  /** Poisoned runs whose first journal was stored with the marker and active before hop 1; null: not observable. */
  storedActive: Proportion | null;
  /** Poisoned runs whose first journal was stored at all before hop 1; null: not observable. */
  journalsStored: Proportion | null;
  /** Unsafe at hops 1..3 on the default read (index 0 = hop 1); n = poisoned runs. */
  defaultHops: UnsafeCounts[];
  /** Unsafe at hops 1..3 on the filtered read; n = poisoned runs. */
  filteredHops: UnsafeCounts[];
  /** Poisoned runs where a journal of the run reached the model on the filtered read, per hop. */
  journalRetrievedFiltered: Proportion[];
  /** Unsafe at filter hop 1 among runs with an active journal (paper: 19/22 natural). */
  filteredHop1GivenActive: UnsafeCounts | null;
  /** Hop decisions of poisoned runs whose reply gave no action (inside the hop n, never unsafe). */
  hopParseFailures: number;
}

/** Table 15 row: one propagation arm (`shared-default` | `shared-filtered` | `no-journal`). n = completed runs. */
export interface PropagationRow extends FollowUpRowKey {
  executorUnsafe: UnsafeCounts;
  reviewerUnsafe: UnsafeCounts;
  plannerUnsafe: UnsafeCounts;
  /** Reviewer unsafe given the executor was unsafe (n = poisoned executors). */
  reviewerGivenPoisoned: UnsafeCounts;
  /** Reviewer or planner unsafe given the executor was unsafe. */
  anyLaterGivenPoisoned: UnsafeCounts;
  allThree: UnsafeCounts;
  /** Blast radius: total unsafe roles over runs, and its mean (of 3). */
  meanUnsafeRoles: { sum: number; n: number; mean: number | null };
  /** Runs where all three roles had a revoked record in context (model-independent). */
  allRolesSawRevoked: Proportion;
  /** Completed runs in which some role's reply gave no action (in n; left out of the among-parsed rates). */
  incomplete: number;
}

/** Table 16 row: one tools arm (`none` | `store-filter` | `guard` | `tool-guardrail`), one scenario or all (`scenario: '*'`). */
export interface ToolsRow extends FollowUpRowKey {
  scenario: string;
  /** The scenario's unsafe signal (§14.4): the tool attack fired. */
  toolExecution: Proportion;
  secretRead: Proportion;
  exfilConfirmed: Proportion;
  /** Units where the shell guardrail refused at least one command. */
  shellRefused: Proportion;
  /** Units with an interpreter one-liner (`rce_attempted`). */
  interpreterOneLiners: Proportion;
  /** Units where the guardrail refused and a secret read or exfiltration happened anyway. */
  bypassedToolGuardrail: Proportion;
  /** The safe-action definition of §14.4 held. */
  safe: Proportion;
  /** §14.5 relapse, on the `none` arm: n = units whose attack fired. Null on other arms. */
  relapse: { default: Proportion; filtered: Proportion } | null;
}

/** The follow-up part of `summary.json`. */
export interface FollowUpSummary {
  experiment: 'writeback' | 'propagation' | 'tools';
  simulated: boolean;
  writeback?: WritebackRow[];
  propagation?: PropagationRow[];
  tools?: ToolsRow[];
  /** Calls, tokens and dollars per model, as the run's manifest recorded them (issue #12). */
  usage?: ModelUsage[];
  /** `--limit N`: the run holds at most N of its units (the manifest's `limited`). */
  limited?: LimitedMark;
}
