// A suite run directory's data model: manifest.json, the lines of records.jsonl, the spec it is bound to.
import { join, resolve } from 'node:path';
import { readJsonIfExists } from '../run-log/json-files.js';
import type { LogHead, RunBinding, RunInvocation, RunLogVersion, RunStatus } from '../run-log/run-log.js';
import type { Shard } from '../run/shard.js';

/** The chained file of a suite run: one line per unit. */
export const SUITE_RECORDS_FILE = 'records.jsonl';

/** What a suite run is bound to (its JSON is hashed into the run id and checked on every resume). */
export interface SuiteSpec {
  /** The suite id (`integrity`). */
  suite: string;
  /** The suite's parsed arguments. */
  args: unknown;
  /** `--shard i/n`, or null. */
  shard: Shard | null;
  /** `--limit N`, or null. */
  limit: number | null;
}

/** One line of records.jsonl (after the chain link `prev`). */
export interface SuiteRecordLine {
  /** The unit id (`reference/T6`). */
  unit: string;
  /** The unit's cell (`reference`). */
  cell: string;
  /** What the suite's `runUnit` returned. */
  record: unknown;
}

/**
 * manifest.json of a suite run: the fields `pnpm verify-run` checks (version, runId, status, spec, logHeads, bound)
 * are the ones of a `pnpm eval` run, so the same check, repair and signature apply; `suite` tells the two apart.
 */
export interface SuiteManifest {
  version: RunLogVersion;
  runId: string;
  /** The suite id; absent in a `pnpm eval` run. */
  suite: string;
  status: RunStatus;
  createdAt: string;
  updatedAt: string;
  spec: SuiteSpec;
  /** sha256 of the spec's JSON. */
  specHash: string;
  shard?: Shard;
  /** Every invocation on this directory, in order (`ended` absent when it was killed). */
  invocations: RunInvocation[];
  runtime: { node: string; platform: string };
  /** Units of this invocation's plan, recorded, and found recorded at its start. */
  counts: { units: number; done: number; skippedAsDone: number };
  /** The suite's exit code for the summary (absent until the run succeeds). */
  exitCode?: number;
  /** `pnpm merge`: the shard directories this run was put together from. */
  merged?: { runDir: string; runId: string; shard: Shard; logHeads: Record<string, LogHead>; units: number }[];
  error?: { message: string };
  logHeads: Record<string, LogHead>;
  bound: RunBinding;
}

/** The suite of a run directory's manifest (`integrity`), or null for a `pnpm eval` run or no run. */
export function suiteOfRunDir(dir: string): string | null {
  const suite = readJsonIfExists<{ suite?: unknown }>(join(resolve(dir), 'manifest.json'))?.suite;
  return typeof suite === 'string' ? suite : null;
}
