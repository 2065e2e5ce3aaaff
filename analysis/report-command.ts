// `pnpm report [<run...>] [--paper] [-o DIR]`: the latest run, or the runs given; the paper's tables from run directories only (no network, backend or model).
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { z } from 'zod';
import { InvalidInputError } from '#core/errors.js';
import { limitedLine, suiteOfRunDir, writeJsonAtomic, type RunManifest } from '../pipeline/index.js';
import { figuresFor } from './grid/figures.js';
import { poemPaperDiff } from './forged-reasoning/report-poem.js';
import { describeProgress, runProgress } from './run-progress.js';
import { renderHtmlReport, type HtmlReportInput } from './html-report.js';
import { loadRun, type LoadedRun } from './load-run.js';
import { diffAgainstPaper, renderPaperDiffMarkdown } from './paper-diff.js';
import { loadPaperReference } from './paper-reference.js';
import type { PaperDiff, PaperTable } from './paper-table.js';
import { buildTables } from './grid/paper-tables.js';
import type { FollowUpInput } from './follow-ups/paper-tables-follow-up.js';
import { renderCsv } from './render-csv.js';
import { renderLatex } from './render-latex.js';
import { renderMarkdown } from './render-markdown.js';
import { scenarioLabels } from './grid/scenario-labels.js';
import { paperTableIds, TABLES, type TableDefinition } from './tables/index.js';
import { validateFile } from './run-kinds/report-checks.js';
import {
  findRunKind,
  RUN_KINDS,
  runKindIdOf,
  runKindOf,
  type RunKindReport,
  type RunKindV1,
} from './run-kinds/index.js';
import { reportSuiteRun } from './suite-report-run.js';
import type { ForgedReasoningInput } from './tables/poem-tables.js';
import { checkRunsForReading } from './verify-runs.js';
import { defineCommand, runAsEntryPoint, type CommandIo, type CommandLine } from '#core/command.js';
import { makeDirectory } from '#core/make-directory.js';

const USAGE = `usage: pnpm report [<run-dir>...] [--runs <dir>] [--paper] [-o <dir>] [--pool-duplicates] [--allow-incomplete] [--no-verify]
  regenerates the paper's Tables 6, 7, 8/11, 9, 12, 13 (grid runs) and 14, 15, 16 (follow-up runs), and the PoEM
  paper's Tables I, II, III and its benign table (forged-reasoning runs) from the stored records, pooled over every run given, plus the defence table (every arm × guard × PoEM cell with its
  parse failures, errors and the rate over parsed replies), and writes tables.md, tables.csv (long format),
  tables.tex and index.html to <dir> (default: <first run-dir>/report); prints the Markdown.
  A suite run directory (pnpm integrity -o DIR) is verified, then its scorecard is written instead:
  scorecard.md, scorecard.html, scorecard.json and integrity.md (from its summary.json).
  The simulator (sim) never enters a total with a real model: its tables are built apart.
  --paper             also diff against data/paper/ (paper-diff.md, paper-diff.json): model-independent cells
                      must match, model-dependent cells are shown side by side with both Wilson intervals;
                      forged-reasoning runs against data/paper/poem/ (poem-paper-diff.md, .json; seed-only)
  -o, --out           output directory
  --runs <dir>        with no <run-dir>: report the latest run under this output root (default: runs, as pnpm
                      eval's --out), the one whose manifest.json was written last (every eval invocation,
                      resumes too, rewrites it at its end)
  --pool-duplicates   pool runs with the same spec hash anyway (refused by default: the same units, served
                      again from the cache, would double n); every output says the pooling was forced
  --allow-incomplete  report runs whose status is not success or with fewer units done than planned (refused
                      by default); every output marks them with their done/planned counts
  Each run is verified first (pnpm verify-run: chain, heads, bound spec and summary) and its stored scores,
  labels and summary recomputed from its stored reads and replies (as pnpm rescore): a run whose stored values
  disagree is refused, naming the file, line, unit and field of the first.
  --no-verify         read runs as stored: neither the chain nor the stored scores are checked (e.g. runs
                      older than the chain)
exit codes: 0 ok · 1 usage or bad input (the error names the file, the field and the reason), duplicate
            specs, an incomplete run, a run that does not verify, or stored scores that disagree with the
            run's replies`;

/**
 * The report side of the kind a run's manifest claims; a manifest that is not JSON is named by the check, an unknown
 * kind or one without tables (a suite run: its own scorecards) by its `spec.experiment`.
 */
function runKindOfReport(manifestPath: string): RunKindReport {
  let manifest: { suite?: unknown; spec?: { experiment?: unknown } };
  try {
    manifest = JSON.parse(readFileSync(manifestPath, 'utf8')) as typeof manifest;
  } catch {
    validateFile(manifestPath, z.unknown(), false); // names the syntax error
    throw new Error(`${manifestPath}: not valid JSON`);
  }
  const id = runKindIdOf(manifest ?? {});
  const kind = findRunKind(id);
  if (kind?.report) return kind.report;
  throw new InvalidInputError(manifestPath, [
    {
      path: 'spec.experiment',
      message: `${kind ? `a ${id} run has no tables` : `unknown run kind "${id}"`}; kinds with tables: ${RUN_KINDS.filter(
        (k) => k.report,
      )
        .map((k) => k.id)
        .join(', ')}`,
    },
  ]);
}

/** Loads one run directory after checking every field the report reads. */
export function loadReportRun(dir: string): LoadedRun {
  const runDir = resolve(dir);
  const manifestPath = join(runDir, 'manifest.json');
  if (!existsSync(runDir) || !statSync(runDir).isDirectory())
    throw new InvalidInputError(runDir, [{ path: '', message: 'not a directory' }]);
  if (!existsSync(manifestPath))
    throw new InvalidInputError(manifestPath, [{ path: '', message: `missing; ${runDir} is not a run directory` }]);
  runKindOfReport(manifestPath).check(runDir, manifestPath);
  return loadRun(runDir);
}

/** The report side of a loaded run's kind (checked by `loadReportRun`, so it has one). */
function runKindOfRun(run: LoadedRun): RunKindV1 & { report: RunKindReport } {
  return runKindOf(run.manifest) as RunKindV1 & { report: RunKindReport };
}

/** Everything `report` produces, before anything is written. */
export interface Report {
  tables: PaperTable[];
  manifests: RunManifest[];
  diff?: PaperDiff;
  markdown: string;
  csv: string;
  latex: string;
  diffMarkdown?: string;
  /** `--paper` with forged-reasoning runs: the diff against the PoEM paper (data/paper/poem/). */
  poemDiff?: PaperDiff;
  poemDiffMarkdown?: string;
  /** Report-level warnings (forced duplicate pooling, incomplete runs), also carried by every affected table. */
  caveats: string[];
}

/** How `buildReport` treats runs it would otherwise refuse. */
export interface ReportOptions {
  paper?: boolean;
  paperDir?: string;
  /** Pool runs with the same spec hash (refused otherwise: the same units twice). */
  poolDuplicates?: boolean;
  /** Report incomplete runs (status not success, or fewer units done than planned), each marked. */
  allowIncomplete?: boolean;
  /** The table registry to build from (default: analysis/tables/index.ts `TABLES`); a test adds a table here. */
  tables?: readonly TableDefinition[];
}

/** Runs that would be counted twice: the same run id, or (unless forced) the same spec hash. Returns the forced caveats. */
function checkDuplicates(runs: readonly LoadedRun[], poolDuplicates: boolean): Map<string, string[]> {
  const caveats = new Map<string, string[]>();
  const ids = new Map<string, string>();
  const specs = new Map<string, LoadedRun>();
  for (const run of runs) {
    const previous = ids.get(run.manifest.runId);
    if (previous)
      throw new InvalidInputError('run directories', [
        {
          path: run.runDir,
          message: `run id "${run.manifest.runId}" is also ${previous}: a run given twice would be counted twice`,
        },
      ]);
    ids.set(run.manifest.runId, run.runDir);
    const same = specs.get(run.manifest.specHash);
    if (!same) {
      specs.set(run.manifest.specHash, run);
      continue;
    }
    if (!poolDuplicates) {
      throw new InvalidInputError('run directories', [
        {
          path: `${same.runDir} and ${run.runDir}`,
          message: `the same spec (hash ${run.manifest.specHash}): pooled, the same units would be counted twice (a second run is served from the response cache); give one of them, or --pool-duplicates to pool them anyway`,
        },
      ]);
    }
    const caveat = `forced with --pool-duplicates: ${same.manifest.runId} and ${run.manifest.runId} have the same spec (hash ${run.manifest.specHash}) and are pooled; their units count twice`;
    for (const id of [same.manifest.runId, run.manifest.runId]) caveats.set(id, [...(caveats.get(id) ?? []), caveat]);
  }
  return caveats;
}

/** Incomplete runs are refused unless allowed; allowed ones get a caveat with their done/planned counts. */
function checkComplete(runs: readonly LoadedRun[], allowIncomplete: boolean, caveats: Map<string, string[]>): void {
  const incomplete = runs
    .map((run) => {
      const { report } = runKindOfRun(run);
      return runProgress(run, report.unitsDone(run), report.plannedUnits(run));
    })
    .filter((p) => !p.complete);
  if (incomplete.length === 0) return;
  if (!allowIncomplete) {
    throw new InvalidInputError(
      'run directories',
      incomplete.map((p) => ({
        path: p.runDir,
        message: `incomplete: status ${p.status}, ${p.done}/${p.planned ?? 'unknown'} planned units done; finish it (re-run its command) or pass --allow-incomplete to report it marked`,
      })),
    );
  }
  for (const p of incomplete) caveats.set(p.runId, [...(caveats.get(p.runId) ?? []), describeProgress(p)]);
}

/** Loads the runs, builds the tables, renders them and (with `paper`) diffs them against data/paper/. */
export async function buildReport(runDirs: readonly string[], options: ReportOptions = {}): Promise<Report> {
  const runs = runDirs.map(loadReportRun);
  const caveatsByRun = checkDuplicates(runs, options.poolDuplicates === true);
  checkComplete(runs, options.allowIncomplete === true, caveatsByRun);
  // A `--limit` run holds a subset of its cells' units: every table built from it says so.
  for (const run of runs)
    if (run.manifest.limited)
      caveatsByRun.set(run.manifest.runId, [
        ...(caveatsByRun.get(run.manifest.runId) ?? []),
        `run ${run.manifest.runId} is ${limitedLine(run.manifest.limited)}`,
      ]);
  // Each run adds its kind's share of the tables' inputs, in the order the runs were given.
  const grid: LoadedRun[] = [];
  const followUps: FollowUpInput[] = [];
  const forgedReasoning: ForgedReasoningInput[] = [];
  const byKind = new Map<string, unknown[]>();
  for (const run of runs) {
    const kind = runKindOfRun(run);
    const input = kind.report.tableInput(run);
    if (input === null) continue;
    if ('grid' in input) grid.push(input.grid);
    else if ('followUp' in input) followUps.push(input.followUp);
    else if ('forgedReasoning' in input) forgedReasoning.push(input.forgedReasoning);
    else byKind.set(kind.id, [...(byKind.get(kind.id) ?? []), input.own]);
  }
  const registry = options.tables ?? TABLES;
  const inputs = { grid, scenarios: await scenarioLabels(grid), followUps, forgedReasoning, byKind };
  const built = buildTables(inputs, registry);
  // Every table says which of its runs are incomplete or were pooled by force.
  const tables = built.map((t) => {
    const caveats = [...new Set(t.runs.flatMap((id) => caveatsByRun.get(id) ?? []))];
    return caveats.length > 0 ? { ...t, caveats } : t;
  });
  const caveats = [...new Set([...caveatsByRun.values()].flat())];
  const report: Report = {
    tables,
    manifests: runs.map((r) => r.manifest),
    markdown: renderMarkdown(tables),
    csv: renderCsv(tables),
    latex: renderLatex(tables),
    caveats,
  };
  // The stalebench paper's diff for grid and follow-up runs; the PoEM paper's for forged-reasoning runs.
  const papers = new Set(runs.map((run) => runKindOfRun(run).report.paper));
  if (options.paper && papers.has('stalebench')) {
    report.diff = diffAgainstPaper(tables, loadPaperReference(options.paperDir), paperTableIds(registry));
    report.diffMarkdown = renderPaperDiffMarkdown(report.diff);
  }
  if (options.paper && papers.has('poem')) {
    report.poemDiff = poemPaperDiff(tables, options.paperDir);
    report.poemDiffMarkdown = renderPaperDiffMarkdown(report.poemDiff, 'arXiv 2608.16032v1, PoEM');
  }
  return report;
}

/** Writes `index.html` through the HTML report and its figures (analysis/html-report.ts, analysis/grid/figures.ts). */
function writeHtml(path: string, input: Omit<HtmlReportInput, 'figures'>): void {
  writeFileSync(path, renderHtmlReport({ ...input, figures: figuresFor(input.tables) }));
}

/**
 * The run directory under the output root `root` whose `manifest.json` was written last (`pnpm report` with no
 * run directory), or the problem: no such directory, or no run in it.
 */
export function latestRunDir(root: string): { dir: string } | { problem: string } {
  const absolute = resolve(root);
  if (!existsSync(absolute) || !statSync(absolute).isDirectory())
    return { problem: `no run to report: ${absolute} does not exist (give a run directory, or --runs <output root>)` };
  const runs = readdirSync(absolute, { withFileTypes: true })
    .filter((entry) => entry.isDirectory() && existsSync(join(absolute, entry.name, 'manifest.json')))
    .map((entry) => ({
      dir: join(root, entry.name),
      written: statSync(join(absolute, entry.name, 'manifest.json')).mtimeMs,
    }))
    .sort((a, b) => b.written - a.written || a.dir.localeCompare(b.dir));
  if (runs.length === 0)
    return {
      problem: `no run to report: no directory under ${absolute} has a manifest.json (run pnpm eval first, or give a run directory)`,
    };
  return { dir: runs[0]!.dir };
}

const OPTIONS = {
  paper: { type: 'boolean' },
  out: { type: 'string', short: 'o' },
  'no-verify': { type: 'boolean' },
  'pool-duplicates': { type: 'boolean' },
  'allow-incomplete': { type: 'boolean' },
  runs: { type: 'string' },
} as const;

/** Entry point; returns the exit code. */
export const main = defineCommand({ usage: USAGE, options: OPTIONS, allowPositionals: true, run: reportCommand });

async function reportCommand(parsed: CommandLine<typeof OPTIONS>, { out, err }: CommandIo): Promise<number> {
  if (parsed.positionals.length === 0) {
    const latest = latestRunDir(parsed.values.runs ?? 'runs');
    if ('problem' in latest) {
      err(`error: ${latest.problem}`);
      return 1;
    }
    err(`reporting the latest run: ${latest.dir}`);
    parsed.positionals.push(latest.dir);
  } else if (parsed.values.runs !== undefined) {
    err('error: --runs picks the latest run when no <run-dir> is given; give one or the other');
    return 1;
  }
  // A suite run (pnpm integrity, ...) is rendered by its suite's report (its `report` member, pipeline/suites/index.ts).
  const suite = parsed.positionals.length === 1 ? suiteOfRunDir(parsed.positionals[0]!) : null;
  if (suite !== null)
    return reportSuiteRun(parsed.positionals[0]!, suite, {
      ...(parsed.values.out === undefined ? {} : { outDir: parsed.values.out }),
      noVerify: parsed.values['no-verify'] === true,
      allowIncomplete: parsed.values['allow-incomplete'] === true,
      out,
      err,
    });
  if (!(await checkRunsForReading(parsed.positionals, { noVerify: parsed.values['no-verify'] === true, err })))
    return 1;
  const report = await buildReport(parsed.positionals, {
    paper: parsed.values.paper === true,
    poolDuplicates: parsed.values['pool-duplicates'] === true,
    allowIncomplete: parsed.values['allow-incomplete'] === true,
  });
  if (report.tables.length === 0) {
    err(
      'error: the runs fill no table (Tables 6–13 need a grid run with direct or natural probes; 14–16 a follow-up run; the PoEM tables a forged-reasoning run)',
    );
    return 1;
  }
  const dir = resolve(parsed.values.out ?? join(parsed.positionals[0]!, 'report'));
  makeDirectory(dir);
  const written = ['tables.md', 'tables.csv', 'tables.tex'];
  writeFileSync(join(dir, 'tables.md'), report.markdown);
  writeFileSync(join(dir, 'tables.csv'), report.csv);
  writeFileSync(join(dir, 'tables.tex'), report.latex);
  if (report.diff && report.diffMarkdown) {
    writeFileSync(join(dir, 'paper-diff.md'), report.diffMarkdown);
    writeJsonAtomic(join(dir, 'paper-diff.json'), report.diff);
    written.push('paper-diff.md', 'paper-diff.json');
  }
  if (report.poemDiff && report.poemDiffMarkdown) {
    writeFileSync(join(dir, 'poem-paper-diff.md'), report.poemDiffMarkdown);
    writeJsonAtomic(join(dir, 'poem-paper-diff.json'), report.poemDiff);
    written.push('poem-paper-diff.md', 'poem-paper-diff.json');
  }
  const title = `stalebench report: ${report.manifests.map((m) => m.runId).join(', ')}`;
  writeHtml(join(dir, 'index.html'), {
    title,
    tables: report.tables,
    manifests: report.manifests,
    ...(report.diff ? { diff: report.diff } : report.poemDiff ? { diff: report.poemDiff } : {}),
  });
  written.push('index.html');
  out(report.markdown);
  if (report.diffMarkdown) out(report.diffMarkdown);
  if (report.poemDiffMarkdown) out(report.poemDiffMarkdown);
  for (const caveat of report.caveats) err(`warning: ${caveat}`);
  out(`wrote ${written.map((file) => join(dir, file)).join(', ')}`);
  return 0;
}

runAsEntryPoint(import.meta.url, main);
