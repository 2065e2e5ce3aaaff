// `pnpm frontdoor`: front-door memory attacks on one or more targets as the front-door suite (a run directory that
// resumes, shards, merges, verifies and reports), or `--hunt` on one; results file, scorecards, exit code. Every
// write goes through a target's normal add and every read through its normal search.
import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { renderFrontdoorMarkdown, writeFrontdoorScorecards } from '../../../../analysis/index.js';
import { FRONTDOOR_TARGET_IDS } from '../targets/targets.js';
import { loadFixtureSet, type AttackName, type FixtureFile } from '../../../../scenarios/frontdoor/fixture.js';
import { EvalError } from '#core/errors.js';
import { isEntryPoint } from '#core/entry-point.js';
import { sarifBase, sarifSource, writeSuiteSarif } from '../../../run/sarif-file.js';
import { createFrontdoorSuite, type FrontdoorArgs, fixtureSetHash } from '../suite.js';
import { planSuite, runSuite, suiteRunDirName } from '../../run-suite.js';
import { authoriseHunt } from './authorisation.js';
import { FRONTDOOR_USAGE, parseFrontdoorArgs, type FrontdoorOptions } from './frontdoor-args.js';
import { frontdoorExitCode, readFrontdoorResults } from './frontdoor-results.js';
import { hunt, type HuntReport } from './hunt.js';
import { huntSummary, writeHuntOutputs } from './hunt-output.js';
import { MUTATIONS } from './mutations.js';
import { sharedParts } from './shared-parts.js';
import { targetHandles } from './target-handles.js';

/** Where the command writes and what it prints; tests pass their own. */
export interface CommandIo {
  out: (text: string) => void;
  err: (text: string) => void;
}

const consoleIo: CommandIo = { out: (text) => console.log(text), err: (text) => console.error(text) };

/** Runs the command; returns the exit code. Usage and configuration errors print one line and return 1. */
export async function frontdoorMain(
  argv: readonly string[],
  env: NodeJS.ProcessEnv = process.env,
  io: CommandIo = consoleIo,
  settings: { now?: () => Date } = {},
): Promise<number> {
  let options: FrontdoorOptions;
  try {
    options = parseFrontdoorArgs(argv, env);
  } catch (error) {
    io.err(`error: ${(error as Error).message}`);
    return 1;
  }
  if (options.help) {
    io.out(FRONTDOOR_USAGE);
    return 0;
  }
  try {
    return options.hunt ? await runHunt(options, env, io) : await runGrid(options, argv, env, io, settings.now);
  } catch (error) {
    io.err(`error: ${(error instanceof Error ? error.message : String(error)).replace(/\s*\n\s*/g, ' ')}`);
    if (!(error instanceof EvalError)) io.err((error as Error).stack ?? '');
    return 1;
  }
}

/** The endpoints a run sends attacker text to: the embedder's and the mutation model's. */
function endpointsOf(options: FrontdoorOptions, env: NodeJS.ProcessEnv): string[] {
  const endpoints: string[] = [];
  if (options.embedder.id === 'openai') endpoints.push(options.embedder.baseURL ?? 'https://api.openai.com/v1');
  if (options.mutationModel) endpoints.push(env.OPENAI_BASE_URL ?? 'https://api.openai.com/v1');
  return endpoints;
}

/** The run's identity as the suite records it (the fixture set by its content, not only its directory). */
function suiteArgsOf(options: FrontdoorOptions, fixtures: Record<AttackName, FixtureFile>): FrontdoorArgs {
  return {
    targets: options.targets,
    attacks: options.attacks,
    channels: options.channels,
    mutate: options.mutate,
    mutationModel: options.mutationModel,
    embedder: options.embedder,
    fixtures: { dir: options.fixtures, sha256: fixtureSetHash(fixtures) },
    failOn: options.failOn,
  };
}

/** The grid as the front-door suite: a run directory (resumed by the same command), then the files it always wrote. */
async function runGrid(
  options: FrontdoorOptions,
  argv: readonly string[],
  env: NodeJS.ProcessEnv,
  io: CommandIo,
  now: (() => Date) | undefined,
): Promise<number> {
  const fixtures = loadFixtureSet(options.fixtures ?? undefined);
  const suite = createFrontdoorSuite({ env, fixtures });
  const args = suiteArgsOf(options, fixtures);
  const outDir = resolve(
    options.out ?? join('runs', 'frontdoor', suiteRunDirName(suite, args, options.shard, options.limit)),
  );
  const run = {
    args,
    runDir: outDir,
    shard: options.shard,
    limit: options.limit,
    command: ['pnpm frontdoor', ...argv].join(' '),
    log: (line: string) => io.err(line),
    ...(now ? { now } : {}),
  };
  if (options.dryRun) {
    const { units } = await planSuite(suite, run);
    io.out(`run directory: ${outDir}\n${units.length} cell(s):\n${units.map((u) => `  ${u.id}`).join('\n')}`);
    return 0;
  }
  await runSuite(suite, run);
  const resultsPath = join(outDir, 'results.json');
  // Written whole or not at all: a private temporary name, then a rename. The document is the run's summary.json.
  const temporary = `${resultsPath}.${process.pid}.tmp`;
  writeFileSync(temporary, readFileSync(join(outDir, 'summary.json'), 'utf8'));
  renameSync(temporary, resultsPath);
  // Everything shown from here on is generated from the file just written.
  const saved = readFrontdoorResults(resultsPath);
  const scorecards = writeFrontdoorScorecards(resultsPath, outDir);
  if (options.sarif)
    writeSuiteSarif(
      resolve(options.sarif),
      suite.id,
      suite.ci!.findings(saved),
      sarifSource(resultsPath, sarifBase(env)),
    );
  io.out(options.json ? JSON.stringify(saved, null, 2) : renderFrontdoorMarkdown(saved));
  io.err(`results: ${resultsPath}\nscorecards: ${scorecards.markdown}, ${scorecards.html}\nrun directory: ${outDir}`);
  return frontdoorExitCode(saved, options.failOn);
}

async function runHunt(options: FrontdoorOptions, env: NodeJS.ProcessEnv, io: CommandIo): Promise<number> {
  const target = options.targets[0]!;
  // The gate runs before any fixture is read, any endpoint is probed or any target is created.
  const authorisation = authoriseHunt({
    target,
    libraryTargets: FRONTDOOR_TARGET_IDS,
    endpoints: endpointsOf(options, env),
    ...(options.consent ? { consentFile: options.consent } : {}),
  });
  if (!FRONTDOOR_TARGET_IDS.includes(target))
    throw new EvalError(
      'unsupported-target',
      `network target ${target} is authorised, but live HTTP targets are not built yet (next tier); nothing was sent`,
    );
  const parts = await sharedParts(options, loadFixtureSet(options.fixtures ?? undefined), env);
  const workDir = await mkdtemp(join(tmpdir(), 'stalebench-frontdoor-'));
  let report: HuntReport;
  try {
    const [handle] = await targetHandles([target], { embedder: parts.embedder, writers: parts.writers, workDir });
    report = await hunt({
      ...parts,
      target: handle!,
      channels: options.channels,
      attacks: options.attacks.filter((attack) => attack !== 'cross_session_bleed'),
      variants: [...parts.variants, ...(options.mutate ? [] : MUTATIONS)],
      log: (line) => io.err(line),
    });
  } finally {
    await rm(workDir, { recursive: true, force: true });
  }
  const outDir = resolve(options.out ?? join('runs', 'frontdoor'));
  const candidates = writeHuntOutputs(report, parts.fixtures, outDir, new Date().toISOString().slice(0, 10));
  io.out(options.json ? JSON.stringify(report, null, 2) : huntSummary(report, authorisation, candidates));
  return 0;
}

if (isEntryPoint(import.meta.url)) {
  frontdoorMain(process.argv.slice(2)).then((code) => process.exit(code));
}
