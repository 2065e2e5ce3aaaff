// `report --paper`: our regenerated cells against data/paper/, model-independent cells checked, model-dependent shown.
import type { PaperCell, PaperReference } from './paper-reference.js';
import type { DiffCell, PaperDiff, PaperTable, PublishedCell, TableCell } from './paper-table.js';
import { formatCell, formatP, formatPercent, formatValue } from './render-markdown.js';
import { wilson } from './statistics.js';
import { STALE_RETRIEVAL_PAPER } from './source-papers.js';
import { paperTableIds } from './tables/index.js';

/** The paper's number of decision models (spec §2): its exposure counts repeat each scenario over them (81 = 9 × 9). */
export const PAPER_MODEL_COUNT = 9;

type Comparison = Pick<DiffCell, 'verdict' | 'basis' | 'sameRate' | 'note'>;

const hasCount = (cell: { k?: number | undefined; n?: number | undefined }) =>
  cell.k !== undefined && cell.n !== undefined;
/** Nothing to print: the paper's "–", an n/a cell, or a proportion with n = 0. */
const isEmpty = (cell: TableCell) => cell.status !== 'ok' || (hasCount(cell) ? cell.n === 0 : cell.value === undefined);

function compareIndependent(paper: PaperCell, ours: TableCell): Comparison {
  const notes = ours.reason ? [ours.reason] : [];
  const result = (verdict: 'match' | 'differs', extra: Partial<Comparison> = {}): Comparison => {
    const note = [extra.note, ...notes].filter(Boolean).join('; ');
    return { verdict, ...extra, ...(note ? { note } : {}) };
  };
  if (ours.status === 'error') return result('differs', { note: 'our cell is an error' });
  if (paper.k === undefined && paper.value === undefined && paper.percent === undefined) {
    return isEmpty(ours)
      ? result('match', { basis: 'exact', note: 'printed "–"; nothing to print on our side either' })
      : result('differs', { note: 'the paper prints "–"' });
  }
  if (paper.k !== undefined && paper.n !== undefined) {
    if (ours.status !== 'ok' || !hasCount(ours)) return result('differs', { note: `ours is ${ours.status}` });
    const k = ours.k!;
    const n = ours.n!;
    if (k === paper.k && n === paper.n) return result('match', { basis: 'exact' });
    const m = ours.models;
    if (m !== undefined && k * PAPER_MODEL_COUNT === paper.k * m && n * PAPER_MODEL_COUNT === paper.n * m) {
      return result('match', {
        basis: 'per-model',
        note: `paper ${paper.k}/${paper.n} over ${PAPER_MODEL_COUNT} models = ${paper.k / PAPER_MODEL_COUNT}/${paper.n / PAPER_MODEL_COUNT} per model; ours ${k}/${n} over ${m} model(s)`,
      });
    }
    const sameRate = n > 0 && paper.n > 0 && k * paper.n === paper.k * n;
    return result('differs', {
      sameRate,
      ...(sameRate ? { note: `same rate, different denominator (${k}/${n} vs ${paper.k}/${paper.n})` } : {}),
    });
  }
  if (paper.value !== undefined) {
    if (ours.status !== 'ok' || ours.value === undefined)
      return result('differs', { note: `ours is ${ours.status === 'ok' ? 'not a value' : ours.status}` });
    return Math.abs(ours.value - paper.value) < 1e-9 ? result('match', { basis: 'exact' }) : result('differs');
  }
  // A printed percentage without a count.
  const rate = ours.rate ?? null;
  return rate !== null && Math.round(rate * 1000) / 10 === paper.percent
    ? result('match', { basis: 'exact' })
    : result('differs');
}

/** Table-level context for a model-independent cell that differs. */
const DIFFERS_CONTEXT: Readonly<Record<string, string>> = {
  '9': "the paper's Table 9 counts are as logged and include re-probed retrieval rows (spec §11: graphiti 18/38 = two passes); the current totals also depend on how many current records the default read returns",
};

function explain(table: string, comparison: Comparison): Comparison {
  const context = DIFFERS_CONTEXT[table];
  if (comparison.verdict !== 'differs' || !context) return comparison;
  return { ...comparison, note: [comparison.note, context].filter(Boolean).join('; ') };
}

function overlap(paper: PaperCell, ours: TableCell): boolean | null {
  if (
    ours.status !== 'ok' ||
    paper.k === undefined ||
    paper.n === undefined ||
    paper.n === 0 ||
    !hasCount(ours) ||
    ours.n === 0
  )
    return null;
  const theirs = wilson(paper.k, paper.n);
  const mine =
    ours.low !== undefined && ours.high !== undefined ? { low: ours.low, high: ours.high } : wilson(ours.k!, ours.n!);
  return theirs.low <= mine.high && mine.low <= theirs.high;
}

function published(cell: PaperCell): PublishedCell {
  const { k, n, percent, value, p, pRelation, source, note, tag } = cell;
  return Object.fromEntries(
    Object.entries({ k, n, percent, value, p, pRelation, source, note, tag }).filter(([, v]) => v !== undefined),
  ) as unknown as PublishedCell;
}

/**
 * Diffs our tables against the published cells of the tables we regenerate. Model-independent cells must match
 * exactly: as printed, or per decision model where the paper repeats a model-independent count over its nine models
 * (`TableCell.models`). Model-dependent cells are set side by side with both Wilson intervals; they are never called a
 * reproduction, and from a simulated run they are labelled `sim`. `regenerated` names the tables compared: by default
 * every table registered with `paper: true` (analysis/tables/index.ts); the paper's Table 10 (calls and cost) is not one.
 *
 * @example const diff = diffAgainstPaper(tables, loadPaperReference()); diff.counts.modelIndependent.differs
 */
export function diffAgainstPaper(
  tables: readonly PaperTable[],
  reference: PaperReference,
  regenerated: readonly string[] = paperTableIds(),
): PaperDiff {
  const cells: DiffCell[] = [];
  // One table per id is compared: the real models' when the simulator's are built apart (they come first).
  const compared = new Map<string, PaperTable>();
  for (const table of tables) if (!compared.has(table.id) && table.modelGroup !== 'sim') compared.set(table.id, table);
  for (const table of tables) if (!compared.has(table.id)) compared.set(table.id, table);
  for (const paper of reference.cells) {
    if (!regenerated.includes(paper.table)) continue;
    const table = compared.get(paper.table);
    const ours = table?.cells.find((c) => c.row === paper.row && c.column === paper.column) ?? null;
    const base = {
      table: paper.table,
      row: paper.row,
      column: paper.column,
      dependence: paper.dependence,
      paper: published(paper),
      ours,
    };
    if (!ours)
      cells.push({
        ...base,
        verdict: 'missing',
        intervalsOverlap: null,
        note: table ? 'no such cell in our runs' : `Table ${paper.table} not built from these runs`,
      });
    else if (ours.unsupported)
      cells.push({
        ...base,
        verdict: 'n/a',
        intervalsOverlap: null,
        note: `our system cannot express this (${ours.reason ?? 'not applicable'}): nothing to compare, never a match`,
      });
    else if (paper.dependence === 'model-independent')
      cells.push({
        ...base,
        ...withEmbedder(explain(paper.table, compareIndependent(paper, ours)), ours),
        intervalsOverlap: null,
      });
    else
      cells.push({
        ...base,
        verdict: 'side-by-side',
        intervalsOverlap: overlap(paper, ours),
        ...(table!.simulated ? { note: 'sim: offline simulator, not a measurement' } : {}),
      });
  }
  const of = (dependence: DiffCell['dependence'], verdict: DiffCell['verdict']) =>
    cells.filter((c) => c.dependence === dependence && c.verdict === verdict).length;
  return {
    simulated: [...compared.values()].some((t) => t.simulated && regenerated.includes(t.id)),
    cells,
    counts: {
      modelIndependent: {
        match: of('model-independent', 'match'),
        differs: of('model-independent', 'differs'),
        missing: of('model-independent', 'missing'),
        notApplicable: of('model-independent', 'n/a'),
      },
      modelDependent: {
        sideBySide: of('model-dependent', 'side-by-side'),
        overlapping: cells.filter((c) => c.dependence === 'model-dependent' && c.intervalsOverlap === true).length,
        missing: of('model-dependent', 'missing'),
        notApplicable: of('model-dependent', 'n/a'),
      },
    },
  };
}

/** A retrieval-only comparison names the embedder that produced our cell (it decides exposure and rank). */
function withEmbedder(comparison: Comparison, ours: TableCell): Comparison {
  const embedder = `ours from embedder ${ours.embedder ?? 'unknown (not recorded)'}`;
  return { ...comparison, note: [comparison.note, embedder].filter(Boolean).join('; ') };
}

/** A published cell as text: `358/810 (44.2%) [40.8, 47.6]`, `0.0%`, `1`, `p = 0.629`, or `–` for a printed dash. */
export function formatPublished(cell: PublishedCell): string {
  const text = formatNumbers(cell);
  // A PoEM cell says its status (poem.md §7); a printed word ("succeeds", Table III) is its note.
  if (cell.tag === undefined) return text;
  return `${text === '–' && cell.note ? cell.note : text} [${cell.tag}]`;
}

function formatNumbers(cell: PublishedCell): string {
  if (cell.k !== undefined && cell.n !== undefined) {
    if (cell.n === 0) return `${cell.k}/0`;
    const { low, high } = wilson(cell.k, cell.n);
    return `${cell.k}/${cell.n} (${formatPercent(cell.k / cell.n)}) [${(low * 100).toFixed(1)}, ${(high * 100).toFixed(1)}]`;
  }
  if (cell.percent !== undefined) return `${cell.percent.toFixed(1)}%`;
  if (cell.p !== undefined) return cell.pRelation === '<' ? `p < ${cell.p}` : formatP(cell.p);
  if (cell.value !== undefined) return formatValue(cell.value);
  return '–';
}

const escape = (text: string) => text.replace(/\|/g, '\\|').replace(/\n/g, ' ');
const mdRow = (cells: string[]) => `| ${cells.map(escape).join(' | ')} |`;

/** `paper-diff.md`: counts, then the model-independent cells, then the model-dependent ones side by side. */
export function renderPaperDiffMarkdown(diff: PaperDiff, paper = STALE_RETRIEVAL_PAPER): string {
  const { modelIndependent: mi, modelDependent: md } = diff.counts;
  const ours = diff.simulated ? 'ours (sim)' : 'ours';
  const lines = [`# Paper diff (${paper})${diff.simulated ? ' — sim (simulated)' : ''}`, ''];
  if (diff.simulated)
    lines.push(
      '> **sim**: our side comes (at least partly) from the offline simulator. Model-dependent cells are shown for orientation only: they are not a reproduction of the paper and not a measurement of any model.',
      '',
    );
  lines.push(
    `Model-independent cells (retrieval only; expected to match exactly): **${mi.match} match, ${mi.differs} differ, ${mi.missing} missing, ${mi.notApplicable} n/a**.`,
  );
  lines.push(
    `Model-dependent cells (side by side, never a reproduction): ${md.sideBySide} shown, Wilson 95 % intervals overlap in ${md.overlapping}; ${md.missing} missing, ${md.notApplicable} n/a.`,
  );
  lines.push(
    'n/a = our system cannot express the cell (e.g. Zep in direct mode): nothing is compared. Every retrieval-only cell of ours names the embedder that produced it.',
  );
  if (paper === STALE_RETRIEVAL_PAPER)
    lines.push('Table 10 (calls and cost) is not regenerated: `pnpm eval` reports its own call counts (spec §15).');
  lines.push('');
  const notBuilt = new Map<string, number>();
  for (const c of diff.cells)
    if (c.verdict === 'missing' && c.note?.startsWith('Table '))
      notBuilt.set(c.table, (notBuilt.get(c.table) ?? 0) + 1);
  for (const [table, count] of notBuilt)
    lines.push(`- Table ${table}: not built from these runs (${count} published cells missing).`);
  if (notBuilt.size > 0) lines.push('');
  const listed = diff.cells.filter((c) => !(c.verdict === 'missing' && notBuilt.has(c.table)));
  lines.push(
    '## Model-independent cells',
    '',
    mdRow(['table', 'row', 'column', 'paper', ours, 'embedder (ours)', 'verdict', 'note']),
    '|---|---|---|--:|--:|---|---|---|',
  );
  for (const c of listed.filter((c) => c.dependence === 'model-independent')) {
    const verdict =
      c.verdict === 'match'
        ? `match${c.basis === 'per-model' ? ' (per model)' : ''}`
        : c.verdict === 'differs'
          ? `**differs**${c.sameRate ? ' (same rate)' : ''}`
          : c.verdict;
    lines.push(
      mdRow([
        c.table,
        c.row,
        c.column,
        formatPublished(c.paper),
        formatCell(c.ours ?? undefined) || '–',
        c.ours?.embedder ?? '–',
        verdict,
        c.note ?? '',
      ]),
    );
  }
  lines.push(
    '',
    `## Model-dependent cells${diff.simulated ? ' (sim)' : ''}`,
    '',
    mdRow(['table', 'row', 'column', 'paper [Wilson 95 %]', `${ours} [Wilson 95 %]`, 'intervals overlap', 'verdict']),
    '|---|---|---|--:|--:|---|---|',
  );
  for (const c of listed.filter((c) => c.dependence === 'model-dependent')) {
    const overlapText = c.intervalsOverlap === null ? '–' : c.intervalsOverlap ? 'yes' : 'no';
    const verdict = c.verdict === 'side-by-side' ? (diff.simulated ? 'side by side (sim)' : 'side by side') : c.verdict;
    lines.push(
      mdRow([
        c.table,
        c.row,
        c.column,
        formatPublished(c.paper),
        formatCell(c.ours ?? undefined) || '–',
        overlapText,
        verdict,
      ]),
    );
  }
  return `${lines.join('\n')}\n`;
}
