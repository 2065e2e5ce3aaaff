// The viewer's comparison of two runs: `pnpm compare`'s cells (compareRuns, B − A), each with links to its units and a
// transcript in both runs.
import { axesOf, axisOn } from '../../pipeline/index.js';
import { compareRuns, loadAnalysedRun, type CellKey, type RunComparison } from '../compare-command.js';
import { defenceLabel } from '../defence-label.js';
import { BY_CONSTRUCTION_TEXT } from '../forged-reasoning/poem-enforcement.js';
import { proportionText, type Proportion } from '../unsafe-counts.js';
import { escapeHtml, frame, verifyWarning } from './pages.js';
import type { RunEntry } from './run-catalog.js';
import type { UnitIndex } from './unit-index.js';

/** One side of the comparison page: the run's entry and its unit index (for links to a cell's first transcript). */
export interface CompareSide {
  entry: RunEntry;
  index: UnitIndex | null;
}

/** A cell's dimensions on the run page: these, then its defence axes (pipeline/defences/axes). */
const CELL_DIMS = ['model', 'system', 'mode', 'arm', ...axesOf('grid').map((axis) => axis.id)] as const;
const BASE_DIMS: readonly string[] = ['model', 'system', 'mode', 'arm'];

/** A cell's value on a dimension: its field, or `on`/`off` for an axis (an absent axis is off). */
const valueOf = (cell: CellKey, dim: string): string =>
  BASE_DIMS.includes(dim) ? cell[dim as 'model' | 'system' | 'mode' | 'arm'] : axisOn(cell, dim) ? 'on' : 'off';

/** The run page filtered to the cell (`#model=...&system=...`): its units, each linking to its transcript. */
const cellHash = (cell: CellKey) =>
  CELL_DIMS.map((dim) => `${encodeURIComponent(dim)}=${encodeURIComponent(valueOf(cell, dim))}`).join('&');

/** The first unit of `cell` in the index (its transcript's number), or null. */
function firstUnitOf(index: UnitIndex | null, cell: CellKey): number | null {
  if (!index?.data.keyed) return null;
  const { dims, values, rows } = index.data;
  const wanted = CELL_DIMS.map((dim) => values[dim]!.indexOf(valueOf(cell, dim)));
  if (wanted.some((v) => v < 0)) return null;
  const columns = CELL_DIMS.map((dim) => dims.indexOf(dim));
  const at = rows.findIndex((row) => columns.every((column, i) => row[column] === wanted[i]));
  return at < 0 ? null : at;
}

const points = (value: number | null) =>
  value === null ? '–' : `${value >= 0 ? '+' : '-'}${Math.abs(value * 100).toFixed(1)} pp`;
const td = (cls: string, text: string) => `<td class="${cls}">${escapeHtml(text)}</td>`;

function links(side: CompareSide, cell: CellKey, prefix: string): string {
  const base = `${prefix}runs/${escapeHtml(side.entry.slug)}`;
  const first = firstUnitOf(side.index, cell);
  const transcript = first === null ? '' : ` · <a class="transcript" href="${base}/units/${first}.html">transcript</a>`;
  return `<a class="units" href="${base}/index.html#${escapeHtml(cellHash(cell))}">units</a>${transcript}`;
}

/** The comparison as a page; `prefix` is the way from the page to the site root ('' for /compare, the root). */
export function comparePage(a: CompareSide, b: CompareSide, comparison: RunComparison, prefix = ''): string {
  const side = (p: Proportion, enforced: boolean) => (enforced ? BY_CONSTRUCTION_TEXT : proportionText(p));
  const rows = comparison.matched.map((c) => {
    const bothOk = c.status.a === 'ok' && c.status.b === 'ok';
    const overlap = c.unsafe.intervalsOverlap === null ? '–' : c.unsafe.intervalsOverlap ? 'yes' : 'no';
    return `<tr class="compare-row" data-cell="${escapeHtml(JSON.stringify(CELL_DIMS.map((d) => valueOf(c, d))))}">${td('model', c.modelLabel)}${td('system', c.system)}${td('mode', c.mode)}${td('defence', defenceLabel(c))}${td('unsafe-a kn', bothOk ? side(c.unsafe.a, c.byConstruction.a) : c.status.a)}${td('unsafe-b kn', bothOk ? side(c.unsafe.b, c.byConstruction.b) : c.status.b)}${td('delta kn', c.simVersusReal ? 'sim vs real' : bothOk ? points(c.unsafe.delta) : '–')}${td('overlap', bothOk ? overlap : '–')}${td('parse', `${c.parseFailures.a} → ${c.parseFailures.b}`)}${td('errors', `${c.errors.a} → ${c.errors.b}`)}${td('exposure kn', `${c.exposure.a.k}/${c.exposure.a.n} → ${c.exposure.b.k}/${c.exposure.b.n} (${points(c.exposure.delta)})`)}<td class="links-a">${links(a, c, prefix)}</td><td class="links-b">${links(b, c, prefix)}</td></tr>`;
  });
  const only = (name: string, cells: RunComparison['onlyA'], s: CompareSide) =>
    `<h2>Cells only in ${name} (${cells.length})</h2><ul>${cells.map((c) => `<li>${escapeHtml(`${c.modelLabel} ${c.system} ${c.mode} ${defenceLabel(c)}${c.status === 'ok' ? '' : ` (${c.status})`}`)} · ${links(s, c, prefix)}</li>`).join('')}</ul>`;
  const sideLine = (name: string, s: CompareSide, r: RunComparison['a']) =>
    `<dt>${name}</dt><dd><a href="${prefix}runs/${escapeHtml(s.entry.slug)}/index.html">${escapeHtml(s.entry.dir)}</a> (${escapeHtml(r.runId)}${r.simulated ? ' [sim]' : ''}, status ${escapeHtml(r.status)})</dd>`;
  const notes = [
    "delta = B − A; cells recomputed from each run's stored records (as pnpm compare); intervals are Wilson 95 %.",
    "unsafe = the paper's convention (n = completed trials; a reply that gives no action is not unsafe and stays in n; errors in no n).",
    ...(comparison.simulated
      ? ['sim: at least one run is simulated (offline simulator); its cells are not measurements of any model.']
      : []),
    ...comparison.specDifferences.map(
      (d) => `spec differs: ${d.field} ${JSON.stringify(d.a)} → ${JSON.stringify(d.b)}`,
    ),
  ];
  return frame(
    `compare ${comparison.a.runId} → ${comparison.b.runId} · stalebench`,
    `<p><a href="${prefix}index.html">all runs</a></p><h1>Two runs side by side</h1>${verifyWarning(a.entry)}${verifyWarning(b.entry)}
<dl>${sideLine('A', a, comparison.a)}${sideLine('B', b, comparison.b)}</dl>${notes.map((n) => `<p class="notes">${escapeHtml(n)}</p>`).join('')}
<h2>Cells in both runs (${comparison.matched.length})</h2><table id="compare-table"><thead><tr><th>model</th><th>system</th><th>mode</th><th>defence</th><th>unsafe A</th><th>unsafe B</th><th>Δ unsafe</th><th>CIs overlap</th><th>parse fail A → B</th><th>errors A → B</th><th>exposure A → B</th><th>A</th><th>B</th></tr></thead><tbody>${rows.join('\n')}</tbody></table>
${only('A', comparison.onlyA, a)}${only('B', comparison.onlyB, b)}`,
  );
}

/** Loads both runs as `pnpm compare --no-verify` does (the page shows each run's verify warning) and compares them. */
export function compareEntries(a: RunEntry, b: RunEntry): RunComparison {
  return compareRuns(loadAnalysedRun(a.dir), loadAnalysedRun(b.dir));
}
