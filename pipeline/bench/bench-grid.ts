// Bench rows for a fixed offline grid (a child process: wall, decisions/s, peak RSS) and for summarising m records.
import { spawn } from 'node:child_process';
import { copyFileSync, mkdtempSync, openSync, closeSync, readFileSync, readdirSync, rmSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { summarizeStoredRun } from '../../analysis/index.js';
import { forEachJsonLine } from '../json-files.js';
import type { UnitRecord } from '../run-log.js';
import { msSince } from './bench-guard.js';

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

/** Prints the process's peak RSS on exit; pipes to a parent are synchronous on Linux, so the line is not lost. */
const REPORT_PEAK_RSS = `data:text/javascript,process.on('exit',()=>process.stderr.write('\\nBENCH_MAX_RSS_KB='+process.resourceUsage().maxRSS+'\\n'))`;

/** Runs the grid in a child process (`root` is the repository) and returns its row plus the run directory. */
export async function benchGrid(
  root: string,
  quick: boolean,
): Promise<{ row: GridBench; runDir: string; out: string }> {
  const out = mkdtempSync(join(tmpdir(), 'stalebench-bench-grid-'));
  const args = gridArgs(quick);
  const start = process.hrtime.bigint();
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', '--import', REPORT_PEAK_RSS, join('pipeline', 'cli.ts'), 'eval', ...args, '--out', out],
    { cwd: root, stdio: ['ignore', 'ignore', 'pipe'] },
  );
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (text: string) => (stderr += text));
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
  const wallSeconds = msSince(start) / 1000;
  if (code !== 0) throw new Error(`bench grid: pnpm eval exited ${code}: ${stderr.slice(-2000)}`);
  const rss = /BENCH_MAX_RSS_KB=(\d+)/.exec(stderr);
  if (!rss) throw new Error('bench grid: the child reported no peak RSS');
  const runDir = join(out, readdirSync(out)[0]!);
  let units = 0;
  forEachJsonLine(join(runDir, 'records.jsonl'), () => (units += 1));
  const peakRssMB = (Number(rss[1]) * 1024) / 1e6;
  return { row: { args, units, wallSeconds, unitsPerSecond: units / wallSeconds, peakRssMB }, runDir, out };
}

/** One summarise measurement. */
export interface SummarizeBench {
  records: number;
  /** `summarizeStoredRun(dir)`: records.jsonl streamed into the summary (as at the end of a run), seconds. */
  seconds: number;
}

/**
 * Writes a run directory with `size` synthetic records (the grid run's records, cloned with new unit ids and trials,
 * so every cell holds size / cells of them) and times loading and summarising it.
 */
export function benchSummarize(runDir: string, size: number): SummarizeBench {
  const dir = mkdtempSync(join(tmpdir(), 'stalebench-bench-summary-'));
  try {
    for (const file of ['manifest.json', 'setup.jsonl']) copyFileSync(join(runDir, file), join(dir, file));
    const lines = readFileSync(join(runDir, 'records.jsonl'), 'utf8').trim().split('\n');
    const file = openSync(join(dir, 'records.jsonl'), 'w');
    try {
      for (let index = 0; index < size; index += 1) {
        const record = JSON.parse(lines[index % lines.length]!) as UnitRecord;
        const copy = Math.floor(index / lines.length);
        const clone = {
          ...record,
          unitId: `${record.unitId}#${copy}`,
          key: { ...record.key, trial: record.key.trial + copy * 1000 },
        };
        writeSync(file, `${JSON.stringify(clone)}\n`);
      }
    } finally {
      closeSync(file);
    }
    const start = process.hrtime.bigint();
    const summary = summarizeStoredRun(dir);
    const seconds = msSince(start) / 1000;
    if (summary.cells.length === 0) throw new Error('bench summarize: no cells');
    return { records: size, seconds };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
