// `pnpm rescore <run-dir>...`: recomputes every score, exposure and guard metric from stored records only.
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { DEFAULT_GUARD_CONFIG, resolveGuardConfig, type GuardConfig } from '../guard/guard-config.js';
import { InvalidInputError, type InputIssue } from '../pipeline/errors.js';
import { writeJsonAtomic } from '../pipeline/json-files.js';
import { formatSummaryTable } from './format-table.js';
import { describeGuardConfig, formatGuardMetricsComparison, rescoreGuard, type GuardRescore } from './guard-rescore.js';
import { loadRun, summarizeRun } from './load-run.js';
import { summarizeFollowUpRun } from './follow-up-summary.js';
import { formatFollowUpSummary } from './format-follow-up.js';
import type { Summary } from './summarize.js';
import { verifyRunsFirst } from './verify-runs.js';

type GuardKey = keyof GuardConfig;
const GUARD_KEYS = Object.keys(DEFAULT_GUARD_CONFIG) as GuardKey[];

/** The flag of each guard configuration field: `--guard-` plus the key in kebab case (`subjectOverlap` → `guard-subject-overlap`). */
export const GUARD_FLAGS: Readonly<Record<GuardKey, string>> = Object.fromEntries(
  GUARD_KEYS.map((key) => [key, `guard-${key.replace(/[A-Z]/g, (letter) => `-${letter.toLowerCase()}`)}`]),
) as Record<GuardKey, string>;

/** How many context-changed unit ids the text output lists before pointing at the JSON. */
const LISTED_UNIT_IDS = 50;

const USAGE = `usage: pnpm rescore <run-dir> [<run-dir>...] [--check] [--guard-<key> <value>...] [--no-verify]
  writes <run-dir>/summary.rescored.json; --check exits 1 unless the cells equal summary.json byte for byte
  re-apply the stale-retrieval guard to the stored reads with another configuration (stale-retrieval.md §10.1):
${GUARD_KEYS.map((key) => `    --${GUARD_FLAGS[key]} <${typeof DEFAULT_GUARD_CONFIG[key] === 'boolean' ? 'true|false' : 'number'}>`.padEnd(48) + `default ${String(DEFAULT_GUARD_CONFIG[key])}`).join('\n')}
  with a guard flag: Table 9 is recomputed from setup.jsonl; units whose context would change are listed,
  never re-decided (that needs a new model call); summary.rescored.json gains guardConfig and guardRescore
  --no-verify: read runs whose hash-chained log does not verify (pnpm verify-run), e.g. runs older than the chain`;

/** `summary.rescored.json` when guard flags were given: the recomputed summary with Table 9 under the new configuration. */
export type RescoredSummary = Summary & { guardConfig: GuardConfig; guardRescore: Omit<GuardRescore, 'guardConfig' | 'guardMetrics'> };

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
    if (typeof DEFAULT_GUARD_CONFIG[key] === 'number') candidate[key] = /^[+-]?(\d+\.?\d*|\.\d+)(e[+-]?\d+)?$/i.test(text) ? Number(text) : text;
    else candidate[key] = text === 'true' ? true : text === 'false' ? false : text;
  }
  try {
    return resolveGuardConfig(candidate as Partial<GuardConfig>, 'guard flags');
  } catch (error) {
    if (!(error instanceof InvalidInputError)) throw error;
    const flagOf = (path: string) => (Object.hasOwn(GUARD_FLAGS, path) ? `--${GUARD_FLAGS[path as GuardKey]}` : path);
    const issues = error.issues.map((issue): InputIssue => ({ path: flagOf(issue.path), message: `${issue.message} (got ${JSON.stringify(values[flagOf(issue.path).slice(2)])})` }));
    throw new InvalidInputError('guard flags', issues);
  }
}

function reportGuardRescore(runDir: string, rescore: GuardRescore, out: (line: string) => void): void {
  out(`\nstale-retrieval guard re-applied to the stored reads (${describeGuardConfig(rescore.guardConfig)}):`);
  out('Table 9 (revoked = default read minus filtered read; recorded = default configuration at run time):');
  out(formatGuardMetricsComparison(rescore.recordedGuardMetrics, rescore.guardMetrics));
  if (rescore.unreproducedProbes.length > 0) {
    out(`warning: the default guard of this code does not reproduce the recorded verdicts of ${rescore.unreproducedProbes.length} probe(s): ${rescore.unreproducedProbes.join(', ')}`);
  }
  const { traced, verdictChanged, contextChanged, contextChangedUnitIds } = rescore.units;
  out(`\nunits with a guard trace: ${traced}; different verdict: ${verdictChanged}; different context (kept texts): ${contextChanged}`);
  if (contextChanged === 0) {
    out(traced === 0 ? 'no unit went through the guard (no guard arm, no --guard on): nothing to re-check.' : 'no context changes: every recorded decision stands under the new configuration.');
    return;
  }
  out(`${contextChanged} unit(s) would see a different context and cannot be re-scored without a new model call;`);
  out('the summary cells above keep their recorded decisions. Cells affected:');
  for (const cell of rescore.cells.filter((c) => c.contextChanged > 0)) {
    const after = cell.contextExposureAfter ? `${cell.contextExposureAfter.k}/${cell.contextExposureAfter.n}` : 'unknown';
    out(`  ${cell.modelLabel} ${cell.system} ${cell.mode} ${cell.arm}${cell.guard === 'on' ? ' +guard' : ''}${cell.poem === 'on' ? ' +poem' : ''}: ${cell.contextChanged}/${cell.units} units; context exposure ${cell.contextExposureBefore.k}/${cell.contextExposureBefore.n} → ${after}`);
  }
  out('units:');
  for (const id of contextChangedUnitIds.slice(0, LISTED_UNIT_IDS)) out(`  ${id}`);
  if (contextChangedUnitIds.length > LISTED_UNIT_IDS) out(`  ... ${contextChangedUnitIds.length - LISTED_UNIT_IDS} more, all in ${join(runDir, 'summary.rescored.json')} (guardRescore.units.contextChangedUnitIds)`);
}

/** Entry point; returns the exit code. Reads run directories only: no network, no backend, no model. */
export function main(argv: readonly string[], out: (line: string) => void = console.log, err: (line: string) => void = console.error): number {
  let parsed;
  let guardConfig: GuardConfig | null;
  try {
    const guardOptions = Object.fromEntries(GUARD_KEYS.map((key) => [GUARD_FLAGS[key], { type: 'string' as const }]));
    parsed = parseArgs({ args: [...argv], allowPositionals: true, strict: true, options: { check: { type: 'boolean' }, 'no-verify': { type: 'boolean' }, help: { type: 'boolean', short: 'h' }, ...guardOptions } });
  } catch (error) {
    err(`error: ${(error as Error).message}\n${USAGE}`);
    return 1;
  }
  try {
    guardConfig = guardConfigFromFlags(parsed.values);
  } catch (error) {
    err(`error: ${(error as Error).message}`);
    return 1;
  }
  if (parsed.values.help || parsed.positionals.length === 0) {
    (parsed.values.help ? out : err)(USAGE);
    return parsed.values.help ? 0 : 1;
  }
  if (!verifyRunsFirst(parsed.positionals, { noVerify: parsed.values['no-verify'] === true, err })) return 1;
  let code = 0;
  for (const dir of parsed.positionals) {
    const runDir = resolve(dir);
    try {
      const run = loadRun(runDir);
      const followUp = summarizeFollowUpRun(run);
      if (followUp) {
        // A follow-up run (write-back, propagation, tools): its Table 14/15/16 rows, from `<experiment>.jsonl` alone.
        if (guardConfig !== null) throw new Error(`${runDir}: --guard-* re-application covers grid runs; this is a ${followUp.experiment} run, whose guarded reads fed later steps`);
        const rescored = { version: 1, ...followUp };
        writeJsonAtomic(join(runDir, 'summary.rescored.json'), rescored);
        out(formatFollowUpSummary(followUp));
        if (parsed.values.check) {
          const same = JSON.stringify(JSON.parse(readFileSync(join(runDir, 'summary.json'), 'utf8'))) === JSON.stringify(rescored);
          out(same ? `${runDir}: summary rows identical` : `${runDir}: summary rows DIFFER from summary.json`);
          if (!same) code = 1;
        }
        continue;
      }
      const summary = summarizeRun(run);
      if (guardConfig === null) {
        writeJsonAtomic(join(runDir, 'summary.rescored.json'), summary);
        out(formatSummaryTable(summary));
      } else {
        const { guardConfig: config, guardMetrics, ...rest } = rescoreGuard(run, guardConfig);
        writeJsonAtomic(join(runDir, 'summary.rescored.json'), { ...summary, guardMetrics, guardConfig: config, guardRescore: rest } satisfies RescoredSummary);
        out(formatSummaryTable({ ...summary, guardMetrics: [] }));
        reportGuardRescore(runDir, { guardConfig: config, guardMetrics, ...rest }, out);
      }
      if (parsed.values.check) {
        const original = JSON.parse(readFileSync(join(runDir, 'summary.json'), 'utf8')) as { cells: unknown };
        const same = JSON.stringify(original.cells) === JSON.stringify(summary.cells);
        out(same ? `${runDir}: summary cells identical` : `${runDir}: summary cells DIFFER from summary.json`);
        if (!same) code = 1;
      }
    } catch (error) {
      err(`error: ${(error as Error).message}`);
      code = 1;
    }
  }
  return code;
}

if (import.meta.url === `file://${process.argv[1]}`) process.exit(main(process.argv.slice(2)));
