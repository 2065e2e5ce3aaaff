// The suite contract (types only, issue #27 item 1): what one kind of measurement declares so one runner can plan,
// shard, resume, record, summarise and report it. Shaped like decision-model.ts: a version literal, a few members.
//
// The experiments of `pnpm eval` (grid, follow-ups, forged reasoning) are wrapped by its sibling, EvalPhaseV1
// (eval-phase-v1.ts), which adds what a run that calls models needs (components, preflight, cost plan, budget, the
// models a unit calls). The units of each of them are a SuiteV1 too (pipeline/suites/<suite>/suite.ts: the grid's,
// forged reasoning's, the follow-ups'), run by the registered suites' unit runner (pipeline/suites/suite-units.ts).
// Every run opens its directory through run-session.ts.
import type { z } from 'zod';
import type { SarifFinding } from './sarif-finding.js';
import type { ThresholdSuite } from './thresholds.js';

/** One unit of work: the runner records one chained line per unit, keyed by `id`. */
export interface SuiteUnit {
  /**
   * Stable id, unique in the plan (`reference/T6`): resume skips a unit whose id is recorded, and `--shard i/n`
   * places a unit by the hash of its id alone, so adding units never moves another one.
   */
  readonly id: string;
  /** The table cell the unit belongs to (`reference`): `--limit` and the progress group units by it. */
  readonly cell: string;
  /**
   * Units of a later stage start only once every unit of the earlier stages has been recorded (forged reasoning's
   * attacker loops after its trials); default 0.
   */
  readonly stage?: number;
  /**
   * Units of one group share what the suite's `openGroup` opens for them (a memory system loaded once): opened before
   * the group's first pending unit of a stage runs, closed once they have all settled. Groups run one after another,
   * in the order they first appear in the plan; default: no group.
   */
  readonly group?: string;
}

/** What a suite opened for one group of units: handed to each of its units, closed after the last. */
export interface SuiteGroupV1<Group> {
  /** What each unit of the group receives as `context.group`. */
  readonly shared: Group;
  /** The group's units in flight at once (default: the run's concurrency). */
  readonly concurrency?: number;
  /** Runs one unit's work inside the group (an engine's exclusive section, a batch round); default: as it is. */
  run?<T>(unit: SuiteUnit, work: () => Promise<T>): Promise<T>;
  /** Releases what was opened; called once, after every unit of the group has settled or did not start. */
  close(): Promise<void>;
}

/**
 * Where a suite's records live when they are not the runner's own `{unit, cell, record}` lines in `records.jsonl`:
 * a record that carries its own unit id is the line, in its own file (the experiments of `pnpm eval`, whose record
 * files predate the contract and are read by analysis as they are).
 */
export interface SuiteRecordsV1<Record> {
  /** The chained records file in the run directory (`forged-reasoning.jsonl`). */
  readonly file: string;
  /** The unit id a record belongs to (the last record of a unit wins, so a retried unit supersedes its error). */
  unitOf(record: Record): string;
}

/** What the runner hands every unit. */
export interface SuiteUnitContext<Setup, Group = undefined> {
  /** What `setup` returned (undefined without one). */
  readonly setup: Setup;
  /** What `openGroup` opened for the unit's group (undefined for a unit of no group). */
  readonly group: Group;
  /** Aborted when the run is stopped; a unit that sees it may end early. */
  readonly signal: AbortSignal;
  /** One progress line (stderr in the CLI), never a result. */
  readonly progress: (line: string) => void;
  /** A scratch directory of this unit inside the run directory (made when first read), removed when the unit is recorded. */
  readonly workDir: string;
}

/** What `summarize` and the renderers know of the run besides its records. */
export interface SuiteRunInfo {
  /** ISO time the run directory was first started (kept across resumes). */
  readonly startedAt: string;
  /** The command line as typed (`pnpm integrity --target reference`). */
  readonly command: string;
  /** Node version and platform of the invocation that wrote the summary. */
  readonly runtime: { readonly node: string; readonly platform: string };
}

/** Renders a summary for `pnpm report` (pure: the same summary gives the same bytes). */
export interface SuiteReportV1<Summary> {
  /** The suite id this renders (the manifest's `suite`). */
  readonly suite: string;
  /** Output file name → its content (`scorecard.md`, `scorecard.html`, `scorecard.json`). */
  render(summary: Summary): Record<string, string>;
  /** What `pnpm report` prints to stdout. */
  text(summary: Summary): string;
}

/**
 * What CI needs of a suite (the stalebench action, pipeline/ci/; `--sarif` of its commands): its command, what its
 * `--fail-on` rules name, what its exit codes mean and its SARIF findings. A suite without it is not offered to CI.
 */
export interface SuiteCiV1<Summary> {
  /**
   * The command users type for it, as a repository-relative script and its leading arguments (`pnpm integrity`:
   * `pipeline/suites/integrity/harness/integrity-command.ts`); it takes `-o DIR`, `--shard`, `--fail-on` and `--sarif`.
   * Absent: `pnpm eval --suite <id>`.
   */
  readonly command?: { readonly script: string; readonly args: readonly string[] };
  /** What its `--fail-on` rules may name (its metrics, cell fields and keywords). */
  readonly gate: ThresholdSuite;
  /** What each of its exit codes means, for the job summary (a code not listed is shown as a number). */
  readonly exitMeanings: Readonly<Record<number, string>>;
  /** Its stored summary (`summary.json`) read and checked; throws `InvalidInputError` naming the file. */
  readSummary(path: string): Summary;
  /** One SARIF finding per failing cell of a summary. */
  findings(summary: Summary): SarifFinding[];
}

/**
 * A suite: one kind of measurement the runner (pipeline/suites/run-suite.ts) carries through plan → lock → setup →
 * units → summary → manifest, with resume, shards, merge, `pnpm verify-run` and `pnpm report` for free.
 *
 * @example const integrity: SuiteV1<IntegrityArgs, IntegrityUnit, IntegrityRecord, IntegrityReport, Targets> = {...};
 */
export interface SuiteV1<
  Args,
  Unit extends SuiteUnit,
  Record,
  Summary,
  Setup = undefined,
  Group = undefined,
  Info extends SuiteRunInfo = SuiteRunInfo,
> {
  /** The contract version this suite implements. */
  readonly specificationVersion: 'v1';
  /** Registry id, written into the manifest (`integrity`). */
  readonly id: string;
  /** The suite's own arguments (checked before anything runs; their JSON is the run's spec and identity). */
  readonly args: z.ZodType<Args>;
  /**
   * Every unit of the run, in order (pure: the same args give the same ids): a list, or units made as they are pulled
   * (the grid's, never all held at once) by an iterable whose every walk starts afresh: the runner walks it more than
   * once, and refuses a one-shot iterator (a generator object).
   */
  plan(args: Args): Iterable<Unit>;
  /** Once per invocation before the first unit runs (load targets, check prerequisites); may throw to refuse. */
  setup?(args: Args, progress: (line: string) => void): Promise<Setup>;
  /** Its own records file and line (default: the runner's `{unit, cell, record}` lines in `records.jsonl`). */
  readonly records?: SuiteRecordsV1<Record>;
  /** A recorded unit that `--retry-errors` runs again (default: none; a recorded unit is done). */
  rerun?(record: Record): boolean;
  /**
   * A record this invocation wrote whose unit runs once more at the end of the invocation, its new line superseding
   * the first (the grid: a failure on the endpoint's side, so a transient 5xx does not cost a good run its unit);
   * default: none.
   */
  retryOnce?(record: Record): boolean;
  /**
   * Opens what the pending units of `group` (in plan order) share, before the first of them runs; may throw to end
   * the run (nothing of the group is then recorded). Needed by a suite whose units name a group.
   */
  openGroup?(group: string, units: readonly Unit[], setup: Setup): Promise<SuiteGroupV1<Group>>;
  /** Runs one unit and returns its record (JSON); a failure the suite can describe is a record, not a throw. */
  runUnit(unit: Unit, context: SuiteUnitContext<Setup, Group>): Promise<Record>;
  /**
   * The run's result from its stored records, one per unit (pure: what `pnpm report` and `pnpm merge` recompute).
   * `run` is what else it reads of the run: an experiment of `pnpm eval` reads its manifest there.
   */
  summarize(records: readonly Record[], args: Args, run: Info): Summary;
  /** The process exit code for a summary (0 = the check passes). */
  exitCode(summary: Summary, args: Args): number;
  /**
   * The renderers `pnpm report` and the command use; absent for an experiment of `pnpm eval`, whose run kind
   * (analysis/run-kinds) reports its runs.
   */
  readonly report?: SuiteReportV1<Summary>;
  /** What CI needs of it (the stalebench action, `--sarif`); absent: not offered to CI. */
  readonly ci?: SuiteCiV1<Summary>;
}
