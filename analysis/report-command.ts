// `pnpm report [<run...>] [--paper] [-o DIR]`: the latest run, or the runs given; the paper's tables from run directories only (no network, backend or model).
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { z } from 'zod';
import { InvalidInputError, type InputIssue } from '#core/errors.js';
import { limitedLine, suiteOfRunDir, writeJsonAtomic, type RunManifest } from '../pipeline/index.js';
import { figuresFor } from './grid/figures.js';
import {
  loadForgedReasoningReportRun,
  poemPaperDiff,
  reasoningInputOf,
  reasoningUnitsDone,
  reportManifestFields,
} from './forged-reasoning/report-poem.js';
import { loadFollowUpRecords, summarizeFollowUpRun } from './follow-ups/follow-up-summary.js';
import { embedderOf } from './grid/grid-index.js';
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
import { reportSuiteRun } from './suite-report-run.js';
import { checkRunsForReading } from './verify-runs.js';
import { defineCommand, runAsEntryPoint, type CommandIo, type CommandLine } from '#core/command.js';

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

// Only the fields the report reads are checked; anything else may vary between run-log writers.
const manifestSchema = z.object({
  ...reportManifestFields,
  embedder: z.object({ id: z.string().min(1), dimensions: z.number() }),
  counts: z.object({ units: z.number().int().nonnegative(), done: z.number().int().nonnegative() }).optional(),
  spec: z.object({
    experiment: z.enum(['grid', 'writeback', 'propagation', 'tools']).optional(),
    systems: z.array(z.string()).min(1),
    modes: z.array(z.enum(['direct', 'natural'])).min(1),
    arms: z.array(z.string()).min(1),
    scenarios: z.array(z.string()).min(1),
    scenarioDir: z.string().nullable().optional(),
    trials: z.number().int().positive(),
    guard: z
      .array(z.enum(['off', 'on']))
      .min(1)
      .optional(),
    poem: z
      .array(z.enum(['off', 'on']))
      .min(1)
      .optional(),
  }),
  extraction: z.object({ id: z.string(), simulated: z.boolean() }).optional(),
});
const keyFields = {
  system: z.string().min(1),
  mode: z.string().min(1),
  arm: z.string().min(1),
  model: z.string().min(1),
};
const gridRecordSchema = z
  .object({
    unitId: z.string().min(1),
    key: z.object({
      ...keyFields,
      scenario: z.string().min(1),
      guard: z.boolean().optional(),
      poem: z.boolean().optional(),
    }),
    status: z.enum(['ok', 'error']),
    scores: z.object({ unsafe: z.boolean().nullable(), parseFailure: z.boolean() }).optional(),
  })
  .refine((r) => r.status !== 'ok' || r.scores !== undefined, {
    path: ['scores'],
    message: 'a completed unit needs its scores',
  });
const probeSchema = z.object({
  system: z.string().min(1),
  mode: z.enum(['direct', 'natural']),
  scenario: z.string().min(1),
  status: z.enum(['ok', 'not-applicable', 'error']),
  defaultRead: z.array(z.object({ text: z.string() })).optional(),
  filteredRead: z
    .array(z.object({ text: z.string() }))
    .nullable()
    .optional(),
  exposure: z.object({ exposed: z.boolean(), revokedRank: z.number().nullable() }).optional(),
  guard: z.object({ withheldTexts: z.array(z.string()) }).optional(),
});
const followUpRecordSchema = z.object({
  unitId: z.string().min(1),
  key: z.object({ ...keyFields, guard: z.boolean(), poem: z.boolean() }),
  status: z.enum(['ok', 'error', 'not-applicable']),
});

/** How many problems of one file are listed before the error stops. */
const MAX_ISSUES = 5;

/** Validates a JSON file or every line of a JSONL file; throws one InvalidInputError naming the file, line and field. */
function validateFile(path: string, schema: z.ZodType, lines: boolean): number {
  if (!existsSync(path)) return 0;
  const text = readFileSync(path, 'utf8');
  const rows = lines ? text.split('\n') : [text];
  // A last line without its newline is a write cut short by a kill; the loader skips it, and so does the check.
  if (lines) rows.pop();
  const issues: InputIssue[] = [];
  let count = 0;
  rows.forEach((row, index) => {
    if (row.trim() === '' || issues.length >= MAX_ISSUES) return;
    const where = lines ? `line ${index + 1}` : '';
    let json: unknown;
    try {
      json = JSON.parse(row);
    } catch (error) {
      issues.push({ path: where, message: `not valid JSON (${(error as Error).message})` });
      return;
    }
    count += 1;
    const parsed = schema.safeParse(json);
    if (!parsed.success)
      for (const issue of parsed.error.issues.slice(0, MAX_ISSUES - issues.length))
        issues.push({ path: [where, issue.path.join('.')].filter(Boolean).join(': '), message: issue.message });
  });
  if (issues.length > 0) throw new InvalidInputError(path, issues);
  return count;
}

/** Loads one run directory after checking every field the report reads. */
export function loadReportRun(dir: string): LoadedRun {
  const runDir = resolve(dir);
  const manifestPath = join(runDir, 'manifest.json');
  if (!existsSync(runDir) || !statSync(runDir).isDirectory())
    throw new InvalidInputError(runDir, [{ path: '', message: 'not a directory' }]);
  if (!existsSync(manifestPath))
    throw new InvalidInputError(manifestPath, [{ path: '', message: `missing; ${runDir} is not a run directory` }]);
  const loaded = loadForgedReasoningReportRun(runDir, manifestPath);
  if (loaded) return loaded;
  validateFile(manifestPath, manifestSchema, false);
  const manifest = JSON.parse(readFileSync(manifestPath, 'utf8')) as RunManifest;
  const experiment = manifest.spec.experiment ?? 'grid';
  if (experiment === 'grid') {
    const probes = validateFile(join(runDir, 'setup.jsonl'), probeSchema, true);
    const records = validateFile(join(runDir, 'records.jsonl'), gridRecordSchema, true);
    if (probes + records === 0)
      throw new InvalidInputError(runDir, [
        { path: 'setup.jsonl, records.jsonl', message: 'no probe and no unit recorded: nothing to report' },
      ]);
  } else if (validateFile(join(runDir, `${experiment}.jsonl`), followUpRecordSchema, true) === 0) {
    throw new InvalidInputError(join(runDir, `${experiment}.jsonl`), [
      { path: '', message: `missing or empty: a ${experiment} run records its units there` },
    ]);
  }
  return loadRun(runDir);
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
      const experiment = run.manifest.spec.experiment ?? 'grid';
      const done =
        experiment === 'grid'
          ? run.records.size
          : experiment === 'forged-reasoning'
            ? reasoningUnitsDone(run.runDir)
            : loadFollowUpRecords(run.runDir, experiment).length;
      return runProgress(run, done);
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
  const grid = runs.filter((r) => (r.manifest.spec.experiment ?? 'grid') === 'grid');
  const reasoning = runs.filter((r) => r.manifest.spec.experiment === 'forged-reasoning');
  const followUps: FollowUpInput[] = [];
  for (const run of runs.filter((r) => !grid.includes(r) && !reasoning.includes(r))) {
    const summary = summarizeFollowUpRun(run);
    // Natural write-back ingests the journal through the extraction model, so a simulated extractor makes it sim too.
    const extraction =
      run.manifest.spec.experiment === 'writeback' &&
      run.manifest.spec.arms.includes('natural') &&
      run.manifest.extraction?.simulated === true;
    if (summary)
      followUps.push({
        runId: run.manifest.runId,
        simulated: run.manifest.simulated || extraction,
        summary,
        embedder: embedderOf(run),
      });
  }
  const registry = options.tables ?? TABLES;
  const forgedReasoning = reasoning.map(reasoningInputOf);
  const built = buildTables({ grid, scenarios: await scenarioLabels(grid), followUps, forgedReasoning }, registry);
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
  if (options.paper && reasoning.length < runs.length) {
    report.diff = diffAgainstPaper(tables, loadPaperReference(options.paperDir), paperTableIds(registry));
    report.diffMarkdown = renderPaperDiffMarkdown(report.diff);
  }
  if (options.paper && reasoning.length > 0) {
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
  mkdirSync(dir, { recursive: true });
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
