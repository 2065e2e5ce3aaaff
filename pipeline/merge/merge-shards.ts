import { join, resolve } from 'node:path';
import { EvalError } from '#core/errors.js';
import { z } from 'zod';
import { type GridArgs, gridArgsOf, gridSuite } from '../suites/grid/suite.js';
import { readJsonIfExists, readJsonLines } from '../run-log/json-files.js';
import {
  runLogVersionProblem,
  unitIdOf,
  type ProbeRecord,
  type RunManifest,
  type UnitRecord,
} from '../run-log/run-log.js';
import { checkRunLog, problemText } from '../run-log/run-log-verify.js';
import { shardKeyOf, shardLabel, shardOfKey } from '../run/shard.js';
import { agreementProblems, lastProbes, probeProblems } from './merge-agreement.js';
import type { ShardRun } from './shard-run.js';

/** What passed every check: the shards in shard order and the number of units of the whole grid. */
export interface MergePlan {
  shards: ShardRun[];
  units: number;
}

/** `pnpm merge` refused: every problem found, one line each (exit 1). */
export class MergeRefusedError extends EvalError {
  /** One line per problem, naming the directory, file, unit or field. */
  readonly problems: readonly string[];
  constructor(problems: readonly string[]) {
    super('merge-refused', `not merged, nothing written:\n${problems.map((p) => `  ✖ ${p}`).join('\n')}`);
    this.problems = problems;
  }
}

/** The run-log files of a grid shard; any other file would be dropped by a merge, so a shard with one is refused. */
const GRID_FILES = ['records.jsonl', 'setup.jsonl'];

/** At most this many ids are listed per problem (then `… and N more`). */
const LISTED = 10;

const listed = (ids: readonly string[]) =>
  `${ids.slice(0, LISTED).join(', ')}${ids.length > LISTED ? `, … and ${ids.length - LISTED} more` : ''}`;

/** Reads one directory; null (its problems pushed) when it cannot take part in the cross-checks. */
function readShard(dir: string, problems: string[]): ShardRun | null {
  const runDir = resolve(dir);
  const fail = (message: string) => {
    problems.push(`${dir}: ${message}`);
    return null;
  };
  const check = checkRunLog(runDir);
  if (check.state === 'not-a-run') return fail('not a run directory (no manifest.json)');
  if (check.state === 'broken' || check.state === 'unverifiable') {
    const first = check.problems[0];
    return fail(`${check.state}: ${first ? problemText(first) : 'no detail'}; re-run this shard into a new directory`);
  }
  const manifest = readJsonIfExists<RunManifest>(join(runDir, 'manifest.json'))!;
  const version = runLogVersionProblem(manifest.version);
  if (version) return fail(version);
  if (!manifest.shard) return fail('not a shard: its run had no --shard');
  if (manifest.status !== 'success')
    return fail(`status ${manifest.status}: resume it (re-run its pnpm eval command) until it ends as success`);
  const extra = check.files.map((f) => f.file).filter((file) => !GRID_FILES.includes(file));
  if (extra.length > 0) return fail(`has run-log file(s) a grid merge does not know: ${extra.join(', ')}`);
  return {
    dir,
    runDir,
    manifest: manifest as ShardRun['manifest'],
    probes: readJsonLines<ProbeRecord>(join(runDir, 'setup.jsonl')).rows,
    records: readJsonLines<UnitRecord>(join(runDir, 'records.jsonl')).rows,
  };
}

/** Every shard index given once, none missing; each directory a different one. */
function shardSetProblems(shards: readonly ShardRun[]): string[] {
  const count = shards[0]!.manifest.shard.count;
  const problems: string[] = [];
  const counts = [...new Set(shards.map((s) => s.manifest.shard.count))];
  if (counts.length > 1)
    problems.push(
      `shards of different splits: ${shards.map((s) => `${s.dir} is ${shardLabel(s.manifest.shard)}`).join(', ')}`,
    );
  for (let index = 1; index <= count; index += 1) {
    const given = shards.filter((s) => s.manifest.shard.index === index);
    if (given.length === 0) problems.push(`shard ${index}/${count} missing: no directory given holds it`);
    if (given.length > 1)
      problems.push(`shard ${index}/${count} given ${given.length} times: ${given.map((s) => s.dir).join(', ')}`);
  }
  return problems;
}

/** Every unit of the grid exactly once, in the shard its id hashes to, and nothing that is not a unit of the grid. */
function unitProblems(shards: readonly ShardRun[], expected: ReadonlySet<string>, shardOfUnit: Map<string, number>) {
  const problems: string[] = [];
  const holders = new Map<string, ShardRun[]>();
  for (const shard of shards)
    for (const id of new Set(shard.records.map((r) => r.unitId))) holders.set(id, [...(holders.get(id) ?? []), shard]);
  const twice = [...holders].filter(([, where]) => where.length > 1);
  if (twice.length > 0)
    problems.push(
      `${twice.length} unit(s) recorded more than once: ${listed(twice.map(([id, where]) => `${id} (in ${where.map((s) => s.dir).join(' and ')})`))}`,
    );
  const strangers = [...holders.keys()].filter((id) => !expected.has(id));
  if (strangers.length > 0) problems.push(`${strangers.length} unit(s) not in this run's grid: ${listed(strangers)}`);
  for (const shard of shards) {
    const misplaced = shard.records
      .map((r) => r.unitId)
      .filter((id) => expected.has(id) && shardOfUnit.get(id) !== shard.manifest.shard.index);
    if (misplaced.length > 0)
      problems.push(`${shard.dir}: ${misplaced.length} unit(s) of another shard: ${listed([...new Set(misplaced)])}`);
  }
  const missing = [...expected].filter((id) => !holders.has(id));
  if (missing.length > 0) problems.push(`${missing.length} unit(s) missing (recorded in no shard): ${listed(missing)}`);
  return problems;
}

/**
 * Reads and checks the shard directories; throws `MergeRefusedError` listing every problem (unreadable, edited or
 * unfinished shards, a shard missing or given twice, a different spec, scenarios, code, or setup, units missing or
 * recorded twice), or returns the shards in shard order.
 */
export function planMerge(dirs: readonly string[]): MergePlan {
  const problems: string[] = [];
  const read = dirs.map((dir) => readShard(dir, problems)).filter((s): s is ShardRun => s !== null);
  if (read.length === 0) throw new MergeRefusedError(problems.length > 0 ? problems : ['no shard directory given']);
  const shards = [...read].sort((a, b) => a.manifest.shard.index - b.manifest.shard.index);
  problems.push(...shardSetProblems(shards), ...agreementProblems(shards), ...probeProblems(shards));
  const reference = shards[0]!;
  const { spec } = reference.manifest;
  let args: GridArgs;
  try {
    args = gridArgsOf(spec, spec, lastProbes(reference));
  } catch (error) {
    // A spec no grid can be planned from (a manifest of another version, or hand-made) is refused with the shards.
    const why =
      error instanceof z.ZodError
        ? error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`)
        : [String(error)];
    const manifest = join(reference.dir, 'manifest.json');
    throw new MergeRefusedError([
      ...problems,
      ...why.map((text) => `${manifest}: no grid plans from its spec: ${text}`),
    ]);
  }
  const keys = [...gridSuite.plan(args)].map((unit) => unit.key);
  const count = reference.manifest.shard.count;
  const shardOfUnit = new Map(keys.map((key) => [unitIdOf(key), shardOfKey(shardKeyOf(key), count)]));
  problems.push(...unitProblems(shards, new Set(shardOfUnit.keys()), shardOfUnit));
  if (problems.length > 0) throw new MergeRefusedError(problems);
  return { shards, units: keys.length };
}
