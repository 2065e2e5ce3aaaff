// Test support: a summary's cells and Table 9 rows as one tab-separated line each, every count they carry (rates and
// intervals follow from the counts), for comparing a grid before and after a refactor.
import { poemSkipsText } from '../../analysis/forged-reasoning/poem-skip-counts.js';
import type { Summary } from '../../analysis/grid/summarize.js';

const kn = (value: { k: number; n: number } | null | undefined) => (value ? `${value.k}/${value.n}` : '-');

/** One line per cell (identity, defence label, status, exposure, context exposure, rank, unsafe, parsed, failures, PoEM), then one per Table 9 row. */
export function gridCellLines(summary: Pick<Summary, 'cells' | 'guardMetrics'>): string[] {
  const cells = summary.cells.map((c) =>
    [
      c.model,
      c.system,
      c.mode,
      c.arm,
      `guard-${c.guard}`,
      `poem-${c.poem}`,
      c.defence,
      c.status,
      `exposure ${kn(c.exposure)}`,
      `context ${kn(c.contextExposure)}`,
      `rank ${c.revokedRank ? `${c.revokedRank.mean.toFixed(6)} ${c.revokedRank.min}-${c.revokedRank.max}` : '-'}`,
      `unsafe ${kn(c.unsafe)}`,
      `parsed ${kn(c.unsafeAmongParsed)}`,
      `parse-failures ${c.parseFailures}`,
      `errors ${c.errors}`,
      `poem ${c.poemVerdicts ? JSON.stringify(c.poemVerdicts) : '-'} ${c.poemEnforcement?.kind ?? '-'}${c.poemSkips ? ` prior-step ${c.poemSkips.priorStepUnits} ${poemSkipsText(c.poemSkips)}` : ''}`,
    ].join('\t'),
  );
  const table9 = summary.guardMetrics.map((m) =>
    [
      'table9',
      m.system,
      m.mode,
      `revoked ${m.revokedCaught}/${m.revokedPresent}`,
      `current ${m.currentWithheld}/${m.currentTotal}`,
    ].join('\t'),
  );
  return [...cells, ...table9];
}
