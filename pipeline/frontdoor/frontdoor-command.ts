// `pnpm frontdoor`: front-door memory attacks on one or more targets (or `--hunt` on one), results file, scorecards,
// exit code. Every write goes through a target's normal add and every read through its normal search.
import { mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { renderFrontdoorMarkdown, writeFrontdoorScorecards } from '../../analysis/index.js';
import type { Embedder } from '../../backends/embedder.js';
import { FRONTDOOR_TARGET_IDS } from '../../backends/frontdoor/targets.js';
import { createEmbedder } from '../../backends/index.js';
import { loadFixtureSet } from '../../scenarios/frontdoor/fixture.js';
import { EvalError } from '../core/errors.js';
import { authoriseHunt } from './authorisation.js';
import { cachingEmbedder } from './caching-embedder.js';
import { createWriters } from './channels.js';
import { FRONTDOOR_USAGE, parseFrontdoorArgs, type FrontdoorOptions } from './frontdoor-args.js';
import { frontdoorExitCode, readFrontdoorResults } from './frontdoor-results.js';
import { hunt } from './hunt.js';
import { huntSummary, writeHuntOutputs } from './hunt-output.js';
import { createModelParaphraser } from './mutation-model.js';
import { MUTATIONS, type Variant } from './mutations.js';
import { runFrontdoor } from './run-frontdoor.js';
import { targetHandles } from './target-handles.js';
import { isEntryPoint } from '../core/entry-point.js';

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
  const workDir = await mkdtemp(join(tmpdir(), 'stalebench-frontdoor-'));
  try {
    return options.hunt ? await runHunt(options, env, io, workDir) : await runGrid(options, env, io, workDir);
  } catch (error) {
    io.err(`error: ${(error instanceof Error ? error.message : String(error)).replace(/\s*\n\s*/g, ' ')}`);
    if (!(error instanceof EvalError)) io.err((error as Error).stack ?? '');
    return 1;
  } finally {
    await rm(workDir, { recursive: true, force: true });
  }
}

/** The endpoints a run sends attacker text to: the embedder's and the mutation model's. */
function endpointsOf(options: FrontdoorOptions, env: NodeJS.ProcessEnv): string[] {
  const endpoints: string[] = [];
  if (options.embedder.id === 'openai') endpoints.push(options.embedder.baseURL ?? 'https://api.openai.com/v1');
  if (options.mutationModel) endpoints.push(env.OPENAI_BASE_URL ?? 'https://api.openai.com/v1');
  return endpoints;
}

async function sharedParts(options: FrontdoorOptions, env: NodeJS.ProcessEnv) {
  const fixtures = loadFixtureSet(options.fixtures ?? undefined);
  const embedder = await probedEmbedder(options, env);
  const writers = createWriters();
  const variants: Variant[] = options.mutate ? ['base', ...MUTATIONS] : ['base'];
  const paraphrase = options.mutationModel
    ? createModelParaphraser({
        model: options.mutationModel,
        baseURL: env.OPENAI_BASE_URL ?? 'https://api.openai.com/v1',
        apiKey: env.OPENAI_API_KEY,
      })
    : undefined;
  return { fixtures, embedder, writers, variants, ...(paraphrase ? { paraphrase } : {}) };
}

/** Builds the embedder and embeds one text, so a dead endpoint fails before any target opens and dimensions are known. */
async function probedEmbedder(options: FrontdoorOptions, env: NodeJS.ProcessEnv): Promise<Embedder> {
  const spec = options.embedder;
  const inner = await createEmbedder(
    spec.id === 'openai'
      ? {
          id: 'openai',
          model: spec.model,
          ...(spec.baseURL ? { baseURL: spec.baseURL } : {}),
          apiKey: env.OPENAI_API_KEY ?? 'unused',
        }
      : { id: 'lexical' },
  );
  const embedder = cachingEmbedder(inner);
  await embedder.embed(['stalebench front door: embedder probe']);
  return embedder;
}

async function runGrid(
  options: FrontdoorOptions,
  env: NodeJS.ProcessEnv,
  io: CommandIo,
  workDir: string,
): Promise<number> {
  const parts = await sharedParts(options, env);
  const targets = await targetHandles(options.targets, { embedder: parts.embedder, writers: parts.writers, workDir });
  const results = await runFrontdoor({
    ...parts,
    targets,
    attacks: options.attacks,
    channels: options.channels,
    log: (line) => io.err(line),
  });
  const outDir = resolve(options.out);
  mkdirSync(outDir, { recursive: true });
  const resultsPath = join(outDir, 'results.json');
  // Written whole or not at all, even with two runs on one directory: a private temporary name, then a rename.
  const temporary = `${resultsPath}.${process.pid}.tmp`;
  writeFileSync(temporary, `${JSON.stringify(results, null, 2)}\n`);
  renameSync(temporary, resultsPath);
  // Everything shown from here on is generated from the file just written.
  const saved = readFrontdoorResults(resultsPath);
  const scorecards = writeFrontdoorScorecards(resultsPath, outDir);
  io.out(options.json ? JSON.stringify(saved, null, 2) : renderFrontdoorMarkdown(saved));
  io.err(`results: ${resultsPath}\nscorecards: ${scorecards.markdown}, ${scorecards.html}`);
  return frontdoorExitCode(saved, options.failOn);
}

async function runHunt(
  options: FrontdoorOptions,
  env: NodeJS.ProcessEnv,
  io: CommandIo,
  workDir: string,
): Promise<number> {
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
  const parts = await sharedParts(options, env);
  const [handle] = await targetHandles([target], { embedder: parts.embedder, writers: parts.writers, workDir });
  const report = await hunt({
    ...parts,
    target: handle!,
    channels: options.channels,
    attacks: options.attacks.filter((attack) => attack !== 'cross_session_bleed'),
    variants: [...parts.variants, ...(options.mutate ? [] : MUTATIONS)],
    log: (line) => io.err(line),
  });
  const outDir = resolve(options.out);
  const candidates = writeHuntOutputs(report, parts.fixtures, outDir, new Date().toISOString().slice(0, 10));
  io.out(options.json ? JSON.stringify(report, null, 2) : huntSummary(report, authorisation, candidates));
  return 0;
}

if (isEntryPoint(import.meta.url)) {
  frontdoorMain(process.argv.slice(2)).then((code) => process.exit(code));
}
