// The table model shared by every renderer (Markdown, CSV, LaTeX, HTML, SVG figures) and the paper diff.
// Types only: builders live in analysis/tables/ (one file per table, registered in analysis/tables/index.ts, which
// also defines `PaperTableId`), renderers in analysis/render-*.ts.

/** Spec §15: depends only on retrieval, or on the decision model. */
export type Dependence = 'model-independent' | 'model-dependent';

/** One cell of a regenerated table. Row and column labels are the ones `data/paper/` uses, so cells diff by (table, row, column). */
export interface TableCell {
  row: string;
  column: string;
  /** A proportion: k of n with its rate and Wilson 95 % interval (rate null when n = 0). */
  k?: number;
  n?: number;
  rate?: number | null;
  low?: number;
  high?: number;
  /** A plain number (rank, mean, count without denominator, p-value). */
  value?: number;
  /** `value` is a p-value (rendered `p = 0.629`, `p < 0.001`). */
  isP?: boolean;
  /**
   * A model-independent count repeated over decision models, as the paper counts exposure (81 = 9 scenarios × 9
   * models): how many models the per-scenario count was repeated over. The diff compares k/models, n/models.
   */
  models?: number;
  dependence: Dependence;
  /**
   * `n/a` with the reason (a system cannot express the mode, no revoked record returned, ...); `by-construction`:
   * the PoEM gate overrides every skip of the cell, so its 0 unsafe is guaranteed, not measured (k/n kept).
   */
  status: 'ok' | 'n/a' | 'error' | 'by-construction';
  reason?: string;
  /** The system cannot express this mode or experiment at all: there is no number to compare, on either side. */
  unsupported?: boolean;
  /** An unsafe-rate cell (analysis/unsafe-counts.ts): completed trials whose reply gave no action (inside n, not unsafe). */
  parseFailures?: number;
  /** An unsafe-rate cell: trials whose call raised (in no n). */
  errors?: number;
  /** An unsafe-rate cell: the second rate, unsafe among the trials whose reply parsed to an action. */
  amongParsed?: { k: number; n: number; rate: number | null; low: number; high: number };
  /** A model-independent (retrieval-only) cell: the embedder(s) that produced it (`manifest.embedder`). */
  embedder?: string;
}

/** A table regenerated from one or more runs, in the paper's layout. */
export interface PaperTable {
  /** A registered table id (`PaperTableId`, analysis/tables/index.ts): "6", "8/11", "defence". */
  id: string;
  title: string;
  /** Row labels in display order. */
  rows: string[];
  /** Column labels in display order. */
  columns: string[];
  cells: TableCell[];
  /** True when any run behind the table used the offline simulator (decision model or extraction): say `sim`. */
  simulated: boolean;
  /** Run ids the cells were pooled from. */
  runs: string[];
  /** How the cells were pooled, and anything a reader must know (e.g. "pooled over 2 exposed systems"). */
  notes: string[];
  /** Which decision models the cells pool: real ones, or the simulator apart (it never enters a real total). */
  modelGroup?: 'real' | 'sim';
  /**
   * What every format must show with the table, above its notes: runs that are incomplete (status, done/planned
   * units) or pooled although their spec is the same (`--pool-duplicates`). Empty or absent when there is none.
   */
  caveats?: string[];
}

/** A published cell, as `data/paper/` holds it (see analysis/paper-reference.ts for the validated schema). */
export interface PublishedCell {
  k?: number;
  n?: number;
  percent?: number;
  value?: number;
  p?: number;
  pRelation?: '=' | '<';
  source: 'P' | 'C' | 'D';
  note?: string;
  /** A PoEM number's status (poem.md §7): `seed-only`, or `PoEM-abs` (also in the arXiv abstract). */
  tag?: 'seed-only' | 'PoEM-abs';
}

/**
 * One cell of `report --paper`. Model-independent cells are expected to match exactly (`match` | `differs`);
 * model-dependent cells are only shown side by side with both intervals (`side-by-side`), never called a
 * reproduction; a simulated run's model-dependent cells are `side-by-side` and labelled `sim`.
 */
export interface DiffCell {
  table: string;
  row: string;
  column: string;
  dependence: Dependence;
  paper: PublishedCell;
  /** Our cell, or null when our runs do not cover it. */
  ours: TableCell | null;
  /** `n/a`: our system cannot express the cell's mode (Zep direct), so nothing of ours is compared, never a match. */
  verdict: 'match' | 'differs' | 'missing' | 'side-by-side' | 'n/a';
  /** Model-dependent proportions: whether the paper's Wilson interval and ours overlap; null when not comparable. */
  intervalsOverlap: boolean | null;
  /** A `match`: equal as printed (`exact`), or equal per decision model (`per-model`, see `TableCell.models`). */
  basis?: 'exact' | 'per-model';
  /** A `differs` proportion whose rate is nevertheless the same (e.g. 9/9 against 18/18: denominators as logged). */
  sameRate?: boolean;
  /** Why the verdict is what it is, when the numbers alone do not say (a different denominator, a simulated extractor). */
  note?: string;
}

/** The whole diff. */
export interface PaperDiff {
  simulated: boolean;
  cells: DiffCell[];
  counts: {
    modelIndependent: { match: number; differs: number; missing: number; notApplicable: number };
    modelDependent: { sideBySide: number; overlapping: number; missing: number; notApplicable: number };
  };
}

/** One SVG figure generated from table cells. */
export interface Figure {
  id: string;
  title: string;
  /** A complete, standalone `<svg>` element (no external references). */
  svg: string;
  /** True when any cell plotted came from a simulated run; the figure says `sim` in its title. */
  simulated: boolean;
}
