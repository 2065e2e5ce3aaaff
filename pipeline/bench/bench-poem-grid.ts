// Bench row for PoEM inside the grid: the experiment phase's time per unit with the gate on, at a small and a large
// grid (issue #18 measured 393 → 2,306 µs per unit from 900 to 27k units when each check re-verified the ledger).
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { forEachJsonLine } from '../run-log/json-files.js';
import type { UnitRecord } from '../run-log/run-log.js';
import { runEvalChild } from './bench-grid.js';

/** One grid size. */
export interface PoemGridSize {
  /** `--trials`. */
  trials: number;
  /** Units recorded, every one with the PoEM gate on. */
  units: number;
  /** From the first unit's start to the last unit's end (the records' own clocks), s. */
  experimentSeconds: number;
  /** experimentSeconds / units, µs: flat across sizes when the gate's check is O(1). */
  microsPerUnit: number;
}

/** The row: both sizes, and the large one's µs per unit over the small one's (1 = flat). */
export interface PoemGridBench {
  args: string[];
  sizes: PoemGridSize[];
  ratio: number;
}

/** Every system, both modes, the six arms, guard off, PoEM on: 594 units per trial. */
const POEM_GRID_ARGS = [
  '--model',
  'sim',
  '--modes',
  'direct,natural',
  '--arms',
  'none,store-filter,prompt-hardening,output-filter,filter-hardening,guard',
  '--guard',
  'off',
  '--poem',
  'on',
  '--no-cache',
];

/**
 * Runs the PoEM-on grid at 2 and 45 trials (1,188 and 26,730 units) in child processes; with `quick`, graphiti only
 * at 1 and 4 trials (108 and 432 units).
 */
export async function benchPoemGrid(root: string, quick: boolean): Promise<PoemGridBench> {
  const args = quick ? [...POEM_GRID_ARGS, '--systems', 'graphiti'] : POEM_GRID_ARGS;
  const sizes: PoemGridSize[] = [];
  for (const trials of quick ? [1, 4] : [2, 45]) {
    const { runDir, out } = await runEvalChild(root, [...args, '--trials', String(trials)], 'bench PoEM grid');
    try {
      let units = 0;
      let first = Number.POSITIVE_INFINITY;
      let last = Number.NEGATIVE_INFINITY;
      forEachJsonLine<UnitRecord>(join(runDir, 'records.jsonl'), (record) => {
        if (!record.key.poem) throw new Error(`bench PoEM grid: unit ${record.unitId} ran with the gate off`);
        units += 1;
        first = Math.min(first, Date.parse(record.startedAt));
        last = Math.max(last, Date.parse(record.finishedAt));
      });
      if (units === 0) throw new Error('bench PoEM grid: no units recorded');
      const experimentSeconds = (last - first) / 1000;
      sizes.push({ trials, units, experimentSeconds, microsPerUnit: (experimentSeconds * 1e6) / units });
    } finally {
      rmSync(out, { recursive: true, force: true });
    }
  }
  return { args, sizes, ratio: sizes[1]!.microsPerUnit / sizes[0]!.microsPerUnit };
}
