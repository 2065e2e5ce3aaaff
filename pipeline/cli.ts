// Command line: `pnpm eval --model <id> [...]` → RunSpec → runEvaluation → table and exit code.
import { POLICY_SCENARIO_IDS } from '../scenarios/index.js';
import { BACKEND_IDS } from '../backends/index.js';
import { EvalError, InvalidInputError, UnknownComponentError } from './errors.js';
import { flagOfSpecPath, parseFlags, unusableDirectory } from './cli-flags.js';
import { RUNNABLE_ARM_IDS } from './arms.js';
import { EXPERIMENT_IDS, FOLLOW_UP_EXPERIMENTS } from './follow-up/index.js';
import { EXPLOIT_SCENARIO_IDS } from '../scenarios/exploit-scenario.js';
import { runEvaluation } from './run.js';
import { ledgerKeyFromEnv } from '../guard/execution-ledger-key.js';
import { parseRunSpec, type RunSpec } from './run-spec.js';
import { createRedactor } from './redact.js';

const USAGE = `usage: pnpm eval --model <id>[,<id>...] [options]

  --experiment <id>       grid (default: the main grid), or a follow-up experiment:
                          writeback (hops after an unsafe decision is journalled; arms direct,natural),
                          propagation (executor, reviewer, planner on one memory; arms
                          shared-default,shared-filtered,no-journal), tools (the exploit chain with
                          decoy tools; arms none,store-filter,guard,tool-guardrail; exploit scenarios)
  --hops <n>              writeback: hops after hop 0 (default: 3)
  --tool-steps <n>        tools: model calls per agent episode at most (default: 4)
  --model, -m <ids>       decision models: sim (offline simulator) or any alias your
                          OpenAI-compatible endpoint serves (OPENAI_BASE_URL, OPENAI_API_KEY)
  --systems <ids>         memory systems (default: all registered: ${BACKEND_IDS.join(',')})
  --modes <m>             direct,natural (default: direct,natural; follow-up experiments: direct)
  --arms <ids>            defence arms (default: none,store-filter; all: ${RUNNABLE_ARM_IDS.join(',')});
                          follow-up experiments: their own arms (default: all of them)
  --guard <off,on>        run every arm without and/or with the stale-retrieval guard on its context
  --poem <off,on>         run every arm without and/or with the proof-of-execution gate on its decisions
                          (ledger key: STALEBENCH_LEDGER_KEY, hex; default a fresh key per process)
  --scenarios <ids>       scenario ids (default: all ${POLICY_SCENARIO_IDS.length} of scenarios/policy/index.json, grid order;
                          tools: the ${EXPLOIT_SCENARIO_IDS.length} exploit scenarios)
  --scenario-dir <dir>    load scenarios from this directory of JSON files instead (in the order of its
                          index.json when it has one, else by file name)
  --trials, --repeat, --epochs <n>   trials per cell (default: 10, as the paper)
  --k <n>                 retrieval depth (default: 10)
  --concurrency, -j <n>   units in flight (default: 4)
  --seed <n>              seed (default: 0)
  --out, -o <dir>         output root (default: runs); the run directory is <out>/<run-id>
  --run-id <id>           run id (default: derived from the spec, so the same command resumes)
  --retry-errors          re-run units whose record is an error
  --resume-anyway         resume although scenarios, prompts, code revision or packages differ from the
                          run's first invocation (recorded in the manifest's resumes)
  --max-error-rate <r>    tolerated share of errored units before exit 2 (default: 0)
  --no-cache              do not read or write the response cache
  --cache-dir <dir>       response cache (default: .stalebench-cache)
  --engine <e>[,<e>]      storage engines: embedded (default), neo4j (graph systems; NEO4J_URI,
                          NEO4J_USER, NEO4J_PASSWORD), qdrant (vector systems; QDRANT_URL, QDRANT_API_KEY)
  --graph-engine <e>, --vector-engine <e>   the same, per role
  --embedder <id>         lexical (default, offline) or openai (STALEBENCH_EMBEDDER)
  --embedding-model <m>   model for --embedder openai (STALEBENCH_EMBEDDING_MODEL)
  --extraction-model <m>  LLM for natural-mode ingestion: sim (default, offline deterministic
                          extractor) or an endpoint alias (STALEBENCH_EXTRACTION_MODEL)

 spending real tokens safely:
  --dry-run               print the plan (units, calls to send vs cached, input tokens, output range, $ range
                          per model) and exit: nothing is written, nothing is sent
  --budget-usd <x>        stop before a call that the remaining budget cannot cover (status budget, exit 3);
                          spend never passes x; a model without a known price is refused (fail-closed)
  --allow-unpriced        allow unpriced models under a budget (their spend counts only what the proxy reports)
  --prices <file>         {"<model>": {"input": <$ per 1M tokens>, "output": <$ per 1M tokens>}} over data/prices.json
  --confirm-above-usd <x> a real run whose planned upper cost passes x asks first; without a TTY it needs
                          --yes (default: 1)
  --yes, -y               do not ask
  --no-preflight          skip probing the endpoints (GET /models, else a 1-token request) before starting
  --request-timeout <s>   timeout of one provider attempt in seconds (default: 60)
  --max-consecutive-errors <n>   stop the run (status aborted, exit 2) after n consecutive failed units
                          (default: 5; 0 = off); --max-error-rate also stops it once 20 units finished
  --quiet, -q             no progress lines

exit codes: 0 ok · 1 usage/config/preflight error, zero units, run directory in use by another process, or a
resume of a different experiment · 2 errors above --max-error-rate, stopped by the circuit breaker (aborted),
or every completed reply unparseable · 3 budget reached · 130 SIGINT / 143 SIGTERM (status cancelled; in-flight
calls are aborted and not recorded; re-run the same command to resume)`;

const list = (value: string | undefined, fallback: readonly string[]) =>
  value === undefined ? [...fallback] : value.split(',').map((item) => item.trim()).filter(Boolean);

/** Problems found while reading flags, reported together with the spec's own (paths are flag names). */
type FlagIssues = { path: string; message: string }[];

function decimal(issues: FlagIssues, name: string, value: string | undefined, fallback: number | null): number | null {
  if (value === undefined) return fallback;
  if (/^[+-]?(\d+\.?\d*|\.\d+)$/.test(value.trim())) return Number(value);
  issues.push({ path: `--${name}`, message: `must be a number (got "${value}")` });
  return fallback;
}

function integer(issues: FlagIssues, name: string, value: string | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  if (/^-?\d+$/.test(value.trim())) return Number(value);
  issues.push({ path: `--${name}`, message: `must be a whole number (got "${value}")` });
  return fallback;
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
      guard: { type: 'string' },
      poem: { type: 'string' },
      engine: { type: 'string' },
      'graph-engine': { type: 'string' },
      'vector-engine': { type: 'string' },
      scenarios: { type: 'string' },
      'scenario-dir': { type: 'string' },
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
      embedder: { type: 'string' },
      'embedding-model': { type: 'string' },
      'extraction-model': { type: 'string' },
      help: { type: 'boolean', short: 'h' },
  });
  if (values.help) throw new EvalError('help', USAGE);
  const issues: FlagIssues = [];
  const models = (values.model ?? []).flatMap((m) => list(m, []));
  if (models.length === 0) issues.push({ path: '--model', message: 'required: one or more decision models (sim for the offline simulator, or aliases your OpenAI-compatible endpoint serves)' });
  const embedderId = values.embedder ?? env.STALEBENCH_EMBEDDER ?? 'lexical';
  const extractionModel = values['extraction-model'] ?? env.STALEBENCH_EXTRACTION_MODEL ?? 'sim';
  const usesEndpoint = models.some((m) => m !== 'sim') || embedderId === 'openai' || extractionModel !== 'sim';
  const engines = list(values.engine, []);
  const graphEngine = values['graph-engine'] ?? (engines.includes('neo4j') ? 'neo4j' : 'embedded');
  const vectorEngine = values['vector-engine'] ?? (engines.includes('qdrant') ? 'qdrant' : 'embedded');
  const unknownEngine = engines.find((e) => !['embedded', 'neo4j', 'qdrant'].includes(e));
  if (unknownEngine) throw new UnknownComponentError('engine', unknownEngine, ['embedded', 'neo4j', 'qdrant']);
  const experiment = values.experiment ?? 'grid';
  if (!(EXPERIMENT_IDS as readonly string[]).includes(experiment)) throw new UnknownComponentError('experiment', experiment, EXPERIMENT_IDS);
  const followUp = experiment === 'grid' ? null : FOLLOW_UP_EXPERIMENTS[experiment as keyof typeof FOLLOW_UP_EXPERIMENTS];
  const input = {
    experiment,
    hops: integer(issues, 'hops', values.hops, 3),
    toolSteps: integer(issues, 'tool-steps', values['tool-steps'], 4),
    models,
    systems: list(values.systems, BACKEND_IDS),
    modes: list(values.modes, followUp ? ['direct'] : ['direct', 'natural']),
    arms: list(values.arms, followUp ? followUp.arms : ['none', 'store-filter']),
    guard: list(values.guard, ['off']),
    poem: list(values.poem, ['off']),
    scenarios: list(values.scenarios, followUp?.scenarioKind === 'exploit' ? EXPLOIT_SCENARIO_IDS : POLICY_SCENARIO_IDS),
    scenarioDir: values['scenario-dir'] ?? null,
    trials: integer(issues, 'trials', values.trials ?? values.repeat ?? values.epochs, 10),
    k: integer(issues, 'k', values.k, 10),
    seed: integer(issues, 'seed', values.seed, 0),
    embedder:
      embedderId === 'openai'
        ? { id: 'openai', model: values['embedding-model'] ?? env.STALEBENCH_EMBEDDING_MODEL ?? 'text-embedding-3-small', baseURL: env.STALEBENCH_EMBEDDINGS_BASE_URL ?? null }
        : { id: embedderId },
    engine: {
      graph: graphEngine === 'neo4j' ? { id: 'neo4j', uri: env.NEO4J_URI ?? 'bolt://127.0.0.1:7687', user: env.NEO4J_USER ?? 'neo4j' } : { id: graphEngine },
      vector: vectorEngine === 'qdrant' ? { id: 'qdrant', url: env.QDRANT_URL ?? 'http://127.0.0.1:6333' } : { id: vectorEngine },
    },
    extraction: extractionModel === 'sim' ? { id: 'sim' } : { id: 'openai', model: extractionModel },
    baseURL: usesEndpoint ? (env.OPENAI_BASE_URL ?? 'https://api.openai.com/v1') : null,
    concurrency: integer(issues, 'concurrency', values.concurrency, 4),
    out: values.out ?? 'runs',
    runId: values['run-id'] ?? null,
    cache: { enabled: !values['no-cache'], dir: values['cache-dir'] ?? '.stalebench-cache' },
    retryErrors: values['retry-errors'] ?? false,
    maxErrorRate: decimal(issues, 'max-error-rate', values['max-error-rate'], 0),
    control: {
      preflight: !values['no-preflight'],
      requestTimeoutMs: Math.round((decimal(issues, 'request-timeout', values['request-timeout'], 60) ?? 60) * 1000),
      maxConsecutiveErrors: integer(issues, 'max-consecutive-errors', values['max-consecutive-errors'], 5),
      budgetUsd: decimal(issues, 'budget-usd', values['budget-usd'], null),
      allowUnpriced: values['allow-unpriced'] ?? false,
      prices: values.prices ?? null,
      confirmAboveUsd: decimal(issues, 'confirm-above-usd', values['confirm-above-usd'], 1),
      assumeYes: values.yes ?? false,
      quiet: values.quiet ?? false,
    },
  };
  const outProblem = unusableDirectory(input.out);
  if (outProblem) issues.push({ path: '--out', message: outProblem });
  let spec: RunSpec | null = null;
  try {
    spec = parseRunSpec(input, 'command line');
  } catch (error) {
    if (!(error instanceof InvalidInputError)) throw error;
    // Every problem at once, named by the flag the user typed; a flag already reported is not reported twice.
    const fromSpec = error.issues.map((issue) => ({ ...issue, path: flagOfSpecPath(issue.path) }));
    issues.push(...fromSpec.filter((issue) => !issues.some((flag) => flag.path === issue.path)));
  }
  if (spec === null || issues.length > 0) throw new InvalidInputError('command line', issues);
  return spec;
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

/** Entry point. Returns the process exit code (0 ok, 1 usage/config/preflight, 2 errors/aborted, 3 budget, 130/143 interrupted). */
export async function main(argv: readonly string[], env: NodeJS.ProcessEnv = process.env): Promise<number> {
  const [command, ...rest] = argv;
  if (command !== 'eval') {
    console.error(`unknown command "${command ?? ''}"; available: eval\n\n${USAGE}`);
    return 1;
  }
  const controller = new AbortController();
  const received: NodeJS.Signals[] = [];
  // The first SIGINT/SIGTERM stops scheduling and aborts calls in flight (they are not recorded); a second one quits now.
  const onSignal = (signal: NodeJS.Signals) => {
    received.push(signal);
    if (received.length > 1) process.exit(signal === 'SIGTERM' ? 143 : 130);
    console.error(`\n${signal === 'SIGTERM' ? 'terminated' : 'interrupted'}: aborting calls in flight and stopping (again to quit now). Re-run the same command to resume.`);
    controller.abort({ kind: 'interrupted', signal });
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  const resume = `pnpm eval ${rest.join(' ')}`;
  try {
    const spec = specFromArgs(rest, env);
    const dryRun = rest.includes('--dry-run');
    const outcome = await runEvaluation(spec, { apiKey: env.OPENAI_API_KEY, neo4jPassword: env.NEO4J_PASSWORD, qdrantApiKey: env.QDRANT_API_KEY, ledgerKey: ledgerKeyFromEnv(env) }, {
      signal: controller.signal,
      log: (line) => console.error(line),
      resumeAnyway: rest.includes('--resume-anyway'),
      dryRun,
      ...(process.stdin.isTTY && process.stderr.isTTY ? { confirm: askOnTerminal } : {}),
    });
    console.log(outcome.table);
    if (dryRun) return 0;
    console.log(`\nrun directory: ${outcome.runDir}`);
    if (outcome.status === 'cancelled' || outcome.status === 'aborted' || outcome.status === 'budget') console.log(`resume with: ${resume}`);
    // A non-zero exit ends with one line saying why.
    if (outcome.exitCode !== 0 && outcome.why) console.error(`${outcome.status === 'cancelled' ? 'stopped' : 'error'}: ${outcome.why}`);
    return outcome.exitCode;
  } catch (error) {
    if (error instanceof EvalError && error.code === 'help') {
      console.log(error.message);
      return 0;
    }
    const message = error instanceof Error ? error.message : String(error);
    const redact = createRedactor([env.OPENAI_API_KEY, env.NEO4J_PASSWORD, env.QDRANT_API_KEY]);
    // One clear line (or an InvalidInputError's list) for every error we raise on purpose; a stack only for a bug.
    if (!(error instanceof EvalError) && !(error instanceof TypeError && 'code' in error)) console.error(redact((error as Error).stack ?? ''));
    console.error(`error: ${redact(message)}`);
    return 1;
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  main(process.argv.slice(2)).then((code) => process.exit(code));
}
