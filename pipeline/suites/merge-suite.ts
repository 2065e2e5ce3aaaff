// `pnpm merge` of suite shards (`pnpm integrity --shard i/n`): every shard intact, finished and of one spec, every
// unit of the plan recorded in exactly one of them; the merged run is re-chained, summarised and bound like a run.
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, renameSync, rmSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { InvalidInputError } from '#core/errors.js';
import { readJsonIfExists, readJsonLines, sha256, writeJsonAtomic } from '../run-log/json-files.js';
import { MergeRefusedError } from '../merge/merge-shards.js';
import { runBinding } from '../run/run-binding.js';
import { openRunLogFile } from '../run-log/run-log-chain.js';
import { readLogHeads } from '../run-log/run-log-repair.js';
import { checkRunLog, problemText } from '../run-log/run-log-verify.js';
import { shardLabel, type Shard } from '../run/shard.js';
import { suiteOf, type SuiteEnvironment } from './index.js';
import { selectUnits, suiteReport } from './run-suite.js';
import { SUITE_RECORDS_FILE, type SuiteManifest, type SuiteRecordLine, type SuiteSpec } from './suite-manifest.js';
import { makeDirectory } from '#core/make-directory.js';

interface SuiteShard {
  dir: string;
  manifest: SuiteManifest & { shard: Shard };
  lines: SuiteRecordLine[];
}

function readSuiteShard(dir: string, problems: string[]): SuiteShard | null {
  const runDir = resolve(dir);
  const check = checkRunLog(runDir);
  const fail = (message: string) => {
    problems.push(`${dir}: ${message}`);
    return null;
  };
  if (check.state !== 'intact')
    return fail(
      `${check.state}${check.problems[0] ? `: ${problemText(check.problems[0])}` : ''}; resume it with its command until it ends as success`,
    );
  const manifest = readJsonIfExists<SuiteManifest>(join(runDir, 'manifest.json'))!;
  if (!manifest.shard) return fail('not a shard: its run had no --shard');
  if (manifest.status !== 'success') return fail(`status ${manifest.status}: resume it with its command`);
  return {
    dir,
    manifest: manifest as SuiteShard['manifest'],
    lines: readJsonLines<SuiteRecordLine>(join(runDir, SUITE_RECORDS_FILE)).rows,
  };
}

/**
 * Checks the shard directories and writes the merged run to `out` (new; its name is the run id), through a
 * temporary sibling renamed into place. Throws `MergeRefusedError` listing every problem, with nothing written.
 */
export function mergeSuiteShards(
  dirs: readonly string[],
  out: string,
  environment: SuiteEnvironment,
): { runDir: string; summary: unknown; units: number; text: string } {
  const problems: string[] = [];
  const shards = dirs
    .map((dir) => readSuiteShard(dir, problems))
    .filter((s): s is SuiteShard => s !== null)
    .sort((a, b) => a.manifest.shard.index - b.manifest.shard.index);
  if (shards.length === 0) throw new MergeRefusedError(problems);
  const reference = shards[0]!.manifest;
  const whole: SuiteSpec = { ...reference.spec, shard: null };
  for (const shard of shards) {
    if (JSON.stringify({ ...shard.manifest.spec, shard: null }) !== JSON.stringify(whole))
      problems.push(`${shard.dir}: another run (suite, targets, edits or flags differ from ${shards[0]!.dir})`);
  }
  const count = reference.shard.count;
  for (let index = 1; index <= count; index += 1) {
    const given = shards.filter((s) => s.manifest.shard.index === index && s.manifest.shard.count === count);
    if (given.length !== 1) problems.push(`shard ${index}/${count} given ${given.length} times`);
  }
  for (const s of shards)
    if (s.manifest.shard.count !== count)
      problems.push(`${s.dir}: shard ${shardLabel(s.manifest.shard)} of another split`);
  const suite = suiteOf(reference.suite, environment);
  const units = selectUnits([...suite.plan(whole.args)], null, whole.limit);
  const byUnit = new Map<string, SuiteRecordLine>();
  for (const shard of shards)
    for (const line of shard.lines) {
      if (byUnit.has(line.unit)) problems.push(`unit ${line.unit} recorded more than once (again in ${shard.dir})`);
      byUnit.set(line.unit, line);
    }
  const missing = units.filter((unit) => !byUnit.has(unit.id)).map((unit) => unit.id);
  if (missing.length > 0) problems.push(`${missing.length} unit(s) recorded in no shard: ${missing.join(', ')}`);
  const planned = new Set(units.map((unit) => unit.id));
  const strangers = [...byUnit.keys()].filter((id) => !planned.has(id));
  if (strangers.length > 0) problems.push(`unit(s) not in the plan: ${strangers.join(', ')}`);
  if (problems.length > 0) throw new MergeRefusedError(problems);

  const runDir = resolve(out);
  const runId = basename(runDir);
  if (!/^[A-Za-z0-9._-]+$/.test(runId) || existsSync(runDir))
    throw new InvalidInputError('command line', [
      { path: '-o', message: `${runDir}: must be a new directory named with letters, digits, dot, dash, underscore` },
    ]);
  makeDirectory(dirname(runDir));
  const tmp = join(dirname(runDir), `.${runId}.merging-${randomBytes(4).toString('hex')}`);
  mkdirSync(tmp);
  try {
    const now = new Date().toISOString();
    const manifest: SuiteManifest = {
      ...reference,
      runId,
      status: 'started',
      updatedAt: now,
      spec: whole,
      specHash: sha256(JSON.stringify(whole)),
      invocations: shards.flatMap((s) => s.manifest.invocations),
      counts: { units: units.length, done: units.length, skippedAsDone: 0 },
      merged: shards.map((s) => ({
        runDir: s.dir,
        runId: s.manifest.runId,
        shard: s.manifest.shard,
        logHeads: s.manifest.logHeads,
        units: s.lines.length,
      })),
      logHeads: {},
      bound: runBinding(tmp, whole),
    };
    delete manifest.shard;
    writeJsonAtomic(join(tmp, 'manifest.json'), manifest);
    const file = openRunLogFile(tmp, SUITE_RECORDS_FILE);
    for (const unit of units) file.append(byUnit.get(unit.id)!);
    const summary = suite.summarize(
      units.map((unit) => byUnit.get(unit.id)!.record),
      whole.args,
      { startedAt: reference.createdAt, command: `pnpm merge ${dirs.join(' ')} -o ${out}`, runtime: reference.runtime },
    );
    writeJsonAtomic(join(tmp, 'summary.json'), summary);
    const exitCode = suite.exitCode(summary, whole.args);
    writeJsonAtomic(join(tmp, 'manifest.json'), {
      ...manifest,
      status: 'success',
      exitCode,
      logHeads: readLogHeads(tmp),
      bound: runBinding(tmp, whole),
    });
    renameSync(tmp, runDir);
    return { runDir, summary, units: units.length, text: suiteReport(suite).text(summary) };
  } catch (error) {
    rmSync(tmp, { recursive: true, force: true });
    throw error;
  }
}
