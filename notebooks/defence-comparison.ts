/*
 * # Defence comparison
 *
 * **Question.** The paper compares six defence arms (Table 5, stale-retrieval.md §9): no defence, the store's own
 * validity filter, prompt hardening, the output filter, filter + hardening, and the Stale-Retrieval Guard. Per
 * memory system, which arm leaves the fewest unsafe decisions, and is its advantage over "no defence" larger than
 * the sampling noise of the run?
 *
 * **Method.** Everything comes from the summary cells, recomputed from each run's stored records: for every
 * (model, mode, system, defence) the unsafe-action count k over n completed decisions, counted as the paper does
 * (§6.3: a reply that gives no action is not unsafe and stays in n; errored trials are in no n), with its Wilson
 * 95 % interval (§8); parse failures, errors and the rate over parsed replies are listed beside it. Runs are pooled
 * by adding the tallies of identical cells (a run with a spec already seen is skipped: it would replay the same
 * units). Defences with the guard or the proof-of-execution gate on top (`--guard on`, `--poem on`) are separate
 * columns (`... + stale guard`, `... + PoEM gate`). A PoEM-gated grid cell is 0 by construction (the gate cannot
 * allow any skip there, analysis/forged-reasoning/poem-enforcement.ts): it is shown as such and never named the lowest arm. For
 * each system the arm with the lowest measured rate is named, and we say whether
 * its interval overlaps the no-defence interval — overlap means the run cannot tell the two apart; no overlap is a
 * difference at roughly the 95 % level (a conservative reading; the exact matched-pair test is Table 12's job).
 *
 * **Caveats.** Rows from the offline simulator (`sim`) exercise the pipeline; they are not measurements of any
 * model. A system that never returned a revoked record has nothing to defend against: every arm is 0 there by
 * construction, which says nothing about the arms.
 */
import { BY_CONSTRUCTION_TEXT } from '../analysis/forged-reasoning/poem-enforcement.js';
import type { Notebook } from './notebook.js';
import {
  armLabel,
  distinctRuns,
  intervalsOverlap,
  markdownTable,
  percent,
  poolCells,
  proportionText,
  runsSection,
  type PooledCell,
} from './notebook-support.js';

/** The baseline every arm is compared with. */
const BASELINE = 'none';

/** One (model, mode) block: rows = systems, columns = arm labels, in first-seen order. */
function blockOf(cells: readonly PooledCell[]) {
  const systems = [...new Set(cells.map((c) => c.system))];
  const arms = [...new Set(cells.map(armLabel))];
  const at = (system: string, arm: string) => cells.find((c) => c.system === system && armLabel(c) === arm);
  return { systems, arms, at };
}

const cellText = (cell: PooledCell | undefined) => {
  if (!cell) return 'not run';
  if (cell.status !== 'ok') return `${cell.status}${cell.reason ? ` (${cell.reason})` : ''}`;
  if (cell.byConstruction) return BY_CONSTRUCTION_TEXT;
  const extra = [
    cell.parseFailures ? `unparsed ${cell.parseFailures}` : '',
    cell.errors ? `errors ${cell.errors}` : '',
    cell.parseFailures ? `unsafe | parsed ${cell.unsafeAmongParsed.k}/${cell.unsafeAmongParsed.n}` : '',
  ].filter(Boolean);
  return `${proportionText(cell.unsafe)}${extra.length > 0 ? `; ${extra.join(', ')}` : ''}`;
};

export const notebook: Notebook = {
  name: 'defence-comparison',
  question:
    'Per memory system, which defence arm leaves the fewest unsafe decisions, and is the difference from no defence larger than the noise?',
  render(input) {
    const { runs, skipped } = distinctRuns(input);
    const cells = poolCells(runs);
    const simulated = cells.some((c) => c.simulated);
    const out = ['# Defence comparison', '', `**Question.** ${this.question}`, '', runsSection(runs, skipped), ''];
    if (simulated)
      out.push(
        '**sim:** rows marked sim come from the offline simulator (decision model or natural-mode extraction); they are not measurements of any model.',
        '',
      );
    out.push(
      'Cells: unsafe k/n, rate and Wilson 95 % interval, counted as the paper does (n = completed decisions; a reply that gives no action is not unsafe and stays in n; errors are in no n); unparsed replies, errors and the rate over parsed replies follow when there are any.',
      '',
    );

    // One table per (model, mode): the arms side by side for every system.
    const best: string[][] = [];
    const groups = [...new Set(cells.map((c) => `${c.model}\u0000${c.mode}`))];
    for (const group of groups) {
      const [model, mode] = group.split('\u0000') as [string, string];
      const groupCells = cells.filter((c) => c.model === model && c.mode === mode);
      const label = groupCells[0]!.modelLabel;
      const { systems, arms, at } = blockOf(groupCells);
      // The simulator's label already says so; a real model on simulated extraction gets the tag.
      const sim = groupCells.some((c) => c.simulated) && !label.startsWith('sim') ? ' (sim)' : '';
      out.push(`## ${label} · ${mode}${sim}`, '');
      out.push(
        markdownTable(
          ['system', 'exposure', ...arms],
          systems.map((system) => {
            const any = groupCells.find((c) => c.system === system && c.status === 'ok');
            return [
              system,
              any ? `${any.exposure.k}/${any.exposure.n}` : '–',
              ...arms.map((arm) => cellText(at(system, arm))),
            ];
          }),
        ),
        '',
      );

      // The lowest arm per system, against the baseline's interval.
      for (const system of systems) {
        const baseline = at(system, armLabel({ arm: BASELINE, guard: 'off', poem: 'off' }));
        const candidates = arms
          .filter((arm) => arm !== armLabel({ arm: BASELINE, guard: 'off', poem: 'off' }))
          .map((arm) => at(system, arm))
          .filter((c): c is PooledCell => c?.status === 'ok' && !c.byConstruction && c.unsafe.n > 0);
        if (candidates.length === 0) continue;
        const lowest = Math.min(...candidates.map((c) => c.unsafe.rate!));
        const winners = candidates.filter((c) => c.unsafe.rate === lowest);
        const exposed = (baseline ?? winners[0]!).exposure.k > 0;
        const overlap = baseline?.status === 'ok' ? intervalsOverlap(winners[0]!.unsafe, baseline.unsafe) : null;
        const verdict = !exposed
          ? 'no revoked record returned: nothing to defend'
          : overlap === null
            ? 'no baseline to compare'
            : overlap
              ? 'overlaps no defence: not separable'
              : 'below no defence, intervals disjoint';
        best.push([
          label + sim,
          mode,
          system,
          baseline?.status === 'ok' ? proportionText(baseline.unsafe) : 'not run',
          winners.map(armLabel).join(', '),
          percent(lowest),
          verdict,
        ]);
      }
    }
    out.push(
      '## Lowest arm per system',
      '',
      markdownTable(['model', 'mode', 'system', 'no defence', 'lowest arm(s)', 'rate', 'against no defence'], best),
      '',
    );
    out.push('Overlapping intervals mean this run cannot separate the arms; they do not show the arms are equal.');
    return out.join('\n');
  },
};
