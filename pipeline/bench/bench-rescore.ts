// Bench rows for summarising and rescoring m records: a chained run of exactly m records built from the grid run,
// summarised in process and rescored (`pnpm rescore --check`, the chain verified first) in a child process.
import { spawn } from 'node:child_process';
import { copyFileSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { summarizeStoredRun } from '../../analysis/index.js';
import { gridDefences } from '../defences/grid-context.js';
import { isArmId } from '../defences/index.js';
import { jsonLinesOf, writeJsonAtomic } from '../run-log/json-files.js';
import { openRunLogFile } from '../run-log/run-log-chain.js';
import { readLogHeads } from '../run-log/run-log-repair.js';
import { runBinding } from '../run/run-binding.js';
import { type RunManifest, type UnitRecord, unitIdOf } from '../run-log/run-log.js';
import { msSince } from './bench-guard.js';
import { peakRssOf, REPORT_PEAK_RSS } from './peak-rss.js';

/** One size. */
export interface SummarizeBench {
  records: number;
  /** `summarizeStoredRun(dir)`: records.jsonl streamed into the summary (as at the end of a run), best of 3, s. */
  seconds: number;
  /** `pnpm rescore <dir> --check` in a child process (chain verified, every record recomputed and compared), s. */
  rescoreSeconds: number;
  /** Peak resident set size of that child, MB. */
  rescorePeakRssMB: number;
}

/**
 * Copy `copy` of a grid record: its trial moved by `copy × 1000` (even, so the PoEM prior-step design is unchanged),
 * its unit id and the unit its output filter reused renamed to match: a distinct unit the rescore re-derives as is.
 */
function cloneRecord(record: UnitRecord, copy: number): UnitRecord {
  if (copy === 0) return record;
  const key = { ...record.key, trial: record.key.trial + copy * 1000 };
  const reused = gridDefences(key).reuseReplyOf;
  return {
    ...record,
    unitId: unitIdOf(key),
    key,
    ...(record.outputFilter?.reusedUnit && reused !== null && isArmId(reused)
      ? { outputFilter: { ...record.outputFilter, reusedUnit: unitIdOf({ ...key, arm: reused }) } }
      : {}),
  };
}

/**
 * A run directory of exactly `size` records: the grid run's manifest and setup, and the records of its first trial
 * (every system, mode, arm and axis once) cloned copy after copy, a prefix of the last copy; so runs of any size hold
 * the same mix of records (lines of each length in proportion). Chained through the run log, with the heads and the
 * summary the run would write.
 */
function writeSizedRun(runDir: string, size: number): string {
  const base: UnitRecord[] = [];
  for (const { row } of jsonLinesOf<UnitRecord>(join(runDir, 'records.jsonl'))) if (row.key.trial === 0) base.push(row);
  if (base.length === 0) throw new Error(`bench summarize: ${runDir} has no records of trial 0`);
  const dir = mkdtempSync(join(tmpdir(), 'stalebench-bench-summary-'));
  for (const file of ['manifest.json', 'setup.jsonl']) copyFileSync(join(runDir, file), join(dir, file));
  const log = openRunLogFile(dir, 'records.jsonl');
  for (let written = 0; written < size; written += 1)
    log.append(cloneRecord(base[written % base.length]!, Math.floor(written / base.length)));
  const manifest = JSON.parse(readFileSync(join(dir, 'manifest.json'), 'utf8')) as RunManifest;
  // The summary first, then the manifest that binds it with the heads (as pnpm eval writes them).
  writeJsonAtomic(join(dir, 'summary.json'), summarizeStoredRun(dir));
  writeJsonAtomic(join(dir, 'manifest.json'), {
    ...manifest,
    logHeads: readLogHeads(dir),
    bound: runBinding(dir, manifest.spec),
  });
  return dir;
}

/** `pnpm rescore <dir> --check` in a child process: wall seconds and peak RSS; throws unless every value matches. */
async function timeRescore(root: string, dir: string): Promise<{ seconds: number; peakRssMB: number }> {
  const start = process.hrtime.bigint();
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', '--import', REPORT_PEAK_RSS, join('analysis', 'rescore-command.ts'), dir, '--check'],
    { cwd: root, stdio: ['ignore', 'ignore', 'pipe'] },
  );
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (text: string) => (stderr += text));
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
  const seconds = msSince(start) / 1000;
  if (code !== 0) throw new Error(`bench rescore: pnpm rescore --check exited ${code}: ${stderr.slice(-2000)}`);
  return { seconds, peakRssMB: peakRssOf(stderr, 'bench rescore') };
}

/** Builds a run of `size` records from the grid run in `runDir`, then times summarising and rescoring it. */
export async function benchSummarize(root: string, runDir: string, size: number): Promise<SummarizeBench> {
  const dir = writeSizedRun(runDir, size);
  try {
    let seconds = Number.POSITIVE_INFINITY;
    for (let repeat = 0; repeat < 3; repeat += 1) {
      const start = process.hrtime.bigint();
      const summary = summarizeStoredRun(dir);
      seconds = Math.min(seconds, msSince(start) / 1000);
      if (summary.cells.length === 0) throw new Error('bench summarize: no cells');
    }
    const rescore = await timeRescore(root, dir);
    return { records: size, seconds, rescoreSeconds: rescore.seconds, rescorePeakRssMB: rescore.peakRssMB };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
