// Recomputes a stored run from its directory alone (no network, backend or model) and compares every stored value with it.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promptFingerprint, type ActionParserId } from '../pipeline/index.js';
import type { FollowUpSummary } from './follow-ups/follow-up-summary.js';
import type { RunHead } from './load-run.js';
import { DifferenceLog, rowLabel, type RecomputeDifference } from './recompute-diff.js';
import type { GridRecomputed, GridRecomputeInput } from './grid/recompute-grid.js';
import { exposureRules, loadRunScenarios } from './rescore-inputs.js';
import { runKindOf, type RunKindRescore } from './run-kinds/index.js';
import { READABLE_SUMMARY_VERSIONS, SUMMARY_VERSION, type Summary } from './grid/summarize.js';

/** Options of `recomputeRun`. */
export interface RecomputeOptions {
  /** The action parser (default `paper`, the one every run is scored with). */
  parser?: ActionParserId;
  /** Where the run's scenario files are, when not in the repository (or not where the run found them). */
  scenarioDir?: string;
  /** Grid runs: sees every recomputed unit record in file order (e.g. `pnpm rescore --guard-*`). */
  onGridRecord?: GridRecomputeInput['onRecord'];
}

/** A run recomputed from its own inputs, and every stored value that differs from the recomputation. */
export interface RecomputedRun {
  parser: ActionParserId;
  /** The summary the recomputed records give, in `summary.json`'s shape. */
  summary: Summary | ({ version: typeof SUMMARY_VERSION } & FollowUpSummary);
  /** Grid runs: the recomputed probes and records. */
  grid: GridRecomputed | null;
  /** In file order: setup.jsonl, records.jsonl (or `<experiment>.jsonl`), then summary.json. */
  differences: RecomputeDifference[];
  /** Lines re-derived, per file. */
  lines: Record<string, number>;
  /** What this run holds that cannot be recomputed from the run directory, and was kept as stored. */
  notRechecked: string[];
}

/** The rescore side of a run's kind; throws naming a kind that has none (its runs are read as stored). */
export function rescoreOf(run: RunHead): RunKindRescore {
  const kind = runKindOf(run.manifest);
  if (!kind.rescore) throw new Error(`${run.runDir}: ${kind.id} runs have no rescore path`);
  return kind.rescore;
}

/** The inputs every rescore keeps: what the stores returned and what the models replied are data, not results. */
const INPUTS_NOTE =
  "inputs kept as stored: the records each read returned (the store's answers) and each reply text (the model's); everything derived from them is recomputed";

/**
 * Re-derives every stored record of the run with this code: parsed actions (with `parser`), scores, exposure labels
 * (status and lexical rules), guard traces (recorded clocks), output-filter verdicts, PoEM traces, tool episodes,
 * and the summary; then compares each with what is stored. Throws `InvalidInputError` when the run's scenarios
 * differ from the ones available (their sha256 is in the manifest).
 *
 * @example const { differences } = await recomputeRun(loadRun('runs/sim_8e9e3bd3'));
 */
export async function recomputeRun(run: RunHead, options: RecomputeOptions = {}): Promise<RecomputedRun> {
  const parser = options.parser ?? 'paper';
  const { spec } = run.manifest;
  const rescore = rescoreOf(run);
  const scenarios = await loadRunScenarios(run, rescore.scenarios, options.scenarioDir);
  const rules = await exposureRules(spec.systems);
  const log = new DifferenceLog();
  const recomputed = await rescore.recompute({
    run,
    scenarios,
    rules,
    parser,
    log,
    ...(options.onGridRecord ? { onGridRecord: options.onGridRecord } : {}),
  });
  const summary = recomputed.summary as RecomputedRun['summary'];
  const { grid, lines, oracleSystems } = recomputed;
  const notRechecked = [INPUTS_NOTE, ...recomputed.notRechecked];
  if (oracleSystems.length > 0)
    notRechecked.push(
      `exposure labels of ${oracleSystems.join(', ')} come from the store's own revocation state (oracle rule), gone with the namespace: kept as stored, not recomputed`,
    );
  if (spec.poem.includes('on')) notRechecked.push(rescore.poemNotRechecked);
  comparePrompts(run, log, notRechecked);
  compareSummary(run.runDir, summary, log);
  return { parser, summary, grid, differences: log.differences, lines, notRechecked };
}

/**
 * The prompt version: the manifest's sha256 of every prompt part the experiment sends must be this code's, or the
 * messages rebuilt from a stored context are not the ones the run sent.
 */
function comparePrompts(run: RunHead, log: DifferenceLog, notRechecked: string[]): void {
  const recorded = run.manifest.prompts;
  if (recorded === undefined) {
    notRechecked.push('prompt version: the manifest predates prompt hashes; messages are rebuilt with this code');
    return;
  }
  const where = { file: 'manifest.json', line: null, record: 'manifest' };
  log.compare(where, 'prompts', recorded, promptFingerprint(run.manifest.spec.experiment ?? 'grid'));
}

/** Compares `summary.json` with the recomputed summary, row by row for the arrays (cells, Table 14–16 rows). */
function compareSummary(runDir: string, summary: object, log: DifferenceLog): void {
  const path = join(runDir, 'summary.json');
  const where = { file: 'summary.json', line: null, record: 'summary' };
  if (!existsSync(path)) {
    log.add({ ...where, field: '', stored: undefined, recomputed: '(the summary pnpm eval writes)' });
    return;
  }
  const stored = JSON.parse(readFileSync(path, 'utf8')) as Record<string, unknown>;
  // An older readable summary differs only by the fields its version lacks, which its run cannot have produced.
  if (!READABLE_SUMMARY_VERSIONS.includes(stored.version as number))
    throw new Error(
      `${path}: summary version ${JSON.stringify(stored.version)} ${typeof stored.version === 'number' && stored.version > SUMMARY_VERSION ? 'was written by a newer stalebench' : 'is not supported'} (this one checks versions ${READABLE_SUMMARY_VERSIONS.join(' and ')})`,
    );
  for (const [key, value] of Object.entries(summary)) {
    if (key === 'version') continue;
    const before = stored[key];
    if (!Array.isArray(value) || !Array.isArray(before)) {
      log.compare(where, key, before, value);
      continue;
    }
    for (let i = 0; i < Math.max(value.length, before.length); i += 1) {
      log.compare({ ...where, record: rowLabel(before[i] ?? value[i]) || key }, `${key}[${i}]`, before[i], value[i]);
    }
  }
}
