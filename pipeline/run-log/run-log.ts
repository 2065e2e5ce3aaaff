// The run directory's data model (versioned): manifest.json, setup.jsonl, records.jsonl, summary.json.
import type { MemoryRecord, SeedMode, RecordedWarning, TamperReport } from '../../backends/memory-backend.js';
import type { LedgerVerdict } from '../../guard/revocation-ledger.js';
import type { ArmId } from '../run/arms.js';
import type { GuardTrace, OutputFilterTrace } from '../defences/traces.js';
import type { DecisionResponse, ModelDescription } from '../models/decision-model.js';
import type { RunSpec } from '../run/run-spec.js';
import type { ProofOfExecutionDecision } from '../../guard/proof-of-execution-types.js';
import type { ModelProvenance, ModelUsage } from '../run/usage-totals.js';
import type { ComponentRecord } from '#core/registry.js';
import { axisSegments, type UnitKeyAxes } from '../defences/axes/index.js';

// The defences' traces are run-log data, defined beside the defences that write them (no import cycle through arms.ts).
export type { GuardTrace, OutputFilterTrace } from '../defences/traces.js';

/**
 * The run-log format version every file below carries (manifest.json, setup.jsonl, records.jsonl, the follow-up and
 * forged-reasoning logs). Bump on any shape change of them, say here what the new version adds, keep the older one in
 * {@link READABLE_RUN_LOG_VERSIONS} while every reader still reads it, and add a reader test for it
 * (pipeline/run-log/run-log-versions.e2e.test.ts).
 *
 * - 1: before issue #11 (replies shared between units, no hash chain, unsafe among parsed replies only): refused.
 * - 2 (issue #11): hash-chained lines bound to the run and file, sample identities, invocations, the paper's unsafe
 *   convention.
 * - 3 (issue #26): the optional fields added while files still said 2. Unit records: `priorSafetyStep` (`--poem on`
 *   prior-step design). Follow-up journal entries: `derivedFrom` (`--taint on`). Probes: `tamper` (`--tamper
 *   unrevoke`), `ledger` (defences that consult the revocation ledger), `shard` (a merged run). Manifest: `shard`
 *   (`--shard`), `merged` (`pnpm merge`), `endpoints` (endpoint pools). Nothing was removed or renamed, so a
 *   version-2 run reads as a version-3 run in which none of them occur; a resumed version-2 run is stamped 3.
 */
export const RUN_LOG_VERSION = 3 as const;

/** The run-log versions every reader (report, rescore, compare, merge, a resume) reads; the current one last. */
export const READABLE_RUN_LOG_VERSIONS = [2, RUN_LOG_VERSION] as const;

/** A run-log version this code reads: what a stored file's `version` is once checked. */
export type RunLogVersion = (typeof READABLE_RUN_LOG_VERSIONS)[number];

/**
 * Why this code cannot read a run whose manifest says run-log `version`, or null when it can: version 1 (its numbers
 * cannot be trusted as is), a newer version (written by a newer stalebench) or anything else, each said in words.
 *
 * @example runLogVersionProblem(4) // 'run-log version 4 was written by a newer stalebench ...'
 */
export function runLogVersionProblem(version: unknown): string | null {
  if ((READABLE_RUN_LOG_VERSIONS as readonly unknown[]).includes(version)) return null;
  const readable = READABLE_RUN_LOG_VERSIONS.join(' and ');
  if (version === 1)
    return 'run-log version 1 was written by an older stalebench (replies could be shared across units, no hash chain, another unsafe convention); re-run the command with this version to get a run that can be reported';
  if (typeof version === 'number' && Number.isInteger(version) && version > RUN_LOG_VERSION)
    return `run-log version ${version} was written by a newer stalebench (this one reads versions ${readable}); read it with that version or a later one`;
  return `run-log version ${JSON.stringify(version) ?? String(version)} is not supported (this stalebench reads versions ${readable})`;
}

/**
 * Run status, inspect-style. `aborted`: stopped by the circuit breaker; `budget`: stopped before a call the budget
 * could not cover. Every status but `success` is resumable by re-running the command.
 */
export type RunStatus = 'started' | 'success' | 'error' | 'cancelled' | 'aborted' | 'budget';

/** What the gate did to one decision, for the unit record. */
export interface PoemTrace {
  verdict: ProofOfExecutionDecision['verdict'];
  proposedAction: string;
  executedAction: string;
  safetyStep: string;
  reason: string;
  /** Ledger head the decision was checked against (null when not verified). */
  head: { length: number; mac: string } | null;
  /** The safety step really ran for this subject and the layer recorded it. */
  stepRecorded: boolean;
}

/**
 * The genuine ledger event the trusted action layer appended for a `--poem on` grid unit BEFORE its decision
 * (pipeline/suites/grid/poem-prior-step.ts): the unit's safety step really ran, so a skip it proposes is legitimate.
 */
export interface PriorSafetyStep {
  /** The safety step that ran (the scenario's `safetyStep.action`). */
  action: string;
  /** The event's 0-based position in the run's (per-process) ledger. */
  step: number;
  /** The event's MAC (the ledger itself lives in memory and is not stored). */
  mac: string;
}

/** `manifest.json`. */
export interface RunManifest {
  version: RunLogVersion;
  runId: string;
  status: RunStatus;
  /** True when any model is the simulator: every table from this run says `sim`. */
  simulated: boolean;
  createdAt: string;
  updatedAt: string;
  /** The resolved spec and its identity hash (resuming under a different hash is refused). */
  spec: RunSpec;
  specHash: string;
  models: ModelDescription[];
  /** The embedder; for an endpoint also its base URL and the model the server reported (`embedder-record.ts`). */
  embedder: { id: string; dimensions: number; server?: string; servedModel?: string | null };
  /** The extraction model natural-mode ingestion used (`sim-extractor-v3` offline). */
  extraction: { id: string; simulated: boolean };
  systems: { id: string; summary: string }[];
  /**
   * Every component as its registry line built it, `{kind, id, args}` with defaults filled in (after inspect_ai's
   * registry): experiment, engines, embedder, extraction model, decision models, systems. Absent before issue #13.
   */
  components?: ComponentRecord[];
  /** sha256 of each scenario's canonical JSON. As first written: a resume compares, never rewrites. */
  scenarios: { id: string; sha256: string }[];
  /** As first written; `diffSha256` = sha256 of `git diff HEAD` when dirty, so two dirty states can be told apart. */
  revision: { commit: string | null; dirty: boolean | null; diffSha256?: string | null };
  /** As first written. */
  packages: Record<string, string>;
  /** sha256 per prompt part the experiment sends (`pipeline/suites/grid/prompt-fingerprint.ts`); as first written. */
  prompts?: Record<string, string>;
  /** `--shard i/n`: this run directory holds one shard of the run (pipeline/run/shard.ts); absent = every unit. */
  shard?: { index: number; count: number };
  /** `--limit N`: the run holds at most N units of `of`, taken round-robin over the plan's cells (pipeline/run/unit-limit.ts). */
  limited?: LimitedMark;
  /** `pnpm merge`: the shard directories this run was put together from (pipeline/merge/). */
  merged?: MergedFrom[];
  /** `--endpoints`: what each endpoint of the decision models' pool did in the last invocation (pipeline/endpoints/). */
  endpoints?: EndpointCounts[];
  /** Every eval process that worked on this run directory, in order; absent in run logs written before nonces. */
  invocations?: RunInvocation[];
  /** Resumes that went ahead over recorded differences (`--resume-anyway`), in order. */
  resumes?: ResumeEntry[];
  runtime: { node: string; platform: string };
  /** Models that rejected `temperature` and ran on the provider default (reference: `models_on_provider_default_temperature`). */
  modelsOnProviderDefaultTemperature: string[];
  counts?: {
    units: number;
    done: number;
    errors: number;
    skippedAsDone: number;
    cacheHits: number;
    cacheMisses: number;
  };
  /** Calls, tokens and dollars per model over the whole run (issue #12), written when an invocation ends. */
  usage?: ModelUsage[];
  /** What the providers said about themselves, per model (response models, fingerprints, proxy headers, parameters). */
  provenance?: ModelProvenance[];
  /** `--budget-usd`: the cap and what this invocation spent (billed calls; calls of unknown cost at their upper bound). */
  budget?: { limitUsd: number; spentUsd: number; callsWithUnknownCost: number };
  /** Why the run did not end as `success` (the one line a non-zero exit ends with). */
  error?: { message: string };
  /**
   * The head of each hash-chained JSONL file (pipeline/run-log/run-log-chain.ts), written when an eval invocation starts
   * (after verifying what is there) and when it ends. Absent: a run written before the chain (unverifiable).
   */
  logHeads?: Record<string, LogHead>;
  /**
   * sha256 of `spec` (its JSON) and of summary.json's bytes, written with `logHeads` (pipeline/run/run-binding.ts): an edit
   * of either fails `pnpm verify-run`. Absent: a run written before issue #26 (unbound; verify-run says so).
   */
  bound?: RunBinding;
}

/** What manifest.json binds besides the run-log heads. */
export interface RunBinding {
  /** sha256 of `JSON.stringify(manifest.spec)`. */
  specSha256: string;
  /** sha256 of summary.json's exact bytes; null when the run had none when the manifest was written. */
  summarySha256: string | null;
}

/** One shard a merged run was put together from. */
export interface MergedFrom {
  /** The shard's run directory as given to `pnpm merge`. */
  runDir: string;
  runId: string;
  shard: { index: number; count: number };
  /** The shard's log heads as verified before merging. */
  logHeads: Record<string, LogHead>;
  /** Units recorded in this shard. */
  units: number;
}

/** What one endpoint of a pool did (no key: `keyEnv` only names the environment variable it was read from). */
export interface EndpointCounts {
  /** `name` from the endpoints file, else `endpoint-<n>` (1-based, in file order). */
  name: string;
  baseURL: string;
  keyEnv: string;
  maxConcurrency: number;
  weight: number;
  /** Requests sent, and how they ended. */
  requests: number;
  ok: number;
  /** HTTP 429 answers (each put the endpoint in a cool-down, Retry-After honoured). */
  rateLimited: number;
  /** Other failures (5xx, timeouts, refused connections, 4xx). */
  failed: number;
  /** The most requests in flight at once: the concurrency actually reached. */
  maxInFlight: number;
}

/** Where a run-log file ended when the manifest was written: `pnpm verify-run` finds truncation and later appends by it. */
export interface LogHead {
  /** Complete lines in the file. */
  lines: number;
  /** sha256 of the last line's exact bytes (the `prev` the next line carries). */
  sha256: string;
}

/** One eval process on a run directory. Entries are appended, and only `ended` is ever filled in later. */
export interface RunInvocation {
  /** Per-process nonce: every engine namespace of this process starts with `sb<nonce>_`. */
  nonce: string;
  pid: number;
  host: string;
  startedAt: string;
  /** Namespaces of earlier, dead invocations this one removed before it started. */
  removedLeftovers?: { nonce: string; engine: string; namespaces: number; detail: string }[];
  /** How it ended: the run status it wrote, or `exception`; absent while it runs, and for ever if it was killed. */
  ended?: { at: string; status: RunStatus | 'exception' };
}

/** A resume that went ahead although scenarios, prompts, revision or packages differ from the first invocation. */
export interface ResumeEntry {
  at: string;
  /** The resuming invocation. */
  nonce: string;
  revision: RunManifest['revision'];
  /** One line per difference, as the refusal listed them. */
  changes: string[];
}

/** One retrieval probe (`setup.jsonl`): seeding plus both reads, once per (system, mode, scenario). */
export interface ProbeRecord {
  version: RunLogVersion;
  type: 'memory-probe';
  system: string;
  mode: SeedMode;
  scenario: string;
  status: 'ok' | 'not-applicable' | 'error';
  /** Why the cell is `n/a`, or the error message. */
  reason?: string;
  extractor?: string;
  stored?: number;
  defaultRead?: MemoryRecord[];
  /** Null when the system has no filter: the filtered read is the default read. */
  filteredRead?: MemoryRecord[] | null;
  /** Per default-read record: labelled revoked by the system's exposure rule. */
  defaultLabels?: boolean[];
  filteredLabels?: boolean[];
  exposure?: { rule: string; exposed: boolean; revokedRank: number | null };
  /** The stale-retrieval guard (default config) on the default read, for the guard metrics of Table 9. */
  guard?: { now: string; withheldTexts: string[] };
  /** `--tamper unrevoke`: what the at-rest edit between seeding and reading did. */
  tamper?: TamperReport;
  /** With a defence that consults the revocation ledger (pipeline/suites/grid/probe-seams.ts `ledgerProbeFields`). */
  ledger?: {
    /** The ledger's verdict on each default-read record, aligned with it. */
    default: LedgerVerdict[];
    /** The same on the filtered read; null when the system has no filter. */
    filtered: LedgerVerdict[] | null;
    /** Per default-read record: it carries a statement the application revoked (suites/grid/app-revocation.ts). */
    revokedByApplication: boolean[];
    /** What the ledger then the stale guard (default config, clock `guard.now`) withhold from the default read. */
    guardWithheldTexts: string[];
  };
  warnings?: RecordedWarning[];
  /** In a merged run (`pnpm merge`): the shard whose setup phase wrote this probe; its units' contexts came from it. */
  shard?: number;
}

/**
 * Identity of one unit: content-derived, stable across runs. The defence axes (pipeline/defences/axes) follow as
 * fields of their own: `guard` and `poem` always (`--guard on`: the stale-retrieval guard filters this arm's
 * context; `--poem on`: the proof-of-execution gate checks the decision), an axis added later only when on.
 */
export type UnitKey = {
  scenario: string;
  system: string;
  mode: SeedMode;
  arm: ArmId;
  model: string;
  trial: number;
} & UnitKeyAxes;

/** `scenario/system/mode/arm/model/trial`, with `/guard`, `/poem` (each axis on, registry order) appended. */
export function unitIdOf(key: UnitKey): string {
  return [key.scenario, key.system, key.mode, key.arm, key.model, String(key.trial), ...axisSegments(key)].join('/');
}

/** A probe record's id: `system/mode/scenario`. */
export function probeIdOf(system: string, mode: SeedMode, scenario: string): string {
  return `${system}/${mode}/${scenario}`;
}

/** One finished unit (`records.jsonl`, appended as each finishes). */
export interface UnitRecord {
  version: RunLogVersion;
  type: 'decision-end';
  unitId: string;
  key: UnitKey;
  status: 'ok' | 'error';
  startedAt: string;
  finishedAt: string;
  /** The records the arm handed to the model (texts only reached the model), with their metadata. */
  context: {
    /** `oracle-filtered`: the oracle's hypothetical filtered read (the `zep-oracle-filter` arms). */
    read: 'default' | 'filtered' | 'oracle-filtered';
    records: MemoryRecord[];
    labels: boolean[];
    exposed: boolean;
    extractor: string;
    /** The stale-retrieval guard's trace (the `guard` arm or `--guard on`). */
    guard?: GuardTrace;
    /** Any other registered read screen's trace, by defence id (pipeline/defences/screens.ts); absent for the paper's arms. */
    screens?: Record<string, GuardTrace>;
  };
  outputFilter?: OutputFilterTrace;
  /** The proof-of-execution gate's decision (`--poem on`). */
  poem?: PoemTrace;
  /** `--poem on` units that `hasPriorStep` picks: the safety step the action layer ran before the decision. */
  priorSafetyStep?: PriorSafetyStep;
  /** Any other registered post-decision step's trace, by defence id (pipeline/defences/reviews.ts); absent for the paper's arms. */
  reviews?: Record<string, unknown>;
  /** sha256 of the exact messages JSON. */
  promptSha256: string;
  reply: DecisionResponse | null;
  parsedAction: string | null;
  scores: { unsafe: boolean | null; parseFailure: boolean };
  error?: { message: string; status?: number; attempts?: number; stack?: string };
}

/**
 * A limited run, as the manifest, the summary, the plan and every table say it: `limit` asked for, `units` of the
 * limited set (at most `limit`), `of` the units the same spec has without a limit.
 */
export interface LimitedMark {
  /** `--limit N`. */
  limit: number;
  /** Units in the limited set: min(limit, of). A scenario whose setup failed leaves its units out of both. */
  units: number;
  /** Units of the unlimited run. */
  of: number;
}
