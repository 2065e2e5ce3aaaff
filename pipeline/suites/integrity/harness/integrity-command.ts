// `pnpm integrity`: runs T1–T9 on the selected targets as the integrity suite (a run directory that resumes, shards,
// merges, verifies and reports), writes the reports and returns the §7.2 exit code.
import { appendFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { integrityJson, integrityMarkdown, scorecardHtml, scorecardMarkdown } from '../../../../analysis/index.js';
import type { IntegrityTarget } from '../targets/integrity-target.js';
import { INTEGRITY_TARGET_IDS, loadIntegrityTarget } from '../targets/registry.js';
import { EvalError } from '#core/errors.js';
import { INTEGRITY_USAGE, parseIntegrityFlags } from './integrity-flags.js';
import type { IntegrityReport } from './integrity-result.js';
import { createIntegritySuite } from '../suite.js';
import { planSuite, runSuite, suiteRunDirName } from '../../run-suite.js';
import { isEntryPoint } from '#core/entry-point.js';
import { sarifBase, sarifSource, writeSuiteSarif } from '../../../run/sarif-file.js';
import { makeDirectory } from '#core/make-directory.js';

/** Where the command writes (`process.stdout`, or a test buffer). */
export interface TextSink {
  write(chunk: string): unknown;
}

/** Injection points for tests: extra targets and a fixed clock. */
export interface IntegrityCommandOptions {
  /** Repository root (default: the current directory). */
  root?: string;
  /** Targets that are not in the registry (tests), by id. */
  extraTargets?: Record<string, () => Promise<IntegrityTarget>>;
  /** The measurement date (default: now). */
  now?: () => Date;
}

/**
 * Runs the command and returns its exit code (integrity.md §7.2; 1 also for bad flags and missing prerequisites).
 *
 * @example process.exitCode = await main(['--target', 'reference', '--json'], process.stdout, process.stderr);
 */
export async function main(
  argv: readonly string[],
  stdout: TextSink,
  stderr: TextSink,
  env: Readonly<Record<string, string | undefined>> = process.env,
  options: IntegrityCommandOptions = {},
): Promise<number> {
  const root = options.root ?? process.cwd();
  const known = [...INTEGRITY_TARGET_IDS, ...Object.keys(options.extraTargets ?? {})];
  let flags;
  try {
    flags = parseIntegrityFlags(argv, known);
  } catch (error) {
    stderr.write(`${error instanceof Error ? error.message : String(error)}\n(run pnpm integrity --help)\n`);
    return 1;
  }
  if (flags.help) {
    stdout.write(`${INTEGRITY_USAGE}\n\ntargets: ${known.join(', ')}\n`);
    return 0;
  }
  const targets = new Map<string, IntegrityTarget>();
  for (const id of flags.targets) {
    const extra = options.extraTargets?.[id];
    const target = extra ? await extra() : await loadIntegrityTarget(id, { env, root });
    const missing = await target.unavailable?.();
    if (missing?.missingPrerequisite) {
      stderr.write(`pnpm integrity: target ${id} cannot run: ${missing.reason}\n`);
      return 1;
    }
    targets.set(id, target);
  }
  const suite = createIntegritySuite({
    loadTarget: async (id) => targets.get(id)!,
    targetIds: [...targets.keys()],
    keepStores: flags.keepStores,
  });
  const args = { targets: flags.targets, edits: flags.edits, failOn: flags.failOn };
  const outDir = resolve(
    root,
    flags.outDir ?? join('runs', 'integrity', suiteRunDirName(suite, args, flags.shard, flags.limit)),
  );
  const progress = (line: string) => stderr.write(`${line}\n`);
  const run = {
    args,
    runDir: outDir,
    shard: flags.shard,
    limit: flags.limit,
    command: ['pnpm integrity', ...argv].join(' '),
    log: progress,
    ...(options.now ? { now: options.now } : {}),
  };
  if (flags.dryRun) {
    const { units } = await planSuite(suite, run);
    stdout.write(`run directory: ${outDir}\n${units.length} cell(s):\n${units.map((u) => `  ${u.id}\n`).join('')}`);
    return 0;
  }
  const { summary: report, exitCode: code } = await runSuite(suite, run);
  writeReports(outDir, report);
  if (flags.sarif)
    writeSuiteSarif(
      resolve(root, flags.sarif),
      suite.id,
      suite.ci!.findings(report),
      sarifSource(join(outDir, 'summary.json'), sarifBase(env, root)),
    );
  if (flags.json) stdout.write(`${JSON.stringify(integrityJson(report), null, 2)}\n`);
  else {
    stdout.write(`${scorecardMarkdown(report)}\nreports: ${outDir}\n`);
    for (const annotation of ciAnnotations(report, env)) stdout.write(`${annotation}\n`);
  }
  progress(`exit ${code}; reports in ${outDir}`);
  if (env.GITHUB_STEP_SUMMARY) appendFileSync(env.GITHUB_STEP_SUMMARY, `${scorecardMarkdown(report)}\n`);
  return code;
}

function writeReports(outDir: string, report: IntegrityReport): void {
  makeDirectory(outDir);
  writeFileSync(join(outDir, 'integrity.json'), `${JSON.stringify(report, null, 2)}\n`);
  writeFileSync(join(outDir, 'integrity.md'), `${integrityMarkdown(report)}\n`);
  writeFileSync(join(outDir, 'scorecard.md'), scorecardMarkdown(report));
  writeFileSync(join(outDir, 'scorecard.html'), scorecardHtml(report));
}

/** Under CI (integrity.md §7.2): one annotation per ACCEPTED or not-evaluable edit. */
function ciAnnotations(report: IntegrityReport, env: Readonly<Record<string, string | undefined>>): string[] {
  if (!env.CI) return [];
  const clean = (text: string) => text.replace(/%/g, '%25').replace(/\r/g, '%0D').replace(/\n/g, '%0A');
  return report.targets.flatMap((target) =>
    target.cells
      .filter((cell) => cell.verdict === 'accepted' || cell.verdict === 'not-evaluable' || cell.verdict === 'error')
      .map(
        (cell) =>
          `::${cell.verdict === 'accepted' ? 'error' : 'warning'} title=integrity ${target.id} ${cell.attack}::${clean(`${cell.verdict}${cell.reason ? `: ${cell.reason}` : ''}`)}`,
      ),
  );
}

if (isEntryPoint(import.meta.url)) {
  main(process.argv.slice(2), process.stdout, process.stderr).then(
    (code) => {
      process.exitCode = code;
    },
    (error: unknown) => {
      process.stderr.write(
        `pnpm integrity: ${error instanceof EvalError || error instanceof Error ? error.message : String(error)}\n`,
      );
      process.exitCode = 1;
    },
  );
}
