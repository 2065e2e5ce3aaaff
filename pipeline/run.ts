// Runs one evaluation: validate everything, write the manifest, setup phase, experiment phase, summary.
import { rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { createEmbedder, createExtractionModel, loadBackend, verifyEngines, BACKEND_IDS } from '../backends/index.js';
import type { EngineSpec } from '../backends/memory-backend.js';
import { formatSummaryTable } from '../analysis/format-table.js';
import { SUMMARY_VERSION, type Summary } from '../analysis/summarize.js';
import { loadRun, summarizeRun } from '../analysis/load-run.js';
import { loadScenarioDir, loadScenarios } from '../scenarios/index.js';
import type { Scenario } from '../scenarios/scenario.js';
import { ARM_IDS, ARMS, RUNNABLE_ARM_IDS, type ArmId } from './arms.js';
import type { DecisionModel } from './decision-model.js';
import { InvalidInputError, UnknownComponentError } from './errors.js';
import { readUnitRecords, runExperimentPhase } from './experiment-phase.js';
import { sha256, writeJsonAtomic } from './json-files.js';
import { createOpenAIDecisionModel } from './openai-decision-model.js';
import { createResponseCache } from './response-cache.js';
import { RUN_LOG_VERSION, type RunManifest } from './run-log.js';
import { prepareRunLog, readLogHeads } from './run-log-repair.js';
import { RUN_ENVIRONMENT, type RunEnvironment } from './run-environment.js';
import { openRunSession } from './run-session.js';
import { promptFingerprint } from './prompt-fingerprint.js';
import { defaultRunId, specHash, type RunSpec } from './run-spec.js';
import { runSetupPhase } from './setup-phase.js';
import { createSimDecisionModel } from './sim-decision-model.js';
import { FOLLOW_UP_EXPERIMENTS } from './follow-up/index.js';
import { readFollowUpRecords, runFollowUpPhase } from './follow-up/phase.js';
import { decisionReplies } from './follow-up-log.js';
import { loadExploitScenarios, type ExploitScenario } from '../scenarios/exploit-scenario.js';
import { summarizeFollowUpRun, type FollowUpSummary } from '../analysis/follow-up-summary.js';
import { formatFollowUpSummary } from '../analysis/format-follow-up.js';

/** Secrets and process-level inputs that are not part of the spec (never written to the run directory). */
export interface RunSecrets {
  apiKey: string | undefined;
  neo4jPassword?: string | undefined;
  qdrantApiKey?: string | undefined;
  /** HMAC key of the PoEM execution ledger; null = generate one per process. */
  ledgerKey?: Uint8Array | null;
}

/** The engines of the spec plus their credentials (kept out of the spec, the manifest and the logs). */
function engineOf(spec: RunSpec, secrets: RunSecrets): EngineSpec {
  const { graph, vector } = spec.engine;
  return {
    graph: graph.id === 'neo4j' ? { ...graph, password: secrets.neo4jPassword ?? '' } : graph,
    vector: vector.id === 'qdrant' ? { ...vector, ...(secrets.qdrantApiKey ? { apiKey: secrets.qdrantApiKey } : {}) } : vector,
  };
}

/** How a run ended. */
export interface RunOutcome {
  exitCode: 0 | 1 | 2;
  runDir: string;
  /** The grid summary (`summary.json`); a follow-up run's summary is in `followUp` instead. */
  summary: Summary;
  followUp?: FollowUpSummary;
  table: string;
}

function validateComponents(spec: RunSpec): void {
  for (const system of spec.systems) if (!BACKEND_IDS.includes(system)) throw new UnknownComponentError('system', system, BACKEND_IDS);
  if (spec.experiment !== 'grid') {
    const { arms } = FOLLOW_UP_EXPERIMENTS[spec.experiment];
    for (const arm of spec.arms) if (!arms.includes(arm)) throw new UnknownComponentError(`${spec.experiment} arm`, arm, arms);
    return;
  }
  for (const arm of spec.arms) {
    if (!(ARM_IDS as readonly string[]).includes(arm)) throw new UnknownComponentError('arm', arm, ARM_IDS);
    if (!ARMS[arm as ArmId]) throw new UnknownComponentError('arm', arm, RUNNABLE_ARM_IDS);
  }
}

async function loadRunScenarios(spec: RunSpec): Promise<Scenario[]> {
  if (spec.scenarioDir === null) return loadScenarios({ ids: spec.scenarios });
  const all = await loadScenarioDir(spec.scenarioDir);
  const byId = new Map(all.map((s) => [s.id, s]));
  return spec.scenarios.map((id) => byId.get(id) ?? (() => { throw new UnknownComponentError('scenario', id, [...byId.keys()]); })());
}

function createModels(spec: RunSpec, scenarios: Scenario[], secrets: RunSecrets, exploitScenarios: ExploitScenario[] = []): DecisionModel[] {
  const cache = createResponseCache({ dir: resolve(spec.cache.dir), enabled: spec.cache.enabled });
  return spec.models.map((model) => {
    if (model === 'sim') return createSimDecisionModel({ scenarios, exploitScenarios, seed: spec.seed });
    if (!secrets.apiKey) throw new InvalidInputError('environment', [{ path: 'OPENAI_API_KEY', message: `model "${model}" needs an endpoint key; set OPENAI_API_KEY (any placeholder works for a local proxy without auth), or use --model sim` }]);
    return createOpenAIDecisionModel({ model, baseURL: spec.baseURL!, apiKey: secrets.apiKey, cache });
  });
}

/**
 * Runs (or resumes) the run described by `spec`. Every input is validated before the first backend call.
 * The same spec always maps to the same run directory, so re-issuing a command resumes it.
 */
export async function runEvaluation(spec: RunSpec, secrets: RunSecrets, options: { signal?: AbortSignal; log?: (line: string) => void; resumeAnyway?: boolean; environment?: RunEnvironment } = {}): Promise<RunOutcome> {
  const log = options.log ?? (() => {});
  validateComponents(spec);
  const followUp = spec.experiment === 'grid' ? null : FOLLOW_UP_EXPERIMENTS[spec.experiment];
  const exploit = followUp?.scenarioKind === 'exploit';
  const exploitScenarios = exploit ? await loadExploitScenarios({ ids: spec.scenarios, ...(spec.scenarioDir ? { dir: spec.scenarioDir } : {}) }) : [];
  // Policy scenarios back the grid and the write-back / propagation experiments (and PoEM's safety steps).
  const scenarios = exploit ? await loadScenarios() : await loadRunScenarios(spec);
  const runId = spec.runId ?? defaultRunId(spec);
  const runDir = resolve(spec.out, runId);
  const manifestPath = join(runDir, 'manifest.json');
  const hash = specHash(spec);
  const models = createModels(spec, scenarios, secrets, exploitScenarios);
  const engine = engineOf(spec, secrets);
  await verifyEngines(engine);
  const embedder = await createEmbedder(spec.embedder.id === 'lexical' ? { id: 'lexical' } : { id: 'openai', model: spec.embedder.model, baseURL: spec.embedder.baseURL ?? spec.baseURL ?? undefined, apiKey: secrets.apiKey });
  const extraction = await createExtractionModel(spec.extraction, { baseURL: spec.baseURL, apiKey: secrets.apiKey });
  // Locks the run directory (released on every exit path), then reads the manifest and checks a resume (run-session.ts).
  const environment = options.environment ?? RUN_ENVIRONMENT;
  const fingerprint = { scenarios: (exploit ? exploitScenarios : scenarios).map((s) => ({ id: s.id, sha256: sha256(JSON.stringify(s)) })), prompts: promptFingerprint(spec.experiment), revision: environment.revision(), packages: environment.packages() };
  await using session = await openRunSession({ runDir, specHash: hash, engine, fingerprint, resumeAnyway: options.resumeAnyway ?? false, log });
  const { previous, nonce } = session;
  // Verify the run log under the lock, before anything is appended; torn last lines go to `<file>.torn` and their units re-run.
  const logHeads = prepareRunLog(runDir, previous, log);
  const now = new Date().toISOString();
  const manifest: RunManifest = { ...session.manifestFor({
    version: RUN_LOG_VERSION,
    runId,
    status: 'started',
    simulated: models.some((m) => m.description.simulated) || ((spec.modes.includes('natural') || (spec.experiment === 'writeback' && spec.arms.includes('natural'))) && extraction.simulated),
    createdAt: previous?.createdAt ?? now,
    updatedAt: now,
    spec,
    specHash: hash,
    models: models.map((m) => m.description),
    embedder: { id: embedder.id, dimensions: embedder.dimensions },
    extraction: { id: extraction.id, simulated: extraction.simulated },
    systems: [],
    ...fingerprint,
    runtime: { node: process.version, platform: `${process.platform}-${process.arch}` },
    modelsOnProviderDefaultTemperature: [],
  }), logHeads };
  writeJsonAtomic(manifestPath, manifest);
  if (previous) log(`resuming ${runDir} (status was ${previous.status})`);

  const systemsSeen: RunManifest['systems'] = [];
  const loadSystem = async (id: string, settings: Parameters<typeof loadBackend>[1]) => {
    // Every namespace and work file of this process carries its nonce (backends/run-namespace.ts).
    const backend = await loadBackend(id, { ...settings, engine, nonce, workDir: join(settings.workDir, nonce) });
    systemsSeen.push({ id, summary: backend.description.summary });
    return backend;
  };
  /** Writes the final manifest (status, counts) and maps it to the exit code; the same for every experiment. */
  const finish = (counts: { units: number; done: number; errored: number; skippedAsDone: number; cancelled: boolean; cacheHits: number; cacheMisses: number }) => {
    const errorRate = counts.units === 0 ? 0 : counts.errored / counts.units;
    const status = counts.cancelled ? 'cancelled' : errorRate > spec.maxErrorRate ? 'error' : 'success';
    writeJsonAtomic(manifestPath, {
      ...manifest,
      status,
      updatedAt: new Date().toISOString(),
      systems: systemsSeen.length > 0 ? systemsSeen : previous?.systems ?? [],
      modelsOnProviderDefaultTemperature: models.flatMap((m) => m.providerDefaultTemperature()),
      counts: { units: counts.units, done: counts.done, errors: counts.errored, skippedAsDone: counts.skippedAsDone, cacheHits: counts.cacheHits, cacheMisses: counts.cacheMisses },
      ...(status === 'error' ? { error: { message: `${counts.errored} errored unit(s) of ${counts.units}, above --max-error-rate ${spec.maxErrorRate}` } } : {}),
      logHeads: readLogHeads(runDir),
    } satisfies RunManifest);
    return { status, exitCode: (counts.units === 0 ? 1 : status === 'error' ? 2 : 0) as 0 | 1 | 2 };
  };
  if (followUp) {
    const result = await runFollowUpPhase({
      experiment: followUp,
      runId,
      runDir,
      scenarios: exploit ? exploitScenarios : scenarios,
      policyScenarios: scenarios,
      systems: spec.systems,
      modes: spec.modes,
      arms: spec.arms,
      models,
      trials: spec.trials,
      k: spec.k,
      settings: { hops: spec.hops, toolSteps: spec.toolSteps },
      guardAxis: spec.guard.map((value) => value === 'on'),
      poemAxis: spec.poem.map((value) => value === 'on'),
      concurrency: spec.concurrency,
      retryErrors: spec.retryErrors,
      embedder,
      extraction,
      loadBackend: loadSystem,
      ledgerKey: secrets.ledgerKey ?? null,
      ...(options.signal ? { signal: options.signal } : {}),
      onUnit: (record, progress) => {
        if (progress.done % Math.max(1, Math.floor(progress.total / 10)) === 0 || record.status === 'error' || progress.done === progress.total) {
          log(`[${progress.done}/${progress.total}] ${record.unitId}: ${record.status}${record.status === 'error' ? `: ${record.error?.message}` : ''}`);
        }
      },
    });
    rmSync(join(runDir, 'work'), { recursive: true, force: true });
    const summary = summarizeFollowUpRun({ runDir, manifest, probes: new Map(), records: new Map() })!;
    writeJsonAtomic(join(runDir, 'summary.json'), { version: SUMMARY_VERSION, ...summary });
    // Errors are counted over every recorded unit (a resumed run still carries its earlier errors).
    const recorded = [...readFollowUpRecords(runDir, followUp.id).values()];
    const errored = recorded.filter((r) => r.status === 'error').length;
    const cached = recorded.flatMap(decisionReplies);
    const { exitCode } = finish({ units: result.total, done: recorded.length, errored, skippedAsDone: result.skippedAsDone, cancelled: result.cancelled, cacheHits: cached.filter((r) => r.cached).length, cacheMisses: cached.filter((r) => !r.cached && r.attempts > 0).length });
    const empty: Summary = { version: SUMMARY_VERSION, simulated: manifest.simulated, cells: [], guardMetrics: [], cache: { hits: 0, misses: 0, hitRate: null } };
    return { exitCode, runDir, summary: empty, followUp: summary, table: formatFollowUpSummary(summary) };
  }
  const probes = await runSetupPhase({
    runId,
    runDir,
    systems: spec.systems,
    modes: spec.modes,
    scenarios,
    k: spec.k,
    embedder,
    extraction,
    loadBackend: loadSystem,
    log,
  });
  rmSync(join(runDir, 'work'), { recursive: true, force: true });
  const result = await runExperimentPhase({
    runDir,
    scenarios,
    probes,
    systems: spec.systems,
    modes: spec.modes,
    arms: spec.arms as ArmId[],
    guardAxis: spec.guard.map((value) => value === 'on'),
    poemAxis: spec.poem.map((value) => value === 'on'),
    ledgerKey: secrets.ledgerKey ?? null,
    models,
    trials: spec.trials,
    concurrency: spec.concurrency,
    retryErrors: spec.retryErrors,
    signal: options.signal,
    onUnit: (record, progress) => {
      if (progress.done % Math.max(1, Math.floor(progress.total / 10)) === 0 || record.status === 'error' || progress.done === progress.total) {
        log(`[${progress.done}/${progress.total}] ${record.unitId}: ${record.status === 'error' ? `error: ${record.error?.message}` : (record.parsedAction ?? 'unparsed')}`);
      }
    },
  });
  // The summary is computed from the stored run log only, exactly as `pnpm rescore` recomputes it.
  const { records } = readUnitRecords(runDir);
  const summary = summarizeRun(loadRun(runDir));
  const cacheStats = summary.cache;
  writeJsonAtomic(join(runDir, 'summary.json'), summary);
  const errored = [...records.values()].filter((r) => r.status === 'error').length + [...probes.values()].filter((p) => p.status === 'error').length;
  const units = result.total;
  const { exitCode } = finish({ units, done: records.size, errored, skippedAsDone: result.skippedAsDone, cancelled: result.cancelled, cacheHits: cacheStats.hits, cacheMisses: cacheStats.misses });
  const table = formatSummaryTable(summary);
  if (units === 0) log('zero units to run: every requested cell is n/a or failed in setup');
  return { exitCode, runDir, summary, table };
}
