// The run-kind specification, version v1 (types only): what analysis/ does with a run depends on its kind, and every
// such difference is a member here, given by the kind's own file (analysis/<kind>/run-kind.ts) and found through one
// registry (analysis/run-kinds/index.ts). Nothing outside those files compares a run's kind with an id.
import type { FollowUpInput } from '../follow-ups/paper-tables-follow-up.js';
import type { LoadedRun, RunHead } from '../load-run.js';
import type { DifferenceLog } from '../recompute-diff.js';
import type { ActionParserId } from '../../pipeline/index.js';
import type { ExposureRuleOf, RunScenarios } from '../rescore-inputs.js';
import type { GridRecomputed, GridRecomputeInput } from '../grid/recompute-grid.js';
import type { UnitIndexLayout } from '../view/unit-index.js';
import type { ForgedReasoningInput } from '../tables/poem-tables.js';

/**
 * What one run adds to the tables' inputs (analysis/tables/table-definition.ts `TableInputs`): a grid run, a follow-up
 * or forged-reasoning summary, or (`own`) any value of a kind's own, which its tables read from `TableInputs.byKind`
 * under the kind's id, so a new kind adds no field here.
 */
export type RunKindTableInput =
  | { grid: LoadedRun }
  | { followUp: FollowUpInput }
  | { forgedReasoning: ForgedReasoningInput }
  | { own: unknown };

/** How `pnpm report` reads a run of this kind (runs of `pnpm eval`: tables from their records). */
export interface RunKindReport {
  /** Checks the manifest and record files the report reads; throws one `InvalidInputError` naming file, line, field. */
  check(runDir: string, manifestPath: string): void;
  /** Units recorded so far (distinct unit ids, errored ones included). */
  unitsDone(run: LoadedRun): number;
  /** Units the run's spec plans, or null while the plan is unknown (analysis/run-progress.ts). */
  plannedUnits(run: LoadedRun): number | null;
  /** The run's share of the tables' inputs, or null when it fills none. */
  tableInput(run: LoadedRun): RunKindTableInput | null;
  /** Which paper `--paper` diffs its tables against: stalebench's (data/paper/), PoEM's (data/paper/poem/), or none. */
  paper: 'stalebench' | 'poem' | null;
}

/** What a kind's recomputation hands back to `recomputeRun` (analysis/recompute-run.ts). */
export interface RunKindRecomputed {
  /** The summary the recomputed records give, in `summary.json`'s shape. */
  summary: object;
  /** Grid runs: the recomputed probes and records; null otherwise. */
  grid: GridRecomputed | null;
  /** Lines re-derived, per file. */
  lines: Record<string, number>;
  /** Systems whose exposure labels come from the store's own state (kept as stored). */
  oracleSystems: string[];
  /** What this kind keeps as stored, beyond the inputs every rescore keeps. */
  notRechecked: string[];
}

/** What a kind's recomputation is given. */
export interface RunKindRecomputeInput {
  run: RunHead;
  scenarios: RunScenarios;
  rules: Map<string, ExposureRuleOf>;
  parser: ActionParserId;
  log: DifferenceLog;
  /** Grid runs: sees every recomputed unit record in file order. */
  onGridRecord?: GridRecomputeInput['onRecord'];
}

/** How `pnpm rescore`, `recomputeRun` and the read-time check (analysis/verify-runs.ts) treat a kind's runs. */
export interface RunKindRescore {
  /** Which scenarios its runs are scored with (policy scenarios, or exploit scenarios for tool agents). */
  scenarios: 'policy' | 'exploit';
  /** Re-derives every stored record and the summary with this code, recording each difference in `log`. */
  recompute(input: RunKindRecomputeInput): Promise<RunKindRecomputed>;
  /** What `not rechecked` says about PoEM traces when the gate was on. */
  poemNotRechecked: string;
  /** `--guard-*` can be re-applied after the fact (grid reads fed no later step). */
  guardRescore: boolean;
  /** The summary as `pnpm rescore` prints it. */
  format(summary: object): string;
  /** What `--check` calls the summary's entries when all match (`cells`, `rows`). */
  summaryEntries: string;
  /** Appended to the parser-moves note (e.g. that no action parser applies), or ''. */
  parserNote: string;
}

/** How `pnpm run view` shows a kind's runs. */
export interface RunKindViewer {
  /** `grid`: units indexed by their unit keys, cells with k/n and Wilson intervals; `generic`: by cell and outcome. */
  index: UnitIndexLayout;
  /** A figures page: the HTML report's figures drawn from the run's own tables. */
  figures?: boolean;
  /** Grid transcript pages (reads, messages, parse), rebuilt with the run's scenarios of this family; absent: none. */
  transcripts?: 'policy';
  /** The dedicated sections of one stored unit line, or null when it has none (the stored line is shown). */
  sections?(row: unknown): string | null;
}

/** A run kind: the runs of one experiment of `pnpm eval` (`manifest.spec.experiment`) or of one suite (`manifest.suite`). */
export interface RunKindV1 {
  /** The version of this specification the kind follows. */
  readonly specificationVersion: 'v1';
  /** The id its manifests carry: `manifest.suite`, else `manifest.spec.experiment` (`grid` when absent). */
  readonly id: string;
  /**
   * Tables from records (`pnpm report`); absent for suite runs, whose scorecards are their suite's own `report`
   * (SuiteV1, pipeline/suites/index.ts: the one place a suite registers).
   */
  readonly report?: RunKindReport;
  /** Recomputation from stored reads and replies; absent: its runs are read as stored (with a warning). */
  readonly rescore?: RunKindRescore;
  /** The viewer's treatment of its runs. */
  readonly viewer: RunKindViewer;
}
