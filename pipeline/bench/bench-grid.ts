// Bench row for a fixed offline grid (a child process: wall, decisions/s, peak RSS).
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { forEachJsonLine } from '../run-log/json-files.js';
import { msSince } from './bench-guard.js';
import { peakRssOf, REPORT_PEAK_RSS } from './peak-rss.js';

/** The grid: every system, both modes, all six arms, guard × PoEM; 19 trials (45,144 units), or 1 trial of one system. */
function gridArgs(quick: boolean): string[] {
  const arms = 'none,store-filter,prompt-hardening,output-filter,filter-hardening,guard';
  const scope = quick ? ['--systems', 'graphiti', '--modes', 'direct', '--trials', '1'] : ['--trials', '19'];
  return [
    '--model',
    'sim',
    '--modes',
    'direct,natural',
    ...scope,
    '--arms',
    arms,
    '--guard',
    'off,on',
    '--poem',
    'off,on',
    '--no-cache',
  ];
}

/** The grid row. */
export interface GridBench {
  /** The `pnpm eval` arguments (plus `--out <temp dir>`). */
  args: string[];
  /** Units recorded (one decision each; the output filter's reuse one). */
  units: number;
  wallSeconds: number;
  unitsPerSecond: number;
  /** Peak resident set size of the child process, MB (10⁶ bytes). */
  peakRssMB: number;
}

/** Runs the grid in a child process (`root` is the repository) and returns its row plus the run directory. */
export async function benchGrid(
  root: string,
  quick: boolean,
): Promise<{ row: GridBench; runDir: string; out: string }> {
  const args = gridArgs(quick);
  const { runDir, out, wallSeconds, peakRssMB } = await runEvalChild(root, args, 'bench grid');
  let units = 0;
  forEachJsonLine(join(runDir, 'records.jsonl'), () => (units += 1));
  return { row: { args, units, wallSeconds, unitsPerSecond: units / wallSeconds, peakRssMB }, runDir, out };
}

/**
 * `pnpm eval <args> --out <temp dir>` in a child process (`root` is the repository): its run directory, the temp
 * directory to remove, wall seconds and peak RSS. Throws naming `what` when it does not exit 0.
 */
export async function runEvalChild(
  root: string,
  args: readonly string[],
  what: string,
): Promise<{ runDir: string; out: string; wallSeconds: number; peakRssMB: number }> {
  const out = mkdtempSync(join(tmpdir(), 'stalebench-bench-grid-'));
  const start = process.hrtime.bigint();
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', '--import', REPORT_PEAK_RSS, join('pipeline', 'cli', 'cli.ts'), 'eval', ...args, '--out', out],
    { cwd: root, stdio: ['ignore', 'ignore', 'pipe'] },
  );
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (text: string) => (stderr += text));
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
  const wallSeconds = msSince(start) / 1000;
  if (code !== 0) throw new Error(`${what}: pnpm eval exited ${code}: ${stderr.slice(-2000)}`);
  return { runDir: join(out, readdirSync(out)[0]!), out, wallSeconds, peakRssMB: peakRssOf(stderr, what) };
}
