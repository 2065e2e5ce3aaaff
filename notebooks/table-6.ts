/*
 * # Table 6 from a run
 *
 * **Question.** Table 6 of the paper (stale-retrieval.md §15) is the headline result: with direct insertion, how
 * often does each memory system return the revoked policy (exposure, and the rank of the first revoked record),
 * and how often does an agent then act on it, without a defence and under the store filter, prompt hardening,
 * the output filter and filter + hardening? What does Table 6 look like when rebuilt from our own runs?
 *
 * **Method.** The notebook calls the project's one Table 6 builder (analysis/tables/table-06.ts `buildTable6`), which
 * pools over decision models and runs the way the paper does (exposure over (model, scenario) pairs: "81/81" is
 * 9 scenarios × 9 models; unsafe counts as the reference code scores them; the pooled row over the paper's two
 * exposed systems), renders it with the report's Markdown renderer, and sets it against the published cells with
 * the report's diff (analysis/paper-diff.ts), keeping only Table 6. Runs given twice are skipped.
 *
 * **Caveats.** Exposure and rank are model-independent, but they depend on the embedder (the paper used
 * nomic-embed-text; the offline lexical embedder ranks v2 first in two scenarios). Pooling runs adds their
 * exposure counts as well (each run's scenarios × its models), so two one-model runs give n = 18 and the diff's
 * per-model match counts them as two models. The unsafe columns are model-dependent and, from the offline
 * simulator (`sim`), not measurements of any model. The published values are reference only; they are never a
 * result of this run.
 */
import { diffAgainstPaper, renderPaperDiffMarkdown } from '../analysis/paper-diff.js';
import { loadPaperReference } from '../analysis/paper-reference.js';
import { modelGroupsOf } from '../analysis/grid/grid-index.js';
import { buildTable6 } from '../analysis/tables/table-06.js';
import { renderTableMarkdown } from '../analysis/render-markdown.js';
import type { Notebook } from './notebook.js';
import { distinctRuns, runsSection } from './notebook-support.js';

export const notebook: Notebook = {
  name: 'table-6',
  question:
    'What does Table 6 (exposure, rank and unsafe rate per system and defence, direct insertion) look like rebuilt from this run?',
  render(input) {
    const { runs, skipped } = distinctRuns(input);
    const loaded = runs.map(({ run }) => run);
    // The simulator never enters a total with a real model: with both present, the real models' table comes first.
    const groups = modelGroupsOf(loaded);
    const tables = (groups.length > 1 ? groups : [undefined]).map((group) => buildTable6(loaded, group));
    const table = tables[0]!;
    const out = ['# Table 6 from a run', '', `**Question.** ${this.question}`, '', runsSection(runs, skipped), ''];
    // No row at all means no direct-mode probe; a system whose probes all failed keeps its row (n/a or error, with the reason).
    if (table.rows.length === 0)
      return [...out, 'No direct-mode cells in these runs: Table 6 is direct insertion (`--modes direct`).'].join('\n');
    if (tables.some((t) => t.simulated))
      out.push(
        '**sim:** the unsafe columns come from the offline simulator and are not measurements of any model; exposure and rank are model-independent.',
        '',
      );
    for (const built of tables) out.push(renderTableMarkdown(built), '');
    // The published numbers, beside ours, for reference only (data/paper/, never a result).
    const reference = loadPaperReference();
    const diff = diffAgainstPaper([table], {
      ...reference,
      cells: reference.cells.filter((cell) => cell.table === '6'),
    });
    // The diff's title and its Table 10 remark belong to the full report; its sections go one level down, under ours.
    const diffText = renderPaperDiffMarkdown(diff)
      .replace(/^# .*\n\n/, '')
      .replace(/^Table 10 .*\n/m, '')
      .replace(/^## /gm, '### ');
    out.push('## Beside the published Table 6 (reference only, data/paper/table-06.json)', '', diffText);
    return out.join('\n');
  },
};
