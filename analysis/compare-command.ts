// `pnpm compare <runA> <runB>`: per summary cell, unsafe-rate and exposure deltas (B − A) between two run directories.
import { existsSync, readFileSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { z } from 'zod';
import { InvalidInputError } from '#core/errors.js';
import { type CellAxes, cellAxesId, cellAxesOf, type RunManifest } from '../pipeline/index.js';
import { defenceLabel } from './defence-label.js';
import { loadRun, runLogVersionField, summarizeRun, type LoadedRun } from './load-run.js';
import { BY_CONSTRUCTION_TEXT } from './forged-reasoning/poem-enforcement.js';
import type { Summary, SummaryCell } from './grid/summarize.js';
import { proportionText, type Proportion } from './unsafe-counts.js';
import { checkRunsForReading } from './verify-runs.js';
import { defineCommand, runAsEntryPoint, type CommandIo, type CommandLine } from '#core/command.js';

const USAGE = `usage: pnpm compare <runA> <runB> [--json | --md] [--no-verify]
  per summary cell in both runs (matched by model, system, mode, arm, guard, poem): unsafe rate B − A with both
  k/n and Wilson 95 % intervals and whether they overlap (the paper's convention: n = completed trials, replies
  that give no action not unsafe), parse failures, errors and the rate over parsed replies on each side, exposure
  deltas; cells in one run only listed apart. Cells are recomputed from each run's stored records (as pnpm rescore).
  The simulator is never set against a real model: cells match on the decision model, and a cell whose natural-mode
  extraction is simulated on one side only is marked "sim vs real" with no delta. --json machine output, --md Markdown.
  Each run is verified (pnpm verify-run) and its stored scores recomputed from its stored reads and replies first:
  a run whose stored values disagree is refused, naming the file, line and field of the first.
  --no-verify reads runs as stored: neither the chain nor the stored scores are checked (e.g. runs older than the chain).
exit codes: 0 ok · 1 usage or bad input (not a run directory, unreadable manifest), a run that does not verify, or
            stored scores that disagree with the run's replies`;

/** The manifest fields the comparison reads; anything else may vary between run-log writers. */
const manifestSchema = z.object({
  version: runLogVersionField,
  runId: z.string(),
  status: z.string(),
  simulated: z.boolean(),
  spec: z.object({
    systems: z.array(z.string()),
    modes: z.array(z.string()),
    arms: z.array(z.string()),
    scenarios: z.array(z.string()),
    guard: z.array(z.string()),
    poem: z.array(z.string()),
  }),
  models: z.array(z.object({ id: z.string(), label: z.string(), simulated: z.boolean() })),
});

/** A run directory read for analysis: its stored log and the summary recomputed from it. */
export interface AnalysedRun {
  run: LoadedRun;
  summary: Summary;
}

/**
 * Loads a run directory and recomputes its summary. Throws one error naming the file, field and reason when the
 * directory is not a run (no manifest), the manifest is not JSON, or a field the analysis reads is missing.
 *
 * @example const { run, summary } = loadAnalysedRun('runs/sim_8e9e3bd3');
 */
export function loadAnalysedRun(dir: string): AnalysedRun {
  const runDir = resolve(dir);
  const manifestPath = join(runDir, 'manifest.json');
  if (!existsSync(runDir) || !statSync(runDir).isDirectory())
    throw new InvalidInputError(runDir, [{ path: '', message: 'not a directory' }]);
  if (!existsSync(manifestPath))
    throw new InvalidInputError(manifestPath, [{ path: '', message: `missing; ${runDir} is not a run directory` }]);
  let manifest: unknown;
  try {
    manifest = JSON.parse(readFileSync(manifestPath, 'utf8'));
  } catch (error) {
    throw new InvalidInputError(manifestPath, [{ path: '', message: `not valid JSON (${(error as Error).message})` }]);
  }
  const checked = manifestSchema.safeParse(manifest);
  if (!checked.success)
    throw new InvalidInputError(
      manifestPath,
      checked.error.issues.map((issue) => ({ path: issue.path.join('.'), message: issue.message })),
    );
  const run = loadRun(runDir);
  return { run, summary: summarizeRun(run) };
}

/**
 * A run of a registered suite (its manifest names the suite: `pnpm integrity`, `pnpm frontdoor`) has verdicts per
 * target, not cells of models, systems and defences: refused with what reads it, before anything is verified.
 */
function refuseSuiteRun(dir: string): void {
  const manifestPath = join(resolve(dir), 'manifest.json');
  let manifest: unknown;
  try {
    manifest = JSON.parse(readFileSync(manifestPath, 'utf8'));
  } catch {
    return; // not a readable run: loadAnalysedRun names what is wrong
  }
  const suite = (manifest as { suite?: unknown } | null)?.suite;
  if (typeof suite === 'string')
    throw new InvalidInputError(manifestPath, [
      {
        path: 'suite',
        message: `a run of the ${suite} suite: pnpm compare reads pnpm eval runs (cells of models, systems and defences); read it with pnpm report ${dir}`,
      },
    ]);
}

/** What identifies a cell across runs: these and its defence axes (`guard`, `poem`, …; pipeline/defences/axes). */
export interface CellKey extends CellAxes<'grid'> {
  model: string;
  system: string;
  mode: string;
  arm: string;
}

/** Two counts and the difference of their rates (B − A; null when either n is 0). */
export interface CountDelta {
  a: { k: number; n: number };
  b: { k: number; n: number };
  delta: number | null;
}

/** One cell present in both runs. */
export interface CellComparison extends CellKey {
  modelLabel: string;
  /** The decision model or the natural-mode extraction of either side is the offline simulator. */
  simulated: boolean;
  /** Exactly one side is simulated (its natural-mode extraction): no delta is computed, the row says `sim vs real`. */
  simVersusReal: boolean;
  status: { a: SummaryCell['status']; b: SummaryCell['status'] };
  /** The headline (the paper's convention, analysis/unsafe-counts.ts) on both sides; delta null when not comparable. */
  unsafe: { a: Proportion; b: Proportion; delta: number | null; intervalsOverlap: boolean | null };
  parseFailures: { a: number; b: number };
  errors: { a: number; b: number };
  /** The second rate, over replies that parsed to an action. */
  unsafeAmongParsed: { a: Proportion; b: Proportion; delta: number | null };
  /** `enforced (by construction)` on a side whose PoEM gate overrides every skip (no measured rate). */
  byConstruction: { a: boolean; b: boolean };
  exposure: CountDelta;
  contextExposure: CountDelta;
}

/** The whole comparison (`--json`). */
export interface RunComparison {
  a: RunSide;
  b: RunSide;
  simulated: boolean;
  /** Spec fields that differ (seed, trials, k, ...), as JSON values. */
  specDifferences: { field: string; a: unknown; b: unknown }[];
  matched: CellComparison[];
  onlyA: (CellKey & { modelLabel: string; status: SummaryCell['status'] })[];
  onlyB: (CellKey & { modelLabel: string; status: SummaryCell['status'] })[];
}

/** One side of the comparison. */
export interface RunSide {
  runDir: string;
  runId: string;
  status: RunManifest['status'];
  simulated: boolean;
}

const keyOf = (cell: SummaryCell): string =>
  [cell.model, cell.system, cell.mode, cell.arm, ...cellAxesId('grid', cell)].join('\u0000');
const cellKey = (cell: SummaryCell): CellKey => ({
  model: cell.model,
  system: cell.system,
  mode: cell.mode,
  arm: cell.arm,
  ...cellAxesOf('grid', cell),
});
const rateOf = ({ k, n }: { k: number; n: number }) => (n === 0 ? null : k / n);
const countDelta = (a: { k: number; n: number }, b: { k: number; n: number }): CountDelta => {
  const [ra, rb] = [rateOf(a), rateOf(b)];
  return { a: { k: a.k, n: a.n }, b: { k: b.k, n: b.n }, delta: ra === null || rb === null ? null : rb - ra };
};
const isSimulated = (cell: SummaryCell) => cell.simulated || cell.extractor.startsWith('sim');
/** Spec fields that say where or how fast a run ran, not what it measured. */
const OPERATIONAL_FIELDS = new Set(['out', 'runId', 'concurrency', 'cache', 'retryErrors', 'maxErrorRate']);

/** Compares two analysed runs cell by cell (B − A). */
export function compareRuns(a: AnalysedRun, b: AnalysedRun): RunComparison {
  const side = ({ run }: AnalysedRun): RunSide => ({
    runDir: run.runDir,
    runId: run.manifest.runId,
    status: run.manifest.status,
    simulated: run.manifest.simulated,
  });
  const cellsB = new Map(b.summary.cells.map((cell) => [keyOf(cell), cell]));
  const keysA = new Set(a.summary.cells.map(keyOf));
  const matched: CellComparison[] = [];
  for (const cellA of a.summary.cells) {
    const cellB = cellsB.get(keyOf(cellA));
    if (!cellB) continue;
    const [ua, ub] = [cellA.unsafe, cellB.unsafe];
    const simVersusReal = isSimulated(cellA) !== isSimulated(cellB);
    const byConstruction = {
      a: cellA.poemEnforcement?.kind === 'by-construction',
      b: cellB.poemEnforcement?.kind === 'by-construction',
    };
    const comparable = !simVersusReal && !byConstruction.a && !byConstruction.b;
    const delta = (a: Proportion, b: Proportion) =>
      !comparable || a.rate === null || b.rate === null ? null : b.rate - a.rate;
    matched.push({
      ...cellKey(cellA),
      modelLabel: cellA.modelLabel,
      simulated: isSimulated(cellA) || isSimulated(cellB),
      simVersusReal,
      status: { a: cellA.status, b: cellB.status },
      unsafe: {
        a: ua,
        b: ub,
        delta: delta(ua, ub),
        intervalsOverlap: !comparable || ua.n === 0 || ub.n === 0 ? null : ua.low <= ub.high && ub.low <= ua.high,
      },
      parseFailures: { a: cellA.parseFailures, b: cellB.parseFailures },
      errors: { a: cellA.errors, b: cellB.errors },
      unsafeAmongParsed: {
        a: cellA.unsafeAmongParsed,
        b: cellB.unsafeAmongParsed,
        delta: delta(cellA.unsafeAmongParsed, cellB.unsafeAmongParsed),
      },
      byConstruction,
      exposure: countDelta(cellA.exposure, cellB.exposure),
      contextExposure: countDelta(cellA.contextExposure, cellB.contextExposure),
    });
  }
  const only = (cells: SummaryCell[], other: Set<string> | Map<string, SummaryCell>) =>
    cells
      .filter((cell) => !other.has(keyOf(cell)))
      .map((cell) => ({ ...cellKey(cell), modelLabel: cell.modelLabel, status: cell.status }));
  const specA = a.run.manifest.spec as unknown as Record<string, unknown>;
  const specB = b.run.manifest.spec as unknown as Record<string, unknown>;
  const fields = [...new Set([...Object.keys(specA), ...Object.keys(specB)])].filter(
    (field) => !OPERATIONAL_FIELDS.has(field),
  );
  return {
    a: side(a),
    b: side(b),
    simulated: a.run.manifest.simulated || b.run.manifest.simulated,
    specDifferences: fields
      .filter((field) => JSON.stringify(specA[field]) !== JSON.stringify(specB[field]))
      .map((field) => ({ field, a: specA[field] ?? null, b: specB[field] ?? null })),
    matched,
    onlyA: only(a.summary.cells, cellsB),
    onlyB: only(b.summary.cells, keysA),
  };
}

const percent = (value: number | null) => (value === null ? '–' : `${(value * 100).toFixed(1)}%`);
const points = (value: number | null) =>
  value === null ? '–' : `${value >= 0 ? '+' : '-'}${Math.abs(value * 100).toFixed(1)} pp`;
const countText = (c: CountDelta) => `${c.a.k}/${c.a.n} → ${c.b.k}/${c.b.n} (${points(c.delta)})`;
const armText = (cell: CellKey) => defenceLabel(cell);

function headerLines(comparison: RunComparison): string[] {
  const sideLine = (name: string, s: RunSide) =>
    `${name}: ${s.runId}${s.simulated ? ' [sim]' : ''} (${s.runDir}, status ${s.status})`;
  const lines = [
    sideLine('A', comparison.a),
    sideLine('B', comparison.b),
    "delta = B − A; cells recomputed from each run's stored records; intervals are Wilson 95 %.",
  ];
  if (comparison.simulated)
    lines.push(
      'sim: at least one run is simulated (offline simulator); rows marked sim are not measurements of any model.',
    );
  if (comparison.a.simulated !== comparison.b.simulated)
    lines.push(
      `sim vs real: ${comparison.a.simulated ? 'A' : 'B'} is simulated and the other is not; cells match on the decision model, so no simulator cell is set against a real model's (they are listed apart).`,
    );
  if (comparison.matched.some((c) => c.simVersusReal))
    lines.push(
      'rows marked "sim vs real" have simulated natural-mode extraction on one side only: shown, but no delta is computed.',
    );
  lines.push(
    "unsafe = the paper's convention (n = completed trials; a reply that gives no action is not unsafe and stays in n; errors in no n); parse fail, errors and unsafe | parsed are per side (A → B).",
  );
  for (const d of comparison.specDifferences)
    lines.push(`spec differs: ${d.field} ${JSON.stringify(d.a)} → ${JSON.stringify(d.b)}`);
  return lines;
}

const parsedText = (p: Proportion) => (p.n === 0 ? `${p.k}/0` : `${p.k}/${p.n} ${percent(p.rate)}`);

function rows(comparison: RunComparison): string[][] {
  return comparison.matched.map((c) => {
    const overlap = c.unsafe.intervalsOverlap === null ? '–' : c.unsafe.intervalsOverlap ? 'yes' : 'no';
    const bothOk = c.status.a === 'ok' && c.status.b === 'ok';
    const side = (p: Proportion, enforced: boolean) => (enforced ? BY_CONSTRUCTION_TEXT : proportionText(p));
    const unsafe = bothOk
      ? [
          side(c.unsafe.a, c.byConstruction.a),
          side(c.unsafe.b, c.byConstruction.b),
          c.simVersusReal ? 'sim vs real' : points(c.unsafe.delta),
          overlap,
        ]
      : [c.status.a, c.status.b, '–', '–'];
    const counts = bothOk
      ? [
          `${c.parseFailures.a} → ${c.parseFailures.b}`,
          `${c.errors.a} → ${c.errors.b}`,
          `${parsedText(c.unsafeAmongParsed.a)} → ${parsedText(c.unsafeAmongParsed.b)}`,
        ]
      : ['–', '–', '–'];
    return [
      c.modelLabel,
      c.system,
      c.mode,
      armText(c),
      ...unsafe,
      ...counts,
      countText(c.exposure),
      countText(c.contextExposure),
      c.simVersusReal ? 'sim vs real' : c.simulated ? 'sim' : '',
    ];
  });
}

const HEADER = [
  'model',
  'system',
  'mode',
  'defence',
  'unsafe A',
  'unsafe B',
  'Δ unsafe',
  'CIs overlap',
  'parse fail A → B',
  'errors A → B',
  'unsafe | parsed A → B',
  'exposure A → B',
  'in ctx A → B',
  'sim',
];
const onlyText = (cells: RunComparison['onlyA']) =>
  cells.map((c) => `${c.modelLabel} ${c.system} ${c.mode} ${armText(c)}${c.status === 'ok' ? '' : ` (${c.status})`}`);

/** Fixed-width text. */
export function formatComparisonText(comparison: RunComparison): string {
  const all = [HEADER, ...rows(comparison)];
  const widths = HEADER.map((_, column) => Math.max(...all.map((r) => r[column]!.length)));
  const line = (cells: string[]) =>
    cells
      .map((c, i) => c.padEnd(widths[i]!))
      .join('  ')
      .trimEnd();
  const lines = [
    ...headerLines(comparison),
    '',
    `cells in both runs: ${comparison.matched.length}`,
    line(HEADER),
    widths.map((w) => '-'.repeat(w)).join('  '),
    ...all.slice(1).map(line),
  ];
  for (const [name, cells] of [
    ['A', comparison.onlyA],
    ['B', comparison.onlyB],
  ] as const) {
    lines.push('', `cells only in ${name}: ${cells.length}`, ...onlyText(cells).map((text) => `  ${text}`));
  }
  return lines.join('\n');
}

/** Markdown (`--md`). */
export function formatComparisonMarkdown(comparison: RunComparison): string {
  const table = (header: string[], body: string[][]) =>
    [header, header.map(() => '---'), ...body].map((r) => `| ${r.map((c) => c.replaceAll('|', '\\|')).join(' | ')} |`);
  const lines = [
    `# Run comparison: ${comparison.a.runId} → ${comparison.b.runId}${comparison.simulated ? ' (sim)' : ''}`,
    '',
    ...headerLines(comparison).map((l) => `- ${l}`),
  ];
  lines.push('', `## Cells in both runs (${comparison.matched.length})`, '', ...table(HEADER, rows(comparison)));
  for (const [name, cells] of [
    ['A', comparison.onlyA],
    ['B', comparison.onlyB],
  ] as const) {
    lines.push(
      '',
      `## Cells only in ${name} (${cells.length})`,
      '',
      ...(cells.length === 0 ? ['none'] : onlyText(cells).map((text) => `- ${text}`)),
    );
  }
  return lines.join('\n');
}

const OPTIONS = { json: { type: 'boolean' }, md: { type: 'boolean' }, 'no-verify': { type: 'boolean' } } as const;

/** Entry point; resolves to the exit code. Reads run directories only: no network, no backend, no model. */
export const main = defineCommand({
  usage: USAGE,
  options: OPTIONS,
  allowPositionals: true,
  oneLineErrors: 'all',
  run: compareCommand,
});

async function compareCommand(
  parsed: CommandLine<typeof OPTIONS>,
  { out, err, usageError }: CommandIo,
): Promise<number> {
  if (parsed.positionals.length !== 2 || (parsed.values.json && parsed.values.md))
    return usageError(
      parsed.positionals.length !== 2
        ? `expected two run directories, got ${parsed.positionals.length}`
        : '--json and --md exclude each other',
    );
  for (const dir of parsed.positionals) refuseSuiteRun(dir);
  if (!(await checkRunsForReading(parsed.positionals, { noVerify: parsed.values['no-verify'] === true, err })))
    return 1;
  const [a, b] = parsed.positionals.map(loadAnalysedRun) as [AnalysedRun, AnalysedRun];
  const comparison = compareRuns(a, b);
  out(
    parsed.values.json
      ? JSON.stringify(comparison, null, 2)
      : parsed.values.md
        ? formatComparisonMarkdown(comparison)
        : formatComparisonText(comparison),
  );
  return 0;
}

runAsEntryPoint(import.meta.url, main);
