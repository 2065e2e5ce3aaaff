// The registered suites (SuiteV1) on the one runner (pipeline/run/runner.ts, issue #27 item 2): plan → run directory
// (run-session.ts's, as eval's: lock, version, leftovers) → verify and repair the run log → manifest → setup → units
// (skipping recorded ones, through the unit loop every eval phase runs under) → summary → manifest with heads and binding.
import { join } from 'node:path';
import { InvalidInputError } from '#core/errors.js';
import { sha256, writeJsonAtomic } from '../run-log/json-files.js';
import { runBinding } from '../run/run-binding.js';
import type { RunDirectory } from '../run/run-session.js';
import { runThrough, type RunnerKind } from '../run/runner.js';
import { createRedactor, environmentSecrets, redactDeep, type Redactor } from '../run/redact.js';
import { RUN_LOG_VERSION, type RunManifest } from '../run-log/run-log.js';
import { prepareRunLog, readLogHeads } from '../run-log/run-log-repair.js';
import { checkSameShard, shardOfKey, shardRunId, type Shard } from '../run/shard.js';
import type { SuiteReportV1, SuiteUnit, SuiteV1 } from '../run/suite.js';
import type { SuiteManifest, SuiteSpec } from './suite-manifest.js';
import { readSuiteRecords, runSuiteUnits } from './suite-units.js';

// biome-ignore lint/suspicious/noExplicitAny: a registry holds suites of every argument, record and summary type
export type AnySuite = SuiteV1<any, SuiteUnit, any, any, any>;

/**
 * The renderers of a registered suite (`pnpm eval --suite`, `pnpm merge`, `pnpm report`); a suite without a `report`
 * member (an experiment of `pnpm eval`, reported by its run kind) cannot be registered, and this says so by name.
 */
export function suiteReport<Summary>(
  suite: Pick<SuiteV1<unknown, SuiteUnit, unknown, Summary, unknown>, 'id' | 'report'>,
): SuiteReportV1<Summary> {
  if (!suite.report)
    throw new Error(`suite ${suite.id}: it has no report member, and a registered suite renders its own runs`);
  return suite.report;
}

/** How one invocation runs a suite. */
export interface RunSuiteOptions<Args> {
  /** The suite's parsed arguments (the run's identity with the suite id, shard and limit). */
  args: Args;
  /** The run directory (created if missing; resumed if it holds the same spec). */
  runDir: string;
  /** `--shard i/n`: only the units whose id hashes to shard i (null: all). */
  shard?: Shard | null;
  /** `--limit N`: at most N units, round-robin over the plan's cells (null: all). */
  limit?: number | null;
  /** The command line as typed (recorded in the summary). */
  command: string;
  /** Progress lines (stderr in the CLI). */
  log: (line: string) => void;
  /** Stops the run between units. */
  signal?: AbortSignal;
  /** The time to record as the start of a new run (default: now). */
  now?: () => Date;
  /**
   * Redacts every record, the summary and an error message before they are written (default: the secrets of this
   * process's environment, environmentSecrets, and every key-shaped string or URL password).
   */
  redact?: Redactor;
}

/** What an invocation ends with. */
export interface SuiteRunResult<Summary> {
  runDir: string;
  runId: string;
  summary: Summary;
  exitCode: number;
  /** Units this invocation ran, and units it found recorded. */
  ran: number;
  skippedAsDone: number;
}

/** `<suite>_<hash8>` of the spec: the same command always lands in (and resumes) the same run directory. */
function suiteRunId(spec: SuiteSpec): string {
  return `${spec.suite}_${specHashOf(spec).slice(0, 8)}`;
}

const specHashOf = (spec: SuiteSpec) => sha256(JSON.stringify(spec));

/**
 * The name of the run directory a command defaults to: the spec's run id, with the shard appended, so the same
 * command always resumes the same directory.
 */
export function suiteRunDirName(suite: AnySuite, args: unknown, shard: Shard | null, limit: number | null): string {
  return shardRunId(suiteRunId(suiteSpecOf(suite, args, shard, limit)), shard);
}

/**
 * The units one invocation works on: the plan, cut to `limit` by rounds over its cells (every cell gets a unit
 * before any gets a second), then the shard's share by the hash of each id.
 */
export function selectUnits<U extends SuiteUnit>(plan: readonly U[], shard?: Shard | null, limit?: number | null): U[] {
  const ids = new Set<string>();
  for (const unit of plan) {
    if (ids.has(unit.id)) throw new Error(`suite plan: unit ${unit.id} is planned twice (a unit id names one unit)`);
    ids.add(unit.id);
  }
  let units = [...plan];
  if (limit !== null && limit !== undefined) {
    const seen = new Map<string, number>();
    const depth = units.map((unit) => {
      const n = seen.get(unit.cell) ?? 0;
      seen.set(unit.cell, n + 1);
      return n;
    });
    const cells = [...seen.keys()];
    const rank = units.map((unit, i) => depth[i]! * cells.length + cells.indexOf(unit.cell));
    units = units.filter((_, i) => rank[i]! < limit);
  }
  return shard ? units.filter((unit) => shardOfKey(unit.id, shard.count) === shard.index) : units;
}

/** The spec a run directory is bound to: suite, args, shard and limit. */
function suiteSpecOf(suite: AnySuite, args: unknown, shard?: Shard | null, limit?: number | null): SuiteSpec {
  return { suite: suite.id, args, shard: shard ?? null, limit: limit ?? null };
}

/** What a suite run prepares before anything is written: its parsed arguments, spec and units. */
interface PreparedSuite<Args> {
  args: Args;
  spec: SuiteSpec;
  specHash: string;
  units: SuiteUnit[];
}

/** A suite as the one runner (pipeline/run/runner.ts) carries it: no components to probe, no cost to confirm. */
function suiteRunnerKind<Args, Summary>(
  suite: SuiteV1<Args, SuiteUnit, unknown, Summary, unknown>,
  options: RunSuiteOptions<Args>,
): RunnerKind<PreparedSuite<Args>, SuiteUnit[], SuiteManifest, SuiteRunResult<Summary>> {
  return {
    async prepare() {
      const args = suite.args.parse(options.args);
      const spec = suiteSpecOf(suite as AnySuite, args, options.shard, options.limit);
      const units = selectUnits([...suite.plan(args)], options.shard, options.limit);
      return { args, spec, specHash: specHashOf(spec), units };
    },
    runDir: () => options.runDir,
    plan: async ({ units }) => units,
    directory: ({ specHash }) => ({
      admit: (previous) => refuseOtherRun(options.runDir, previous, suite.id, specHash, options.shard ?? null),
    }),
    run: (prepared, directory) => runSuiteIn(suite, options, prepared, directory),
  };
}

/**
 * The units a run of `suite` would work on, and its run directory, through the runner's dry run: nothing is written.
 *
 * @example const { units } = await planSuite(integritySuite, { args, runDir, command, log });
 */
export async function planSuite<Args>(
  suite: SuiteV1<Args, SuiteUnit, unknown, unknown, unknown>,
  options: RunSuiteOptions<Args>,
): Promise<{ runDir: string; units: SuiteUnit[] }> {
  const result = await runThrough(suiteRunnerKind(suite, options), { dryRun: true, log: options.log });
  if (!result.dryRun) throw new Error('planSuite: the runner ran instead of planning');
  return { runDir: result.runDir, units: result.plan };
}

/**
 * Runs (or resumes) one suite in `runDir` and returns its summary. A unit whose record is in `records.jsonl` is not
 * run again; a torn last line (a kill mid-write) is moved to `records.jsonl.torn` and its unit re-run. Throws before
 * writing anything when the directory holds another spec, another shard, or a run log that does not verify.
 *
 * @example const { summary, exitCode } = await runSuite(integritySuite, { args, runDir, command, log });
 */
export async function runSuite<Args, Summary>(
  suite: SuiteV1<Args, SuiteUnit, unknown, Summary, unknown>,
  options: RunSuiteOptions<Args>,
): Promise<SuiteRunResult<Summary>> {
  const result = await runThrough(suiteRunnerKind(suite, options), { dryRun: false, log: options.log });
  if (result.dryRun) throw new Error('runSuite: the runner planned instead of running');
  return result.outcome;
}

/** The suite's units inside its opened directory: manifest, setup, units not yet recorded, summary, final manifest. */
async function runSuiteIn<Args, Summary>(
  suite: SuiteV1<Args, SuiteUnit, unknown, Summary, unknown>,
  options: RunSuiteOptions<Args>,
  { args, spec, specHash, units }: PreparedSuite<Args>,
  directory: RunDirectory<SuiteManifest>,
): Promise<SuiteRunResult<Summary>> {
  const { runDir, log } = options;
  const { previous, invocation, nonce } = directory;
  // What is written is redacted, and the summary is computed from what was written (a resume reads the same).
  const redact = options.redact ?? createRedactor(environmentSecrets(process.env));
  const manifestPath = join(runDir, 'manifest.json');
  // The chain is checked (refusing an edited log) and a torn last line moved aside before anything is appended.
  const logHeads = prepareRunLog(runDir, previous as unknown as RunManifest | undefined, log);
  const at = (options.now ?? (() => new Date()))().toISOString();
  let manifest: SuiteManifest = {
    version: RUN_LOG_VERSION,
    runId: previous?.runId ?? suiteRunId(spec),
    suite: suite.id,
    status: 'started',
    createdAt: previous?.createdAt ?? at,
    updatedAt: at,
    spec,
    specHash,
    ...(options.shard ? { shard: options.shard } : {}),
    invocations: [...(previous?.invocations ?? []), invocation],
    runtime: { node: process.versions.node, platform: `${process.platform} ${process.arch}` },
    counts: { units: units.length, done: 0, skippedAsDone: 0 },
    logHeads,
    bound: runBinding(runDir, spec),
  };
  writeJsonAtomic(manifestPath, manifest);
  directory.written();
  const finish = (status: SuiteManifest['status'], extra: Partial<SuiteManifest>) => {
    manifest = { ...manifest, ...extra, status, updatedAt: new Date().toISOString() };
    manifest.invocations = manifest.invocations.map((entry) =>
      entry.nonce === nonce ? { ...entry, ended: { at: manifest.updatedAt, status } } : entry,
    );
    writeJsonAtomic(manifestPath, { ...manifest, logHeads: readLogHeads(runDir), bound: runBinding(runDir, spec) });
  };
  const signal = options.signal ?? new AbortController().signal;
  try {
    // One unit at a time: a suite's units may share what its setup built (a store, a server).
    const { ran, skippedAsDone } = await runSuiteUnits(suite, {
      runDir,
      units,
      setup: async () => (suite.setup ? await suite.setup(args, log) : undefined),
      concurrency: 1,
      signal,
      redact,
      log,
      onStart: (total, done) => {
        if (done > 0) log(`resuming ${runDir}: ${done} of ${total} unit(s) already recorded`);
      },
    });
    signal.throwIfAborted();
    const recorded = readSuiteRecords(suite, runDir);
    const missing = units.find((unit) => !recorded.has(unit.id));
    if (missing) throw new Error(`suite ${suite.id}: unit ${missing.id} ended without a record`);
    const records = units.map((unit) => recorded.get(unit.id)!);
    const summary = redactDeep(
      suite.summarize(records, args, {
        startedAt: manifest.createdAt,
        command: options.command,
        runtime: manifest.runtime,
      }),
      redact,
    );
    writeJsonAtomic(join(runDir, 'summary.json'), summary);
    const exitCode = suite.exitCode(summary, args);
    finish('success', { counts: { units: units.length, done: units.length, skippedAsDone }, exitCode });
    return { runDir, runId: manifest.runId, summary, exitCode, ran, skippedAsDone };
  } catch (error) {
    finish(signal.aborted ? 'cancelled' : 'error', {
      error: { message: redact(error instanceof Error ? error.message : String(error)) },
    });
    throw error;
  }
}

/** A run directory holding another suite, spec or shard is never extended. */
function refuseOtherRun(
  runDir: string,
  previous: SuiteManifest | undefined,
  suite: string,
  specHash: string,
  shard: Shard | null,
): void {
  if (!previous) return;
  const path = join(runDir, 'manifest.json');
  if (previous.suite !== suite)
    throw new InvalidInputError(path, [
      {
        path: 'suite',
        message: `this run directory holds ${previous.suite ? `a ${previous.suite} run` : 'a pnpm eval run'}, not ${suite}; pick another -o`,
      },
    ]);
  checkSameShard(runDir, previous, shard, 'pick another -o');
  if (previous.specHash !== specHash)
    throw new InvalidInputError(path, [
      {
        path: 'specHash',
        message: `this run directory holds a different ${suite} run (spec ${previous.specHash.slice(0, 8)}, yours ${specHash.slice(0, 8)}: other targets, edits or flags); pick another -o`,
      },
    ]);
}
