// Command line: `pnpm eval --model <id> [...]` → RunSpec → runEvaluation → table and exit code.
import { isAbsolute, relative, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { POLICY_SCENARIO_IDS, scenarioDirIds } from '../../scenarios/index.js';
import { engineChoice } from '../../backends/engines.js';
import { DEFAULT_SYSTEM_IDS } from '../../backends/index.js';
import { embedderSpecPart, EMBEDDERS, EXTRACTION_MODELS, extractionSpecPart } from '../../backends/model-roles.js';
import { EvalError, InvalidInputError } from '#core/errors.js';
import { flagOfSpecPath, parseFlags, unusableDirectory } from './cli-flags.js';
import { evalUsage } from './cli-usage.js';
import { isRemoteModel } from '../models/decision-models.js';
import { EXPERIMENTS } from '../run/experiments.js';
import { EXPLOIT_SCENARIO_IDS } from '../../scenarios/exploit-scenario.js';
import { FORGED_REASONING_SCENARIO_IDS } from '../../scenarios/forged-reasoning-scenario.js';
import { runEvaluation, type RunSecrets } from '../run/run.js';
import { secretsOf } from '../run/run-components.js';
import { storageFailureLine } from '../run/storage-failure.js';
import { ledgerKeyFromEnv } from '../../guard/execution-ledger-key.js';
import { AXIS_FLAGS, axisSpecFields } from '../defences/axes/index.js';
import { DEFAULT_MAX_ERROR_RATE, parseRunSpec, type RunSpec } from '../run/run-spec.js';
import { createRedactor } from '../run/redact.js';
import { parseShard, type Shard } from '../run/shard.js';
import { loadEndpointsFile, poolIdentity } from '../endpoints/endpoints-file.js';
import { BATCH_DEFAULTS, BATCH_LIMITS } from '../batch/batch-limits.js';
import { isEntryPoint } from '#core/entry-point.js';
import { GRID_GATE } from '../run/grid-gate.js';
import type { EvalPhase } from '../run/run-experiment.js';
import { evalPhaseOf } from '../suites/eval-phases.js';
import { defaultCacheDir } from '../models/response-cache.js';
import { sarifBase } from '../run/sarif-file.js';
import { suiteCommand } from './suite-command.js';
import { expandFailOn } from '../run/threshold-file.js';

const list = (value: string | undefined, fallback: readonly string[]) =>
  value === undefined
    ? [...fallback]
    : value
        .split(',')
        .map((item) => item.trim())
        .filter(Boolean);

/** Problems found while reading flags, reported together with the spec's own (paths are flag names). */
type FlagIssues = { path: string; message: string }[];

function decimal(issues: FlagIssues, name: string, value: string | undefined, fallback: number | null): number | null {
  if (value === undefined) return fallback;
  if (/^[+-]?(\d+\.?\d*|\.\d+)$/.test(value.trim())) return Number(value);
  issues.push({ path: `--${name}`, message: `must be a number (got "${value}")` });
  return fallback;
}

/** `--request-timeout` in seconds as typed (default 60); out of range is named in seconds, not the spec's milliseconds. */
function requestTimeoutSeconds(issues: FlagIssues, value: string | undefined): number {
  const seconds = decimal(issues, 'request-timeout', value, 60) ?? 60;
  if (seconds >= 0.1 && seconds <= 3600) return seconds;
  issues.push({ path: '--request-timeout', message: `must be 0.1 to 3600 seconds (got "${value}")` });
  return 60;
}

function integer(issues: FlagIssues, name: string, value: string | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  if (/^-?\d+$/.test(value.trim())) return Number(value);
  issues.push({ path: `--${name}`, message: `must be a whole number (got "${value}")` });
  return fallback;
}

/** `--shard i/n`, or null; a bad value is one issue naming the flag. */
function shardFlag(issues: FlagIssues, value: string | undefined): Shard | null {
  if (value === undefined) return null;
  try {
    return parseShard(value);
  } catch (error) {
    if (!(error instanceof InvalidInputError)) throw error;
    issues.push(...error.issues);
    return null;
  }
}

/**
 * `--fail-on` rules with every `@<file>` read (pipeline/run/threshold-file.ts), checked now (every bad rule is an issue)
 * so a typo never waits for the run to end.
 */
function gateFlags(issues: FlagIssues, texts: string[] | undefined, experiment: string, phase: EvalPhase): string[] {
  if (texts === undefined) return [];
  const refused = phase.refuses.failOn;
  if (refused) issues.push({ path: '--fail-on', message: refused(experiment) });
  try {
    return expandFailOn(texts, GRID_GATE);
  } catch (error) {
    if (!(error instanceof InvalidInputError)) throw error;
    issues.push(...error.issues);
    return texts;
  }
}

/**
 * `--batch [--batch-size n] [--batch-poll s]`, or null. The grid and the follow-up experiments (these batch each
 * round); a phase that does not run its units' calls in rounds refuses it (standalone).
 */
function batchFlags(
  issues: FlagIssues,
  values: { batch?: boolean; 'batch-size'?: string; 'batch-poll'?: string; endpoints?: string },
  experiment: string,
  phase: EvalPhase,
): { size: number; pollMs: number } | null {
  if (!values.batch) {
    for (const flag of ['batch-size', 'batch-poll'] as const)
      if (values[flag] !== undefined) issues.push({ path: `--${flag}`, message: 'applies with --batch only' });
    return null;
  }
  const refused = phase.refuses.batch;
  if (refused) issues.push({ path: '--batch', message: refused(experiment) });
  if (values.endpoints !== undefined)
    issues.push({
      path: '--batch',
      message: 'sends every job to OPENAI_BASE_URL; it cannot be combined with --endpoints',
    });
  const size = integer(issues, 'batch-size', values['batch-size'], BATCH_DEFAULTS.size);
  if (size < 1 || size > BATCH_LIMITS.requests)
    issues.push({
      path: '--batch-size',
      message: `must be between 1 and ${BATCH_LIMITS.requests} (the Batch API's limit)`,
    });
  const seconds = decimal(issues, 'batch-poll', values['batch-poll'], BATCH_DEFAULTS.pollMs / 1000) ?? 30;
  if (!(seconds > 0) || seconds > 3600)
    issues.push({ path: '--batch-poll', message: 'must be a number of seconds above 0 and at most 3600' });
  return {
    size: Math.min(Math.max(size, 1), BATCH_LIMITS.requests),
    pollMs: Math.min(Math.max(Math.round(seconds * 1000), 1), 3_600_000),
  };
}

/** Turns argv and the environment into a RunSpec (validated; every problem reported at once). */
export function specFromArgs(argv: readonly string[], env: NodeJS.ProcessEnv): RunSpec {
  const { values } = parseFlags(argv, {
    experiment: { type: 'string' },
    hops: { type: 'string' },
    'tool-steps': { type: 'string' },
    model: { type: 'string', short: 'm', multiple: true },
    systems: { type: 'string' },
    modes: { type: 'string' },
    arms: { type: 'string' },
    defences: { type: 'string' },
    forgeries: { type: 'string' },
    'attacker-model': { type: 'string' },
    'attacker-queries': { type: 'string' },
    agent: { type: 'string' },
    ...AXIS_FLAGS,
    tamper: { type: 'string' },
    engine: { type: 'string' },
    'graph-engine': { type: 'string' },
    'vector-engine': { type: 'string' },
    scenarios: { type: 'string' },
    'scenario-dir': { type: 'string' },
    limit: { type: 'string' },
    trials: { type: 'string' },
    repeat: { type: 'string' },
    epochs: { type: 'string' },
    k: { type: 'string' },
    concurrency: { type: 'string', short: 'j' },
    seed: { type: 'string' },
    out: { type: 'string', short: 'o' },
    'run-id': { type: 'string' },
    'retry-errors': { type: 'boolean' },
    'resume-anyway': { type: 'boolean' },
    'max-error-rate': { type: 'string' },
    'no-cache': { type: 'boolean' },
    'cache-dir': { type: 'string' },
    'dry-run': { type: 'boolean' },
    'budget-usd': { type: 'string' },
    'allow-unpriced': { type: 'boolean' },
    prices: { type: 'string' },
    'confirm-above-usd': { type: 'string' },
    yes: { type: 'boolean', short: 'y' },
    'no-preflight': { type: 'boolean' },
    'request-timeout': { type: 'string' },
    'max-consecutive-errors': { type: 'string' },
    quiet: { type: 'boolean', short: 'q' },
    verbose: { type: 'boolean', short: 'v' },
    embedder: { type: 'string' },
    'embedding-model': { type: 'string' },
    'extraction-model': { type: 'string' },
    shard: { type: 'string' },
    endpoints: { type: 'string' },
    'fixed-concurrency': { type: 'boolean' },
    'sign-key': { type: 'string' },
    'fail-on': { type: 'string', multiple: true },
    sarif: { type: 'string' },
    batch: { type: 'boolean' },
    'batch-size': { type: 'string' },
    'batch-poll': { type: 'string' },
    help: { type: 'boolean', short: 'h' },
  });
  if (values.help) throw new EvalError('help', evalUsage());
  const issues: FlagIssues = [];
  const models = (values.model ?? []).flatMap((m) => list(m, []));
  if (models.length === 0)
    issues.push({
      path: '--model',
      message:
        'required: one or more decision models (sim for the offline simulator, or aliases your OpenAI-compatible endpoint serves)',
    });
  // Every id and default below comes from a registry line (backends/engines.ts, backends/model-roles.ts, decision-models.ts, experiments.ts).
  const embedder = embedderSpecPart(
    values.embedder ?? env.STALEBENCH_EMBEDDER ?? EMBEDDERS.ids[0],
    values['embedding-model'],
    env,
  );
  const extraction = extractionSpecPart(
    values['extraction-model'] ?? env.STALEBENCH_EXTRACTION_MODEL ?? EXTRACTION_MODELS.ids[0],
    env,
  );
  const remoteRole = (registry: typeof EMBEDDERS | typeof EXTRACTION_MODELS, id: string) =>
    registry.has(id) && registry.get(id).remote;
  const usesEndpoint =
    models.some(isRemoteModel) || remoteRole(EMBEDDERS, embedder.id) || remoteRole(EXTRACTION_MODELS, extraction.id);
  const engine = engineChoice(
    { engines: list(values.engine, []), graph: values['graph-engine'], vector: values['vector-engine'] },
    env,
  );
  const experiment = values.experiment ?? EXPERIMENTS.ids[0];
  const declared = EXPERIMENTS.get(experiment);
  const phase = evalPhaseOf(experiment);
  if (values.arms !== undefined && values.defences !== undefined)
    issues.push({ path: '--defences', message: 'give --arms or --defences, not both (they name the same list)' });
  // `wording-guard` is the issue's name for the sentinel-style guard (its registry id).
  const arms =
    values.defences === undefined
      ? values.arms
      : values.defences
          .split(',')
          .map((id) => (id.trim() === 'wording-guard' ? 'sentinel-style' : id))
          .join(',');
  const scenarioIds = {
    policy: POLICY_SCENARIO_IDS,
    exploit: EXPLOIT_SCENARIO_IDS,
    'forged-reasoning': FORGED_REASONING_SCENARIO_IDS,
  }[declared.scenarioKind];
  const input = {
    experiment,
    // The experiments' own fields: a flag not given is left out, so its line's default applies (experiments.ts).
    ...(values.hops === undefined ? {} : { hops: integer(issues, 'hops', values.hops, 0) }),
    ...(values['tool-steps'] === undefined
      ? {}
      : { toolSteps: integer(issues, 'tool-steps', values['tool-steps'], 0) }),
    ...(values.forgeries === undefined ? {} : { forgeries: list(values.forgeries, []) }),
    ...(values['attacker-model'] === undefined
      ? {}
      : { attackerModel: values['attacker-model'] === 'off' ? null : values['attacker-model'] }),
    ...(values['attacker-queries'] === undefined
      ? {}
      : { attackerQueries: integer(issues, 'attacker-queries', values['attacker-queries'], 0) }),
    models,
    systems: list(values.systems, phase.memorySystems ? DEFAULT_SYSTEM_IDS : []),
    modes: list(values.modes, declared.defaultModes),
    arms: list(arms, declared.defaultArms),
    ...axisSpecFields(values, list),
    ...(values.tamper === undefined ? {} : { tamper: values.tamper }),
    ...(values.agent === undefined ? {} : { agent: values.agent }),
    // Without --scenarios, a --scenario-dir's own scenarios (its index.json's order, else by file name) are the list.
    scenarios: list(
      values.scenarios,
      values['scenario-dir'] === undefined ? scenarioIds : scenarioDirIds(values['scenario-dir']),
    ),
    scenarioDir: values['scenario-dir'] ?? null,
    ...(values.limit === undefined ? {} : { limit: integer(issues, 'limit', values.limit, 1) }),
    trials: integer(issues, 'trials', values.trials ?? values.repeat ?? values.epochs, declared.defaultTrials ?? 10),
    k: integer(issues, 'k', values.k, 10),
    seed: integer(issues, 'seed', values.seed, 0),
    embedder,
    engine,
    extraction,
    baseURL: usesEndpoint
      ? (env.OPENAI_BASE_URL ??
        (values.endpoints ? poolIdentity(loadEndpointsFile(values.endpoints, env)) : 'https://api.openai.com/v1'))
      : null,
    concurrency: integer(issues, 'concurrency', values.concurrency, 4),
    out: values.out ?? 'runs',
    runId: values['run-id'] ?? null,
    cache: { enabled: !values['no-cache'], dir: values['cache-dir'] ?? defaultCacheDir(env) },
    retryErrors: values['retry-errors'] ?? false,
    maxErrorRate: decimal(issues, 'max-error-rate', values['max-error-rate'], DEFAULT_MAX_ERROR_RATE),
    control: {
      preflight: !values['no-preflight'],
      requestTimeoutMs: Math.round(requestTimeoutSeconds(issues, values['request-timeout']) * 1000),
      maxConsecutiveErrors: integer(issues, 'max-consecutive-errors', values['max-consecutive-errors'], 5),
      budgetUsd: decimal(issues, 'budget-usd', values['budget-usd'], null),
      allowUnpriced: values['allow-unpriced'] ?? false,
      prices: values.prices ?? null,
      confirmAboveUsd: decimal(issues, 'confirm-above-usd', values['confirm-above-usd'], 1),
      assumeYes: values.yes ?? false,
      quiet: values.quiet ?? false,
      verbose: values.verbose ?? false,
      shard: shardFlag(issues, values.shard),
      endpoints: values.endpoints ?? null,
      fixedConcurrency: values['fixed-concurrency'] ?? false,
      failOn: gateFlags(issues, values['fail-on'], experiment, phase),
      sarif: values.sarif ?? null,
      batch: batchFlags(issues, values, experiment, phase),
    },
  };
  const sarif = phase.refuses.sarif;
  if (values.sarif !== undefined && sarif) issues.push({ path: '--sarif', message: sarif(experiment) });
  const outProblem = unusableDirectory(input.out);
  if (outProblem) issues.push({ path: '--out', message: outProblem });
  let spec: RunSpec | null = null;
  try {
    spec = parseRunSpec(input, 'command line', evalPhaseOf);
  } catch (error) {
    if (!(error instanceof InvalidInputError)) throw error;
    // Every problem at once, named by the flag the user typed; a flag already reported is not reported twice.
    const fromSpec = error.issues.map((issue) => ({ ...issue, path: flagOfSpecPath(issue.path) }));
    issues.push(...fromSpec.filter((issue) => !issues.some((flag) => flag.path === issue.path)));
  }
  if (spec === null || issues.length > 0) throw new InvalidInputError('command line', issues);
  return spec;
}

/** `--sign-key <file>` (not part of the spec: signing a run does not change which run it is). */
function signKeyOption(argv: readonly string[]): { signKey?: string } {
  const { values } = parseArgs({
    args: [...argv],
    options: { 'sign-key': { type: 'string' } },
    strict: false,
    allowPositionals: true,
  });
  const path = values['sign-key'];
  return typeof path === 'string' ? { signKey: path } : {};
}

/** The `pnpm report` command of a run directory (an unfinished run needs `--allow-incomplete`), shell-quoted. */
function reportCommand(runDir: string, status: string): string {
  const shown = relative(process.cwd(), runDir);
  const path = shown === '' || shown.startsWith('..') || isAbsolute(shown) ? runDir : shown;
  const quoted = /^[\w@%+=:,./-]+$/.test(path) ? path : `'${path.replaceAll("'", "'\\''")}'`;
  return `pnpm report ${quoted}${status === 'success' ? '' : ' --allow-incomplete'}`;
}

/** Asks a yes/no question on the terminal (for a run above --confirm-above-usd). */
async function askOnTerminal(question: string): Promise<boolean> {
  const { createInterface } = await import('node:readline/promises');
  const terminal = createInterface({ input: process.stdin, output: process.stderr });
  try {
    return /^y(es)?$/i.test((await terminal.question(`${question} [y/N] `)).trim());
  } finally {
    terminal.close();
  }
}

/**
 * Entry point. Returns the process exit code (0 ok, 1 usage/config/preflight, 2 errors/aborted, 3 budget, 4 complete
 * with failed units, 5 a --fail-on threshold crossed, 130/143 interrupted).
 */
export async function main(argv: readonly string[], env: NodeJS.ProcessEnv = process.env): Promise<number> {
  const [command, ...rest] = argv;
  if (command !== 'eval') {
    console.error(`unknown command "${command ?? ''}"; available: eval\n\n${evalUsage()}`);
    return 1;
  }
  const controller = new AbortController();
  const received: NodeJS.Signals[] = [];
  // The first SIGINT/SIGTERM stops scheduling and aborts calls in flight (they are not recorded); a second one quits now.
  const onSignal = (signal: NodeJS.Signals) => {
    received.push(signal);
    if (received.length > 1) process.exit(signal === 'SIGTERM' ? 143 : 130);
    console.error(
      `\n${signal === 'SIGTERM' ? 'terminated' : 'interrupted'}: aborting calls in flight and stopping (again to quit now). Re-run the same command to resume.`,
    );
    controller.abort({ kind: 'interrupted', signal });
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  const resume = `pnpm eval ${rest.join(' ')}`;
  let spec: RunSpec | undefined;
  let secrets: RunSecrets = {
    apiKey: env.OPENAI_API_KEY,
    neo4jPassword: env.NEO4J_PASSWORD,
    neo4jUri: env.NEO4J_URI,
    neo4jUser: env.NEO4J_USER,
    qdrantApiKey: env.QDRANT_API_KEY,
  };
  try {
    // `--suite <id>`: a suite of the registry (pipeline/suites/index.ts) through the one runner, not a grid.
    if (rest.some((arg) => arg === '--suite' || arg.startsWith('--suite=')))
      return await suiteCommand(rest, env, {
        out: (line) => console.log(line),
        err: (line) => console.error(line),
        signal: controller.signal,
      });
    spec = specFromArgs(rest, env);
    const dryRun = rest.includes('--dry-run');
    secrets = {
      ...secrets,
      ledgerKey: ledgerKeyFromEnv(env),
      ...(spec.control.endpoints ? { endpoints: loadEndpointsFile(spec.control.endpoints, env) } : {}),
    };
    const outcome = await runEvaluation(spec, secrets, {
      signal: controller.signal,
      log: (line) => console.error(line),
      resumeAnyway: rest.includes('--resume-anyway'),
      ...signKeyOption(rest),
      dryRun,
      ...(process.stdin.isTTY && process.stderr.isTTY ? { confirm: askOnTerminal } : {}),
    });
    console.log(outcome.table);
    if (dryRun) return 0;
    const gated = evalPhaseOf(spec.experiment).exitRule(outcome, spec, sarifBase(env));
    console.log(`\nrun directory: ${outcome.runDir}`);
    console.log(`report: ${reportCommand(outcome.runDir, outcome.status)}`);
    if (outcome.status === 'cancelled' || outcome.status === 'aborted' || outcome.status === 'budget')
      console.log(`resume with: ${resume}`);
    if (spec.control.sarif) console.log(`sarif: ${spec.control.sarif}`);
    // A non-zero exit ends with one line saying why.
    if (gated.exitCode !== 0 && gated.why)
      console.error(`${outcome.status === 'cancelled' ? 'stopped' : 'error'}: ${gated.why}`);
    return gated.exitCode;
  } catch (error) {
    if (error instanceof EvalError && error.code === 'help') {
      console.log(error.message);
      return 0;
    }
    const message = error instanceof Error ? error.message : String(error);
    // Every secret known by now (the endpoints file's keys too, once read).
    const redact = createRedactor(secretsOf(secrets));
    // A full, read-only or forbidden disk: one line with the cause, the file and what to do, never a stack.
    const storage = storageFailureLine(error, spec ? { cacheDir: resolve(spec.cache.dir) } : {});
    if (storage) {
      console.error(`error: ${redact(storage)}`);
      return 1;
    }
    // One clear line (or an InvalidInputError's list) for every error we raise on purpose; a stack only for a bug.
    if (!(error instanceof EvalError) && !(error instanceof TypeError && 'code' in error))
      console.error(redact((error as Error).stack ?? ''));
    console.error(`error: ${redact(message)}`);
    return 1;
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
}

if (isEntryPoint(import.meta.url)) {
  main(process.argv.slice(2)).then((code) => process.exit(code));
}
