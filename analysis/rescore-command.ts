// `pnpm rescore <run-dir>...`: recomputes every stored record, score, exposure and guard verdict from the run directory alone.
import { join, resolve } from 'node:path';
import { DEFAULT_GUARD_CONFIG, resolveGuardConfig, type GuardConfig } from '../guard/guard-config.js';
import { InvalidInputError, type InputIssue } from '#core/errors.js';
import { AXES, axisOn, writeJsonAtomic, ACTION_PARSERS, type ActionParserId } from '../pipeline/index.js';
import { formatSummaryTable } from './format-table.js';
import {
  createGuardRescorer,
  describeGuardConfig,
  formatGuardMetricsComparison,
  type GuardRescore,
} from './grid/guard-rescore.js';
import { readRunHead } from './load-run.js';
import { formatParserMoves, parserMoves, type ParserMoves } from './grid/parser-moves.js';
import { describeDifference, rowLabel } from './recompute-diff.js';
import { recomputeRun, rescoreOf, type RecomputedRun } from './recompute-run.js';
import { runKindOf } from './run-kinds/index.js';
import type { Summary } from './grid/summarize.js';
import { verifyRunsFirst } from './verify-runs.js';
import { defineCommand, runAsEntryPoint, type CommandIo, type CommandLine } from '#core/command.js';

type GuardKey = keyof GuardConfig;
const GUARD_KEYS = Object.keys(DEFAULT_GUARD_CONFIG) as GuardKey[];

/** The flag of each guard configuration field: `--guard-` plus the key in kebab case (`subjectOverlap` → `guard-subject-overlap`). */
export const GUARD_FLAGS: Readonly<Record<GuardKey, string>> = Object.fromEntries(
  GUARD_KEYS.map((key) => [key, `guard-${key.replace(/[A-Z]/g, (letter) => `-${letter.toLowerCase()}`)}`]),
) as Record<GuardKey, string>;

/** One usage line per guard flag: the flag and its value kind, padded, then its default. */
function guardUsageLine(key: GuardKey): string {
  const flag = `    --${GUARD_FLAGS[key]} <${typeof DEFAULT_GUARD_CONFIG[key] === 'boolean' ? 'true|false' : 'number'}>`;
  return `${flag.padEnd(48)}default ${String(DEFAULT_GUARD_CONFIG[key])}`;
}

/** How many context-changed unit ids the text output lists before pointing at the JSON. */
const LISTED_UNIT_IDS = 50;
/** How many differences `--check` lists after the first. */
const LISTED_DIFFERENCES = 10;

const USAGE = `usage: pnpm rescore <run-dir> [<run-dir>...] [--check] [--parser paper|strict] [--scenario-dir <dir>] [--guard-<key> <value>...] [--no-verify]
  recomputes every stored record from the run directory alone (no network, backend or model): parsed actions,
  scores, exposure labels (status and lexical rules; oracle labels are kept), guard traces with their recorded
  clocks, output-filter verdicts, PoEM traces, tool episodes; writes <run-dir>/summary.rescored.json from them
  --check               exit 1 naming the first stored value (file, line, unit, field) that differs from its
                        recomputation, summary.json cells included
  --parser strict       a documented deviation from the paper's parser (stale-retrieval.md §6.3): the reply's JSON
                        "action" field must be a string equal to exactly one allowed action (case-insensitive,
                        trimmed); anything else (no JSON, a refusal, prose, two actions) is a parse failure.
                        summary.rescored.json is then built with it, and how far each cell moves is printed
  --scenario-dir <dir>  the run's scenario files, when they are not the repository's (their sha256 must equal the
                        manifest's; a rescore with other scenario text is refused)
  --no-verify           read runs whose hash-chained log does not verify (pnpm verify-run), e.g. runs older than the chain
  re-apply the stale-retrieval guard to the stored reads with another configuration (stale-retrieval.md §10.1):
${GUARD_KEYS.map(guardUsageLine).join('\n')}
  with a guard flag: Table 9 is recomputed from setup.jsonl; units whose context would change are listed,
  never re-decided (that needs a new model call); summary.rescored.json gains guardConfig and guardRescore`;

/** `summary.rescored.json` when guard flags were given: the recomputed summary with Table 9 under the new configuration. */
export type RescoredSummary = Summary & {
  guardConfig: GuardConfig;
  guardRescore: Omit<GuardRescore, 'guardConfig' | 'guardMetrics'>;
  parser?: 'strict';
  parserMoves?: ParserMoves;
};

/**
 * The guard configuration named by `--guard-*` flags, validated by the guard's own `resolveGuardConfig`; null when
 * no guard flag was given. Throws `InvalidInputError` whose issues name the flags.
 *
 * @example guardConfigFromFlags({ 'guard-subject-overlap': '0.3' }) // { subjectOverlap: 0.3, ...defaults }
 */
export function guardConfigFromFlags(values: Readonly<Record<string, unknown>>): GuardConfig | null {
  const given = GUARD_KEYS.filter((key) => typeof values[GUARD_FLAGS[key]] === 'string');
  if (given.length === 0) return null;
  const candidate: Record<string, unknown> = {};
  for (const key of given) {
    const text = (values[GUARD_FLAGS[key]] as string).trim();
    if (typeof DEFAULT_GUARD_CONFIG[key] === 'number')
      candidate[key] = /^[+-]?(\d+\.?\d*|\.\d+)(e[+-]?\d+)?$/i.test(text) ? Number(text) : text;
    else candidate[key] = text === 'true' ? true : text === 'false' ? false : text;
  }
  try {
    return resolveGuardConfig(candidate as Partial<GuardConfig>, 'guard flags');
  } catch (error) {
    if (!(error instanceof InvalidInputError)) throw error;
    const flagOf = (path: string) => (Object.hasOwn(GUARD_FLAGS, path) ? `--${GUARD_FLAGS[path as GuardKey]}` : path);
    const issues = error.issues.map(
      (issue): InputIssue => ({
        path: flagOf(issue.path),
        message: `${issue.message} (got ${JSON.stringify(values[flagOf(issue.path).slice(2)])})`,
      }),
    );
    throw new InvalidInputError('guard flags', issues);
  }
}

function reportGuardRescore(runDir: string, rescore: GuardRescore, out: (line: string) => void): void {
  out(`\nstale-retrieval guard re-applied to the stored reads (${describeGuardConfig(rescore.guardConfig)}):`);
  out('Table 9 (revoked = default read minus filtered read; recorded = default configuration at run time):');
  out(formatGuardMetricsComparison(rescore.recordedGuardMetrics, rescore.guardMetrics));
  if (rescore.unreproducedProbes.length > 0) {
    out(
      `warning: the default guard of this code does not reproduce the recorded verdicts of ${rescore.unreproducedProbes.length} probe(s): ${rescore.unreproducedProbes.join(', ')}`,
    );
  }
  const { traced, verdictChanged, contextChanged, contextChangedUnitIds } = rescore.units;
  out(
    `\nunits with a guard trace: ${traced}; different verdict: ${verdictChanged}; different context (kept texts): ${contextChanged}`,
  );
  if (contextChanged === 0) {
    out(
      traced === 0
        ? 'no unit went through the guard (no guard arm, no --guard on): nothing to re-check.'
        : 'no context changes: every recorded decision stands under the new configuration.',
    );
    return;
  }
  out(`${contextChanged} unit(s) would see a different context and cannot be re-scored without a new model call;`);
  out('the summary cells above keep their recorded decisions. Cells affected:');
  for (const cell of rescore.cells.filter((c) => c.contextChanged > 0)) {
    const after = cell.contextExposureAfter
      ? `${cell.contextExposureAfter.k}/${cell.contextExposureAfter.n}`
      : 'unknown';
    out(
      `  ${cell.modelLabel} ${cell.system} ${cell.mode} ${cell.arm}${AXES.filter((axis) => axisOn(cell, axis.id))
        .map((axis) => ` +${axis.id}`)
        .join(
          '',
        )}: ${cell.contextChanged}/${cell.units} units; context exposure ${cell.contextExposureBefore.k}/${cell.contextExposureBefore.n} → ${after}`,
    );
  }
  out('units:');
  for (const id of contextChangedUnitIds.slice(0, LISTED_UNIT_IDS)) out(`  ${id}`);
  if (contextChangedUnitIds.length > LISTED_UNIT_IDS)
    out(
      `  ... ${contextChangedUnitIds.length - LISTED_UNIT_IDS} more, all in ${join(runDir, 'summary.rescored.json')} (guardRescore.units.contextChangedUnitIds)`,
    );
}

/** The options of one rescore, from the flags. */
interface RescoreOptions {
  check: boolean;
  parser: ActionParserId;
  scenarioDir: string | undefined;
  guardConfig: GuardConfig | null;
}

/** Says whether every stored value matches its recomputation (with the first differences); true when all match. */
function reportCheck(
  runDir: string,
  recomputed: RecomputedRun,
  check: boolean,
  summaryEntries: string,
  out: (line: string) => void,
): boolean {
  const { differences, lines, notRechecked } = recomputed;
  for (const note of notRechecked) out(`not rechecked: ${note}`);
  const [first] = differences;
  if (!first) {
    out(
      `${runDir}: every stored value matches its recomputation (${Object.entries(lines)
        .map(([file, n]) => `${file}: ${n} line(s)`)
        .join(', ')}, summary.json)`,
    );
    if (check) out(`${runDir}: summary ${summaryEntries} identical`);
    return true;
  }
  if (!check) {
    out(
      `warning: ${differences.length} stored value(s) differ from their recomputation; the first: ${describeDifference(first)} (--check fails on it)`,
    );
    return false;
  }
  out(`${runDir}: stored values DIFFER from their recomputation; the first: ${describeDifference(first)}`);
  const rest = differences.slice(1, 1 + LISTED_DIFFERENCES);
  if (rest.length > 0)
    out(
      `${differences.length} difference(s) in all; the next ${rest.length}:\n${rest.map((d) => `  ${describeDifference(d)}`).join('\n')}`,
    );
  return false;
}

/** Rescores one run directory; returns false when --check finds a difference. */
async function rescoreRun(runDir: string, options: RescoreOptions, out: (line: string) => void): Promise<boolean> {
  // The records are streamed through the recomputation, never held (issue #18: a rescore of any size).
  const run = readRunHead(runDir);
  const kind = runKindOf(run.manifest);
  const rescore = rescoreOf(run);
  // A follow-up run's guarded reads fed later steps, so other thresholds cannot be applied to it after the fact.
  if (options.guardConfig !== null && !rescore.guardRescore)
    throw new Error(
      `${runDir}: --guard-* re-application covers grid runs; this is a ${kind.id} run, whose guarded reads fed later steps`,
    );
  // The guard is re-applied to the records of the parser whose summary is written (an invalid config fails first).
  const rescorer = options.guardConfig === null ? null : createGuardRescorer(run.manifest, options.guardConfig);
  const onGridRecord = (parser: ActionParserId) =>
    rescorer && parser === options.parser ? { onGridRecord: rescorer.add } : {};
  const paper = await recomputeRun(run, {
    parser: 'paper',
    ...(options.scenarioDir ? { scenarioDir: options.scenarioDir } : {}),
    ...onGridRecord('paper'),
  });
  const strict =
    options.parser === 'strict'
      ? await recomputeRun(run, {
          parser: 'strict',
          ...(options.scenarioDir ? { scenarioDir: options.scenarioDir } : {}),
          ...onGridRecord('strict'),
        })
      : null;
  const chosen = strict ?? paper;
  const moves = strict && parserMoves(paper.summary, strict.summary, rowLabel);
  const parserFields = moves ? { parser: 'strict' as const, parserMoves: moves } : {};
  const target = join(runDir, 'summary.rescored.json');
  if (rescorer === null) {
    writeJsonAtomic(target, { ...chosen.summary, ...parserFields });
    out(rescore.format(chosen.summary));
  } else {
    const summary = chosen.summary as Summary;
    const { guardConfig: config, guardMetrics, ...rest } = rescorer.finish(chosen.grid!.probes);
    writeJsonAtomic(target, {
      ...summary,
      guardMetrics,
      guardConfig: config,
      guardRescore: rest,
      ...parserFields,
    } satisfies RescoredSummary);
    out(formatSummaryTable({ ...summary, guardMetrics: [] }));
    reportGuardRescore(runDir, { guardConfig: config, guardMetrics, ...rest }, out);
  }
  if (moves) {
    out(
      `\n${formatParserMoves(moves)}\n(the paper's parser stays the default everywhere; summary.rescored.json holds the strict summary, parser and parserMoves.${rescore.parserNote})`,
    );
  }
  return reportCheck(runDir, paper, options.check, rescore.summaryEntries, out);
}

const OPTIONS = {
  check: { type: 'boolean' },
  'no-verify': { type: 'boolean' },
  parser: { type: 'string' },
  'scenario-dir': { type: 'string' },
  ...Object.fromEntries(GUARD_KEYS.map((key) => [GUARD_FLAGS[key], { type: 'string' as const }])),
} as const;

/** Entry point; resolves to the exit code. Reads run directories only: no network, no backend, no model. */
export const main = defineCommand({ usage: USAGE, options: OPTIONS, allowPositionals: true, run: rescoreCommand });

async function rescoreCommand(
  parsed: CommandLine<typeof OPTIONS>,
  { out, err, usageError }: CommandIo,
): Promise<number> {
  const parser = parsed.values.parser ?? 'paper';
  if (!Object.hasOwn(ACTION_PARSERS, parser)) {
    err(
      `error: --parser: unknown parser ${JSON.stringify(parser)}; available: ${Object.keys(ACTION_PARSERS).join(', ')}`,
    );
    return 1;
  }
  const guardConfig = guardConfigFromFlags(parsed.values);
  if (parsed.positionals.length === 0) return usageError();
  if (!verifyRunsFirst(parsed.positionals, { noVerify: parsed.values['no-verify'] === true, err })) return 1;
  const options: RescoreOptions = {
    check: parsed.values.check === true,
    parser: parser as ActionParserId,
    scenarioDir: parsed.values['scenario-dir'],
    guardConfig,
  };
  let code = 0;
  for (const dir of parsed.positionals) {
    const runDir = resolve(dir);
    try {
      if (!(await rescoreRun(runDir, options, out)) && options.check) code = 1;
    } catch (error) {
      err(`error: ${(error as Error).message}`);
      code = 1;
    }
  }
  return code;
}

runAsEntryPoint(import.meta.url, main);
