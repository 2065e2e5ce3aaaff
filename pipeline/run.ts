// Runs one evaluation as named phases: components → preflight → plan → session → setup/experiment (or follow-up) → ending.
import { rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { engineRecords } from '../backends/engines.js';
import { loadBackend, SYSTEMS, verifyEngines, verifySystems } from '../backends/index.js';
import { createFromSpec, createOfflineExtractionModel, EMBEDDERS, EXTRACTION_MODELS } from '../backends/model-roles.js';
import { recordOf } from './core/registry.js';
import { formatSummaryTable, SUMMARY_VERSION, type Summary, loadRun, summarizeRun, summarizeFollowUpRun, type FollowUpSummary, formatFollowUpSummary } from '../analysis/index.js';
import type { ArmId } from './arms.js';
import { createBudget, createSpendGate, type Budget } from './budget.js';
import { InvalidInputError } from './core/errors.js';
import { readUnitRecords, runExperimentPhase } from './experiment-phase.js';
import { isRemoteModel } from './decision-models.js';
import { EXPERIMENTS, experimentRecord } from './experiments.js';
import { FOLLOW_UP_EXPERIMENTS, isFollowUpExperiment } from './follow-up/index.js';
import { readFollowUpRecords, runFollowUpPhase } from './follow-up/phase.js';
import { sha256, writeJsonAtomic } from './json-files.js';
import { preflight } from './preflight.js';
import { loadPrices, priceOf as lookupPrice } from './prices.js';
import { promptFingerprint } from './prompt-fingerprint.js';
import { createRedactor } from './redact.js';
import { accountFollowUp, accountGrid, followUpOutcome, formatAccount, gridOutcome, type RunAccount } from './run-accounting.js';
import { createModels, engineOf, loadRunScenarios, preflightTargets, secretsOf, validateComponents, type RunSecrets } from './run-components.js';
import { createRunControl, runEnding, type RunEnding } from './run-control.js';
import { RUN_ENVIRONMENT, type RunEnvironment } from './run-environment.js';
import { RUN_LOG_VERSION, type RunManifest } from './run-log.js';
import { embedderRecord } from './embedder-record.js';
import { prepareRunLog, readLogHeads } from './run-log-repair.js';
import { formatPlan, planRun, planUpperUsd, type RunPlan } from './run-plan.js';
import { openRunSession } from './run-session.js';
import { defaultRunId, specHash, type RunSpec } from './run-spec.js';
import { runSetupPhase } from './setup-phase.js';
import { progressStyle } from './progress.js';
import { createTokenCounter, type TokenCounter } from './token-count.js';
import type { DecisionModel, DecisionRequest } from './decision-model.js';

export type { RunSecrets } from './run-components.js';

/** How a run ended. */
export interface RunOutcome extends RunEnding {
  runDir: string;
  /** The grid summary (`summary.json`); a follow-up run's summary is in `followUp` instead. */
  summary: Summary;
  followUp?: FollowUpSummary;
  /** The printed result: the summary table and the spend lines, or the plan of a `--dry-run`. */
  table: string;
  /** `--dry-run`: the plan (nothing was written or sent). */
  plan?: RunPlan;
}

/** Process-level options of one invocation (not part of the spec). */
export interface RunOptions {
  /** Aborted by the CLI on SIGINT/SIGTERM (reason: `{ kind: 'interrupted', signal }`). */
  signal?: AbortSignal;
  log?: (line: string) => void;
  resumeAnyway?: boolean;
  environment?: RunEnvironment;
  /** `--dry-run`: plan, print, write nothing, send nothing. */
  dryRun?: boolean;
  /** Asks the user (a TTY); absent: a run above `--confirm-above-usd` needs `--yes`. */
  confirm?: (question: string) => Promise<boolean>;
  /** Progress output (default stderr) and whether it is a terminal. */
  progress?: { write: (text: string) => void; isTTY: boolean | undefined; env: NodeJS.ProcessEnv };
}

const emptySummary = (simulated: boolean): Summary => ({ version: SUMMARY_VERSION, simulated, cells: [], guardMetrics: [], cache: { hits: 0, misses: 0, hitRate: null } });

/**
 * Runs (or resumes) the run described by `spec`. Every input is validated, every endpoint probed and the cost
 * planned before anything is written; the same spec always maps to the same run directory, so re-issuing a
 * command resumes it.
 */
export async function runEvaluation(spec: RunSpec, secrets: RunSecrets, options: RunOptions = {}): Promise<RunOutcome> {
  const redact = createRedactor(secretsOf(secrets));
  const log = (line: string) => (options.log ?? (() => {}))(redact(line));
  validateComponents(spec);
  const { scenarios, exploitScenarios, exploit } = await loadRunScenarios(spec);
  const runId = spec.runId ?? defaultRunId(spec);
  const runDir = resolve(spec.out, runId);
  const prices = loadPrices(spec.control.prices);
  const priceOf = (model: string) => lookupPrice(prices, model);
  const counters = new Map<string, TokenCounter>(await Promise.all(spec.models.filter(isRemoteModel).map(async (m) => [m, await createTokenCounter(m)] as const)));
  const budget: Budget | null = spec.control.budgetUsd === null ? null : createBudget({ limitUsd: spec.control.budgetUsd, priceOf, allowUnpriced: spec.control.allowUnpriced });
  budget?.checkModels(spec.models.filter(isRemoteModel));
  const spend = budget ? createSpendGate(budget, { countTokens: (model, messages) => counters.get(model)!.count(messages.map((m) => ({ role: m.role as 'user', content: m.content }))), priceOf }) : undefined;
  const modelComponents = await createModels(spec, { scenarios, exploitScenarios, secrets, redact, ...(spend ? { spend } : {}) });
  const models = modelComponents.map((component) => component.model);
  const engine = engineOf(spec, secrets);
  await verifyEngines(engine);
  await verifySystems(spec.systems);
  const endpoint = { baseURL: spec.baseURL, apiKey: secrets.apiKey };
  const embedder = await createFromSpec(EMBEDDERS, spec.embedder, endpoint);
  const extraction = await createFromSpec(EXTRACTION_MODELS, spec.extraction, endpoint);
  const targets = preflightTargets(spec, secrets);
  if (spec.control.preflight && targets.length > 0) {
    for (const report of await preflight(targets, { timeoutMs: 10_000 })) log(`preflight ${report.baseURL} (${report.roles.join('+')}): ok in ${report.ms} ms (${report.checkedBy === 'models-list' ? 'GET /models' : 'one 1-token request per alias'})`);
  }

  // The plan: printed by --dry-run; for a real run, its upper cost decides whether to ask first.
  const realModels = models.filter((m) => !m.description.simulated);
  if (options.dryRun || (realModels.length > 0 && !spec.control.assumeYes)) {
    const cacheLookup = (model: DecisionModel, request: DecisionRequest) => modelComponents.find((component) => component.model === model)?.capabilities.cacheLookup?.(request) ?? false;
    const plan = await planRun({ spec, runDir, scenarios, exploitScenarios, models, embedder, extraction, simExtraction: await createOfflineExtractionModel(), priceOf, cacheLookup });
    if (options.dryRun) return { status: 'success', exitCode: 0, why: null, runDir, summary: emptySummary(models.some((m) => m.description.simulated)), table: formatPlan(plan), plan };
    const upper = planUpperUsd(plan);
    if (upper === null || upper > spec.control.confirmAboveUsd) {
      const question = `${formatPlan(plan)}\n\nThis run may cost ${upper === null ? 'an unknown amount (a model has no known price)' : `up to $${upper.toFixed(2)}`}, above --confirm-above-usd ${spec.control.confirmAboveUsd}. Start it?`;
      const accepted = options.confirm ? await options.confirm(question) : false;
      if (!accepted) {
        throw new InvalidInputError('command line', [{ path: '--yes', message: `${options.confirm ? 'not confirmed' : 'not a terminal, so nobody can confirm'}: the planned upper cost is ${upper === null ? 'unknown (a model has no known price; give one with --prices)' : `$${upper.toFixed(2)}`}, above --confirm-above-usd ${spec.control.confirmAboveUsd}. See it with --dry-run; start it with --yes (and a --budget-usd cap)` }]);
      }
    }
  }

  // Locks the run directory (released on every exit path), then reads the manifest and checks a resume (run-session.ts).
  const environment = options.environment ?? RUN_ENVIRONMENT;
  const fingerprint = { scenarios: (exploit ? exploitScenarios : scenarios).map((s) => ({ id: s.id, sha256: sha256(JSON.stringify(s)) })), prompts: promptFingerprint(spec.experiment), revision: environment.revision(), packages: environment.packages() };
  await using session = await openRunSession({ runDir, specHash: specHash(spec), engine, fingerprint, resumeAnyway: options.resumeAnyway ?? false, log });
  const { previous, nonce } = session;
  // Verify the run log under the lock, before anything is appended; torn last lines go to `<file>.torn` and their units re-run.
  const logHeads = prepareRunLog(runDir, previous, log);
  const now = new Date().toISOString();
  const manifestPath = join(runDir, 'manifest.json');
  const manifest: RunManifest = { ...session.manifestFor({
    version: RUN_LOG_VERSION,
    runId,
    status: 'started',
    simulated: models.some((m) => m.description.simulated) || ((spec.modes.includes('natural') || spec.arms.some((arm) => EXPERIMENTS.get(spec.experiment).ingestingArms.includes(arm))) && extraction.simulated),
    createdAt: previous?.createdAt ?? now,
    updatedAt: now,
    spec,
    specHash: specHash(spec),
    models: models.map((m) => m.description),
    embedder: embedderRecord(embedder),
    extraction: { id: extraction.id, simulated: extraction.simulated },
    systems: [],
    components: [experimentRecord(spec), ...engineRecords(spec.engine), ...[embedder, extraction, ...modelComponents].flatMap((component) => recordOf(component) ?? []), ...spec.systems.map((id) => SYSTEMS.record(id))],
    ...fingerprint,
    runtime: { node: process.version, platform: `${process.platform}-${process.arch}` },
    modelsOnProviderDefaultTemperature: [],
  }), logHeads };
  writeJsonAtomic(manifestPath, manifest);
  if (previous) log(`resuming ${runDir} (status was ${previous.status})`);

  const progress = options.progress ?? { write: (text: string) => void process.stderr.write(text), isTTY: process.stderr.isTTY, env: process.env };
  const control = createRunControl({
    ...(options.signal ? { external: options.signal } : {}),
    maxConsecutiveErrors: spec.control.maxConsecutiveErrors,
    maxErrorRate: spec.maxErrorRate,
    progress: { write: progress.write, style: progressStyle({ quiet: spec.control.quiet, isTTY: progress.isTTY, env: progress.env }) },
    costOf: (model, reply) => {
      if (!reply.cached && reply.attempts === 0) return 0;
      const proxy = Number(reply.headers['x-litellm-response-cost']);
      if (reply.headers['x-litellm-response-cost'] !== undefined && Number.isFinite(proxy)) return proxy;
      const price = priceOf(model);
      return price && reply.usage ? (reply.usage.promptTokens * price.input + reply.usage.completionTokens * price.output) / 1e6 : null;
    },
  });
  const systemsSeen: RunManifest['systems'] = [];
  const loadSystem = async (id: string, settings: Parameters<typeof loadBackend>[1]) => {
    // Every namespace and work file of this process carries its nonce (backends/run-namespace.ts).
    const backend = await loadBackend(id, { ...settings, engine, nonce, workDir: join(settings.workDir, nonce) });
    systemsSeen.push({ id, summary: backend.description.summary });
    return backend;
  };
  const stops = { signal: control.signal, onBudget: control.budgetExhausted, redact };
  const logError = (unitId: string, status: string, message: string | undefined) => {
    if (status === 'error') log(`${unitId}: error: ${message ?? ''}`);
  };
  /** The final manifest (status, counts, spend, provenance) and the exit code: the same for every experiment. */
  const finish = (account: RunAccount): RunEnding => {
    control.finish();
    const ending = runEnding({ units: account.units, errored: account.errored, completed: account.completed, unparseable: account.unparseable, maxErrorRate: spec.maxErrorRate, stop: control.stopped });
    const budgetTotals = budget?.totals();
    writeJsonAtomic(manifestPath, {
      ...manifest,
      embedder: embedderRecord(embedder), // the endpoint has answered by now: vector length and served model
      status: ending.status,
      updatedAt: new Date().toISOString(),
      systems: systemsSeen.length > 0 ? systemsSeen : previous?.systems ?? [],
      modelsOnProviderDefaultTemperature: modelComponents.flatMap((component) => component.capabilities.temperatureFallbacks?.() ?? []),
      counts: { units: account.units, done: account.done, errors: account.errored, skippedAsDone: 0, cacheHits: account.cacheHits, cacheMisses: account.cacheMisses },
      usage: account.usage,
      provenance: account.provenance,
      ...(budgetTotals ? { budget: { limitUsd: budgetTotals.limitUsd, spentUsd: budgetTotals.spentUsd, callsWithUnknownCost: budgetTotals.callsWithUnknownCost } } : {}),
      ...(ending.why && ending.exitCode !== 0 ? { error: { message: ending.why } } : {}),
      logHeads: readLogHeads(runDir),
    } satisfies RunManifest);
    return ending;
  };
  const spendLines = (account: RunAccount) => formatAccount(account, budget ? { limitUsd: budget.totals().limitUsd, spentUsd: budget.totals().spentUsd } : null);

  const followUp = isFollowUpExperiment(spec.experiment) ? FOLLOW_UP_EXPERIMENTS[spec.experiment] : null;
  if (followUp) {
    const result = await runFollowUpPhase({
      experiment: followUp, runId, runDir, scenarios: exploit ? exploitScenarios : scenarios, policyScenarios: scenarios,
      systems: spec.systems, modes: spec.modes, arms: spec.arms, models, trials: spec.trials, k: spec.k,
      settings: { hops: spec.hops, toolSteps: spec.toolSteps },
      guardAxis: spec.guard.map((value) => value === 'on'), poemAxis: spec.poem.map((value) => value === 'on'),
      concurrency: spec.concurrency, retryErrors: spec.retryErrors, embedder, extraction, loadBackend: loadSystem,
      ledgerKey: secrets.ledgerKey ?? null, ...stops,
      onStart: control.begin,
      onUnit: (record) => {
        control.unitFinished(followUpOutcome(record));
        logError(record.unitId, record.status, record.error?.message);
      },
    });
    rmSync(join(runDir, 'work'), { recursive: true, force: true });
    const account = accountFollowUp(result.total, readFollowUpRecords(runDir, followUp.id).values(), priceOf);
    // The summary first (from the stored records; the usage that the final manifest will hold), then the manifest's ending.
    const summary = { ...summarizeFollowUpRun(loadRun(runDir))!, usage: account.usage };
    writeJsonAtomic(join(runDir, 'summary.json'), { version: SUMMARY_VERSION, ...summary });
    const ending = finish(account);
    return { ...ending, runDir, summary: emptySummary(manifest.simulated), followUp: summary, table: [formatFollowUpSummary(summary), '', ...spendLines(account)].join('\n') };
  }
  const probes = await runSetupPhase({ runId, runDir, systems: spec.systems, modes: spec.modes, scenarios, k: spec.k, embedder, extraction, loadBackend: loadSystem, log, ...stops });
  rmSync(join(runDir, 'work'), { recursive: true, force: true });
  const result = await runExperimentPhase({
    runDir, scenarios, probes, systems: spec.systems, modes: spec.modes, arms: spec.arms as ArmId[],
    guardAxis: spec.guard.map((value) => value === 'on'), poemAxis: spec.poem.map((value) => value === 'on'),
    ledgerKey: secrets.ledgerKey ?? null, models, trials: spec.trials, concurrency: spec.concurrency, retryErrors: spec.retryErrors, ...stops,
    onStart: control.begin,
    onUnit: (record) => {
      control.unitFinished(gridOutcome(record));
      logError(record.unitId, record.status, record.error?.message);
    },
  });
  const account = accountGrid(result.total, readUnitRecords(runDir).records.values(), probes.values(), priceOf);
  // The summary is computed from the stored run log only, exactly as `pnpm rescore` recomputes it (its usage is the
  // one the final manifest holds); it is written before the manifest's ending, so a failure here leaves `started`.
  const summary = { ...summarizeRun(loadRun(runDir)), usage: account.usage };
  writeJsonAtomic(join(runDir, 'summary.json'), summary);
  const ending = finish(account);
  return { ...ending, runDir, summary, table: [formatSummaryTable(summary), '', ...spendLines(account)].join('\n') };
}
