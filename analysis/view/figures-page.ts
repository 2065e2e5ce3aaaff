// A run's figures in the viewer: the HTML report's SVG figures (analysis/grid/figures.ts) built from the run's own tables.
import { figuresFor } from '../grid/figures.js';
import { buildReport } from '../report-command.js';
import { drawsFigures, escapeHtml, frame, verifyWarning } from './pages.js';
import type { RunEntry } from './run-catalog.js';

/** Runs whose tables `pnpm report` builds (grid and follow-ups; not suites nor forged reasoning, which have none drawn). */
export const hasFigures = (entry: RunEntry): boolean => entry.readError === null && drawsFigures(entry.experiment);

/** The figures page of a run, or a page saying why there is none. Incomplete runs are drawn (their tables say so). */
export async function runFiguresPage(entry: RunEntry): Promise<string> {
  const head = `<p><a href="index.html">run</a> · <a href="../../index.html">all runs</a></p><h1>Figures: ${escapeHtml(entry.dir)}</h1>${verifyWarning(entry)}${entry.simBanner ? `<p class="sim-banner" id="sim-banner">${escapeHtml(entry.simBanner)}</p>` : ''}`;
  if (!hasFigures(entry))
    return frame(`figures · ${entry.dir}`, `${head}<p>No figures for a ${escapeHtml(entry.experiment)} run.</p>`);
  try {
    const { tables } = await buildReport([entry.dir], { allowIncomplete: true });
    const figures = figuresFor(tables);
    const body = figures
      .map(
        (f) =>
          `<figure id="figure-${escapeHtml(f.id)}" data-figure="${escapeHtml(f.id)}">${f.svg}<figcaption>${escapeHtml(f.title)}</figcaption></figure>`,
      )
      .join('\n');
    return frame(
      `figures · ${entry.dir}`,
      `${head}${figures.length === 0 ? '<p>No figure applies to this run.</p>' : body}<p class="notes">The same figures as pnpm report's index.html, from this run alone.</p>`,
    );
  } catch (error) {
    return frame(
      `figures · ${entry.dir}`,
      `${head}<p class="warning" id="figures-error">${escapeHtml(error instanceof Error ? error.message : String(error))}</p>`,
    );
  }
}
