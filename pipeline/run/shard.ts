// `--shard i/n`: which units one worker runs. A unit's shard depends only on its own id and n, so shards are
// balanced by the hash and a unit never changes shard when the grid grows (more models, trials, scenarios).
import { join } from 'node:path';
import { InvalidInputError } from '#core/errors.js';
import { gridDefences } from '../defences/grid-context.js';
import { isArmId } from './arms.js';
import type { EvalPhaseRulesV1 } from './eval-phase-v1.js';
import { sha256 } from '../run-log/json-files.js';
import { unitIdOf, type RunManifest, type UnitKey } from '../run-log/run-log.js';
import type { RunSpec } from './run-spec.js';

/** One shard of a run: `index` of `count`, 1-based (`--shard 2/3`). */
export interface Shard {
  /** 1-based position, 1 ≤ index ≤ count. */
  index: number;
  /** How many shards the run is split into. */
  count: number;
}

/** `2/3`. */
export const shardLabel = (shard: Shard): string => `${shard.index}/${shard.count}`;

/**
 * Parses `i/n` (1 ≤ i ≤ n ≤ 1024), or `auto`: the shard the scheduler gave this process (`shardFromEnvironment`). A
 * bad value is one `InvalidInputError` naming `--shard` (and the variable, for `auto`).
 *
 * @example parseShard('2/3') // { index: 2, count: 3 }
 * @example parseShard('auto', { JOB_COMPLETION_INDEX: '1', JOB_COMPLETIONS: '3' }) // { index: 2, count: 3 }
 */
export function parseShard(value: string, env: Readonly<Record<string, string | undefined>> = process.env): Shard {
  if (value.trim() === 'auto') return shardFromEnvironment(env);
  const match = /^\s*(\d+)\s*\/\s*(\d+)\s*$/.exec(value);
  const index = Number(match?.[1]);
  const count = Number(match?.[2]);
  if (!match || count < 1 || count > 1024 || index < 1 || index > count)
    throw new InvalidInputError('command line', [
      { path: '--shard', message: `must be i/n with 1 ≤ i ≤ n ≤ 1024, or auto, e.g. 2/3 (got "${value}")` },
    ]);
  return { index, count };
}

/**
 * The schedulers `--shard auto` reads, each a 0-based index variable and a count variable. Kubernetes sets
 * `JOB_COMPLETION_INDEX` in an Indexed Job's pods; the count is not in a pod's environment, so the Job's manifest sets
 * `JOB_COMPLETIONS` to its `spec.completions` (the example in pipeline/ci/ does). A GitHub Actions matrix job gets
 * `STALEBENCH_SHARD_INDEX` / `STALEBENCH_SHARD_COUNT` from `strategy.job-index` / `strategy.job-total` (set by the
 * stalebench action; any other scheduler can set them too).
 */
const SCHEDULERS = [
  { name: 'a Kubernetes Indexed Job', index: 'JOB_COMPLETION_INDEX', count: 'JOB_COMPLETIONS' },
  { name: 'a GitHub Actions matrix', index: 'STALEBENCH_SHARD_INDEX', count: 'STALEBENCH_SHARD_COUNT' },
] as const;

/**
 * `--shard auto`: the shard from the scheduler's environment (index 0-based there, 1-based here). Refused, naming
 * the variables, when no scheduler's variables are set, when one of a pair is missing or not a whole number in
 * range, or when two schedulers' variables disagree.
 */
function shardFromEnvironment(env: Readonly<Record<string, string | undefined>>): Shard {
  const problem = (message: string) => new InvalidInputError('command line', [{ path: '--shard auto', message }]);
  const found: (Shard & { name: string })[] = [];
  for (const scheduler of SCHEDULERS) {
    const [index, count] = [env[scheduler.index], env[scheduler.count]];
    if (index === undefined && count === undefined) continue;
    if (index === undefined || count === undefined)
      throw problem(
        `${scheduler.index} and ${scheduler.count} come together (${scheduler.name}); ${index === undefined ? scheduler.index : scheduler.count} is not set`,
      );
    const [i, n] = [Number(index), Number(count)];
    if (!/^\d+$/.test(count.trim()) || n < 1 || n > 1024)
      throw problem(`${scheduler.count} must be a whole number from 1 to 1024 (got "${count}")`);
    if (!/^\d+$/.test(index.trim()) || i >= n)
      throw problem(`${scheduler.index} must be a whole number from 0 to ${n - 1} (got "${index}")`);
    found.push({ index: i + 1, count: n, name: scheduler.name });
  }
  const [first, second] = found;
  if (!first)
    throw problem(
      `no scheduler set a shard: set ${SCHEDULERS.map((s) => `${s.index} and ${s.count} (${s.name})`).join(', or ')}, or give --shard i/n`,
    );
  if (second && shardLabel(first) !== shardLabel(second))
    throw problem(`${first.name} says shard ${shardLabel(first)}, ${second.name} says ${shardLabel(second)}`);
  return { index: first.index, count: first.count };
}

/**
 * The id that decides a unit's shard: its own id, except for an arm that reuses another arm's reply (the output
 * filter reuses `none`), which goes where the reply it reuses goes, so a shard computes it exactly as one process.
 */
export function shardKeyOf(key: UnitKey): string {
  const reuses = gridDefences(key).reuseReplyOf;
  return unitIdOf(reuses !== null && isArmId(reuses) ? { ...key, arm: reuses } : key);
}

/** The 1-based shard of `count` that a shard key falls in: sha256 of the key, its first 52 bits modulo `count`. */
export function shardOfKey(shardKey: string, count: number): number {
  return (Number.parseInt(sha256(shardKey).slice(0, 13), 16) % count) + 1;
}

/** Whether `shard` runs the unit (every unit when there is no shard). */
export function inShard(shard: Shard | null | undefined, key: UnitKey): boolean {
  return !shard || shardOfKey(shardKeyOf(key), shard.count) === shard.index;
}

/** A shard's run id: `<run id>_shard2of3`, so each shard has its own directory (and lock) under one output root. */
export function shardRunId(runId: string, shard: Shard | null | undefined): string {
  return shard ? `${runId}_shard${shard.index}of${shard.count}` : runId;
}

/**
 * The shard of a spec (`spec.control.shard`). A phase that refuses `--shard` (only the grid is split) refuses it here,
 * naming `--shard`, before anything is written.
 */
export function shardOf(
  spec: Pick<RunSpec, 'experiment' | 'control'>,
  phase: Pick<EvalPhaseRulesV1<unknown, unknown>, 'refuses'>,
): Shard | null {
  const shard = spec.control.shard;
  const refused = phase.refuses.shard;
  if (shard && refused)
    throw new InvalidInputError('command line', [{ path: '--shard', message: refused(spec.experiment) }]);
  return shard;
}

/**
 * A resume must continue the same shard: a run directory started as shard 1/3 (or unsplit) is never extended by
 * another split, whose units differ. The manifest's `shard` is what the first invocation wrote.
 */
export function checkSameShard(
  runDir: string,
  previous: Pick<RunManifest, 'shard'> | undefined,
  shard: Shard | null,
  /** What to do instead, in the command's own flags (a suite's commands have no --run-id). */
  instead = 'pick another --run-id or --out',
): void {
  if (!previous) return;
  const before = previous.shard ?? null;
  if ((before === null) === (shard === null) && (before === null || shardLabel(before) === shardLabel(shard!))) return;
  throw new InvalidInputError(join(runDir, 'manifest.json'), [
    {
      path: 'shard',
      message: `this run directory holds ${before ? `shard ${shardLabel(before)}` : 'an unsplit run'}, not ${shard ? `shard ${shardLabel(shard)}` : 'an unsplit run'}; ${instead}`,
    },
  ]);
}
