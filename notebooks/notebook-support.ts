// Helpers shared by the notebooks: Markdown tables, proportions as text, run headers, pooling cells over runs.
import type { AnalysedRun } from '../analysis/compare-command.js';
import { defenceLabel } from '../analysis/defence-label.js';
import type { SummaryCell } from '../analysis/grid/summarize.js';
import { type CellAxes, cellAxesId, cellAxesOf } from '../pipeline/index.js';
import {
  addTallies,
  EMPTY_TALLY,
  tallyOf,
  unsafeCounts,
  type Proportion,
  type UnsafeCounts,
  type UnsafeTally,
} from '../analysis/unsafe-counts.js';

export { proportionText } from '../analysis/unsafe-counts.js';

/** A Markdown table; `|` inside cells is escaped. */
export function markdownTable(header: readonly string[], rows: readonly (readonly string[])[]): string {
  const line = (cells: readonly string[]) => `| ${cells.map((c) => c.replaceAll('|', '\\|')).join(' | ')} |`;
  return [line(header), line(header.map(() => '---')), ...rows.map(line)].join('\n');
}

/** `12.5%`, or `–` for no rate. */
export const percent = (value: number | null): string => (value === null ? '–' : `${(value * 100).toFixed(1)}%`);

/** `k/n (rate)` for a count without interval. */
export const countText = (k: number, n: number): string => `${k}/${n}${n === 0 ? '' : ` (${percent(k / n)})`}`;

/** The defence label used in every table: `no defence`, `stale guard`, `store filter + PoEM gate` (analysis/defence-label.ts). */
export const armLabel = (cell: Pick<SummaryCell, 'arm' | 'guard' | 'poem'>): string => defenceLabel(cell);

/** Runs with a spec already seen are dropped (same spec = same units; the response cache would replay them). */
export function distinctRuns(runs: readonly AnalysedRun[]): { runs: AnalysedRun[]; skipped: string[] } {
  const seen = new Map<string, string>();
  const kept: AnalysedRun[] = [];
  const skipped: string[] = [];
  for (const run of runs) {
    const { specHash, runId } = run.run.manifest;
    const first = seen.get(specHash);
    if (first !== undefined) skipped.push(`${run.run.runDir} (same spec as ${first})`);
    else {
      seen.set(specHash, runId);
      kept.push(run);
    }
  }
  return { runs: kept, skipped };
}

/** The "Runs" section: one line per run with its status and `sim` where simulated, plus skipped duplicates. */
export function runsSection(runs: readonly AnalysedRun[], skipped: readonly string[]): string {
  const lines = ['## Runs', ''];
  for (const { run } of runs) {
    const { manifest } = run;
    const sim = manifest.simulated ? ' — **sim**: simulated (offline simulator), not a measurement of any model' : '';
    lines.push(
      `- \`${manifest.runId}\` (${run.runDir}), status ${manifest.status}, models ${manifest.models.map((m) => m.label).join(', ')}, seed ${manifest.spec.seed}, ${manifest.spec.trials} trials${sim}`,
    );
  }
  for (const dir of skipped) lines.push(`- skipped ${dir}`);
  return lines.join('\n');
}

/**
 * A summary cell summed over runs: tallies add up and the counts are recomputed from them by the one counting function
 * (analysis/unsafe-counts.ts): `unsafe` is the paper's convention, with parse failures, errors and the among-parsed rate.
 */
export interface PooledCell
  extends Pick<SummaryCell, 'model' | 'modelLabel' | 'system' | 'mode' | 'arm' | 'status'>,
    CellAxes<'grid'>,
    UnsafeCounts {
  /** Any run's decision model or natural-mode extractor is the simulator. */
  simulated: boolean;
  reason?: string;
  runs: number;
  /** The PoEM gate overrides every skip of this cell by construction: its 0 unsafe is not a measurement. */
  byConstruction: boolean;
  exposure: { k: number; n: number };
  contextExposure: { k: number; n: number };
  /** Over exposed scenarios of all runs: the smallest, largest and mean first-revoked rank. */
  revokedRank: { mean: number; min: number; max: number } | null;
}

/** Sums cells with the same (model, system, mode, arm, axes) over runs, in first-seen order. `ok` if any run's cell is ok. */
export function poolCells(
  runs: readonly AnalysedRun[],
  keep: (cell: SummaryCell) => boolean = () => true,
): PooledCell[] {
  const pooled = new Map<
    string,
    Omit<PooledCell, keyof UnsafeCounts> & { rankSum: number; rankCount: number; tally: UnsafeTally }
  >();
  for (const { summary } of runs)
    for (const cell of summary.cells.filter(keep)) {
      const id = [cell.model, cell.system, cell.mode, cell.arm, ...cellAxesId('grid', cell)].join('\u0000');
      const entry = pooled.get(id) ?? {
        model: cell.model,
        modelLabel: cell.modelLabel,
        system: cell.system,
        mode: cell.mode,
        arm: cell.arm,
        ...cellAxesOf('grid', cell),
        status: cell.status,
        ...(cell.reason ? { reason: cell.reason } : {}),
        simulated: false,
        runs: 0,
        byConstruction: true,
        exposure: { k: 0, n: 0 },
        contextExposure: { k: 0, n: 0 },
        revokedRank: null,
        rankSum: 0,
        rankCount: 0,
        tally: { ...EMPTY_TALLY },
      };
      pooled.set(id, entry);
      entry.runs += 1;
      entry.simulated ||= cell.simulated || cell.extractor.startsWith('sim');
      if (cell.status === 'ok') entry.status = 'ok';
      if (cell.status !== 'ok') continue;
      entry.tally = addTallies(entry.tally, tallyOf(cell));
      entry.byConstruction &&= cell.poemEnforcement?.kind === 'by-construction';
      entry.exposure = { k: entry.exposure.k + cell.exposure.k, n: entry.exposure.n + cell.exposure.n };
      entry.contextExposure = {
        k: entry.contextExposure.k + cell.contextExposure.k,
        n: entry.contextExposure.n + cell.contextExposure.n,
      };
      if (cell.revokedRank) {
        const previous = entry.revokedRank;
        entry.rankSum += cell.revokedRank.mean * cell.exposure.k;
        entry.rankCount += cell.exposure.k;
        entry.revokedRank = {
          min: Math.min(previous?.min ?? Infinity, cell.revokedRank.min),
          max: Math.max(previous?.max ?? -Infinity, cell.revokedRank.max),
          mean: entry.rankSum / entry.rankCount,
        };
      }
    }
  return [...pooled.values()].map(({ rankSum: _sum, rankCount: _count, tally, ...cell }) => ({
    ...cell,
    byConstruction: cell.status === 'ok' && cell.byConstruction,
    ...unsafeCounts(tally),
  }));
}

/** Whether two Wilson intervals overlap; null when either has no trials. */
export function intervalsOverlap(a: Proportion, b: Proportion): boolean | null {
  return a.n === 0 || b.n === 0 ? null : a.low <= b.high && b.low <= a.high;
}
