// The components of a run, resolved from its spec before anything is written: scenarios, engines, decision models, endpoints to probe.
import type { AttemptObserver } from '../models/attempt-relay.js';
import { resolve } from 'node:path';
import { connectEngines } from '../../backends/engines.js';
import { SYSTEMS } from '../../backends/index.js';
import type { EngineSpec, Neo4jServer } from '../../backends/memory-backend.js';
import { EMBEDDERS, EXTRACTION_MODELS } from '../../backends/model-roles.js';
import { argsOf } from '#core/registry.js';
import { loadScenarioDir, loadScenarios } from '../../scenarios/index.js';
import type { Scenario } from '../../scenarios/scenario.js';
import { loadExploitScenarios, type ExploitScenario } from '../../scenarios/exploit-scenario.js';
import {
  loadForgedReasoningScenarios,
  type ForgedReasoningScenario,
} from '../../scenarios/forged-reasoning-scenario.js';
import { MUTATION_ENGINE } from '../suites/forged-reasoning/mutation-engine.js';
import { ARM_IDS, isArmId } from './arms.js';
import type { SpendGate } from './budget.js';
import { createDecisionModel, isRemoteModel, type DecisionModelComponent } from '../models/decision-models.js';
import { InvalidInputError, UnknownComponentError } from '#core/errors.js';
import { EXPERIMENTS } from './experiments.js';
import type { EndpointPool } from '../endpoints/endpoint-pool.js';
import type { BatchTransport } from '../batch/batch-transport.js';
import type { CallLimits } from '../endpoints/adaptive-limit.js';
import type { PoolEndpoint } from '../endpoints/endpoints-file.js';
import type { PreflightTarget } from './preflight.js';
import type { Redactor } from './redact.js';
import { createResponseCache } from '../models/response-cache.js';
import type { RunSpec } from './run-spec.js';
import type { EvalPhaseRulesV1 } from './eval-phase-v1.js';

/** Secrets and process-level inputs that are not part of the spec (never written to the run directory). */
export interface RunSecrets {
  apiKey: string | undefined;
  neo4jPassword?: string | undefined;
  /** NEO4J_URI and NEO4J_USER (with `neo4jPassword`: the server of systems that always run on Neo4j). */
  neo4jUri?: string | undefined;
  neo4jUser?: string | undefined;
  qdrantApiKey?: string | undefined;
  /** HMAC key of the PoEM execution ledger; null = generate one per process. */
  ledgerKey?: Uint8Array | null;
  /** `--endpoints`: the pool's endpoints with the keys read from their variables (pipeline/endpoints/). */
  endpoints?: readonly PoolEndpoint[];
}

/** Every secret of a run, for redaction. */
export function secretsOf(secrets: RunSecrets): (string | undefined)[] {
  return [
    secrets.apiKey,
    secrets.neo4jPassword,
    secrets.qdrantApiKey,
    ...(secrets.endpoints ?? []).map((e) => e.apiKey),
  ];
}

/** The Neo4j server of NEO4J_URI / NEO4J_USER / NEO4J_PASSWORD, or undefined when NEO4J_URI is unset. */
export function neo4jServerOf(secrets: RunSecrets): Neo4jServer | undefined {
  if (!secrets.neo4jUri) return undefined;
  return { uri: secrets.neo4jUri, user: secrets.neo4jUser ?? 'neo4j', password: secrets.neo4jPassword ?? '' };
}

/** The engines of the spec plus their credentials (kept out of the spec, the manifest and the logs). */
export function engineOf(spec: RunSpec, secrets: RunSecrets): EngineSpec {
  return connectEngines(spec.engine, { neo4jPassword: secrets.neo4jPassword, qdrantApiKey: secrets.qdrantApiKey });
}

/** The scenario sets of a run: the experiment's own set and the policy scenarios (PoEM's safety steps read them). */
export interface RunScenarios {
  /** The policy scenarios (grid, write-back, propagation; PoEM's safety steps). */
  scenarios: Scenario[];
  /** The exploit scenarios of the tools experiment (empty otherwise). */
  exploitScenarios: ExploitScenario[];
  /** Whether the experiment runs on the exploit scenarios. */
  exploit: boolean;
  /** The FARMA-style scenarios of the forged-reasoning experiment (empty otherwise). */
  reasoningScenarios: ForgedReasoningScenario[];
  /** The experiment's own set, one of the above: what a resume fingerprints (pipeline/run/run-start.ts). */
  ownScenarios: readonly { id: string }[];
}

/** The rules of the run's eval phase that its components are checked and built with. */
export type ComponentRules = Pick<
  EvalPhaseRulesV1<RunSpec, RunScenarios>,
  'refuses' | 'checkComponents' | 'scenarios' | 'extraModels' | 'memorySystems'
>;

/** Every system and arm of the spec is registered (an unknown one names the available ids); the phase checks its arms. */
export function validateComponents(spec: RunSpec, phase: ComponentRules): void {
  for (const system of spec.systems) SYSTEMS.get(system);
  if (spec.attackerModel !== null && spec.attackerModel !== MUTATION_ENGINE && !isRemoteModel(spec.attackerModel)) {
    throw new InvalidInputError('command line', [
      {
        path: '--attacker-model',
        message: `"${spec.attackerModel}" cannot write notes; use ${MUTATION_ENGINE} (offline), an endpoint model alias, or off`,
      },
    ]);
  }
  const tamper = phase.refuses.tamper;
  if (tamper && spec.tamper === 'unrevoke')
    throw new InvalidInputError('command line', [{ path: '--tamper', message: tamper(spec.experiment) }]);
  phase.checkComponents(spec);
  // Memory systems ingest through the extraction model and read through the embedder: a budget must bound both.
  if (phase.memorySystems) checkBudgetBounds(spec);
}

/** An experiment with its own arms (a follow-up, forged-reasoning): every arm of the spec is one of its line's. */
export function checkOwnArms(spec: Pick<RunSpec, 'experiment' | 'arms'>): void {
  const arms = Object.keys(EXPERIMENTS.get(spec.experiment).arms);
  for (const arm of spec.arms)
    if (!arms.includes(arm)) throw new UnknownComponentError(`${spec.experiment} arm`, arm, arms);
}

/** The grid: every arm is in the arm registry. */
export function checkGridArms(spec: Pick<RunSpec, 'arms'>): void {
  for (const arm of spec.arms) if (!isArmId(arm)) throw new UnknownComponentError('arm', arm, ARM_IDS);
}

/**
 * A phase on memory systems (the grid, a follow-up): a budget is refused when a real extraction model or embedder
 * would spend outside it (a budget bounds the decision calls it can reserve), unless `--allow-unpriced`.
 */
function checkBudgetBounds(spec: Pick<RunSpec, 'extraction' | 'embedder' | 'control'>): void {
  const unbounded = [
    EXTRACTION_MODELS.get(spec.extraction.id).remote ? `--extraction-model ${String(spec.extraction.model)}` : null,
    EMBEDDERS.get(spec.embedder.id).remote ? `--embedder ${spec.embedder.id} (${String(spec.embedder.model)})` : null,
  ].filter(Boolean);
  if (spec.control.budgetUsd !== null && unbounded.length > 0 && !spec.control.allowUnpriced) {
    throw new InvalidInputError('command line', [
      {
        path: '--budget-usd',
        message: `bounds decision calls only; ${unbounded.join(' and ')} would spend outside it. Use --extraction-model sim / --embedder lexical, or pass --allow-unpriced to accept that their spend is only counted`,
      },
    ]);
  }
}

/** Policy scenarios (grid, write-back, propagation): the built-in set, or a `--scenario-dir`'s, by the spec's ids. */
export async function loadPolicyScenarioSet(spec: Pick<RunSpec, 'scenarios' | 'scenarioDir'>): Promise<RunScenarios> {
  const none = { exploitScenarios: [], exploit: false, reasoningScenarios: [] };
  if (spec.scenarioDir === null) {
    const scenarios = await loadScenarios({ ids: spec.scenarios });
    return { scenarios, ...none, ownScenarios: scenarios };
  }
  const all = await loadScenarioDir(spec.scenarioDir);
  const byId = new Map(all.map((s) => [s.id, s]));
  const scenarios = spec.scenarios.map(
    (id) =>
      byId.get(id) ??
      (() => {
        throw new UnknownComponentError(`scenario (in --scenario-dir ${spec.scenarioDir})`, id, [...byId.keys()]);
      })(),
  );
  return { scenarios, ...none, ownScenarios: scenarios };
}

/** The exploit scenarios (tools), with the built-in policy scenarios beside them. */
export async function loadExploitScenarioSet(spec: Pick<RunSpec, 'scenarios' | 'scenarioDir'>): Promise<RunScenarios> {
  const exploitScenarios = await loadExploitScenarios({
    ids: spec.scenarios,
    ...(spec.scenarioDir ? { dir: spec.scenarioDir } : {}),
  });
  return {
    scenarios: await loadScenarios(),
    exploitScenarios,
    exploit: true,
    reasoningScenarios: [],
    ownScenarios: exploitScenarios,
  };
}

/** The forged-reasoning scenarios, alone. */
export async function loadReasoningScenarioSet(
  spec: Pick<RunSpec, 'scenarios' | 'scenarioDir'>,
): Promise<RunScenarios> {
  const reasoningScenarios = await loadForgedReasoningScenarios({
    ids: spec.scenarios,
    ...(spec.scenarioDir ? { dir: spec.scenarioDir } : {}),
  });
  return { scenarios: [], exploitScenarios: [], exploit: false, reasoningScenarios, ownScenarios: reasoningScenarios };
}

/** The settings a decision model's registry line takes its arguments from. */
function decisionRunSettings(spec: RunSpec) {
  return { seed: spec.seed, baseURL: spec.baseURL, timeoutMs: spec.control.requestTimeoutMs };
}

/** The decision models of the spec through their registry lines: the simulator, or endpoint models with the run's cache, timeout, budget and redaction. */
export async function createModels(
  spec: RunSpec,
  input: {
    scenarios: Scenario[];
    exploitScenarios: ExploitScenario[];
    reasoningScenarios?: ForgedReasoningScenario[];
    secrets: RunSecrets;
    spend?: SpendGate;
    redact: Redactor;
    pool?: EndpointPool | null;
    attempts?: AttemptObserver;
    limits?: CallLimits | null;
    batch?: BatchTransport | null;
    /** Aliases the phase calls besides `--model` (its `extraModels`), built after them. */
    extraModels: readonly string[];
  },
): Promise<DecisionModelComponent[]> {
  const cache = createResponseCache({
    dir: resolve(spec.cache.dir),
    enabled: spec.cache.enabled,
    redact: input.redact,
  });
  const context = {
    scenarios: input.scenarios,
    exploitScenarios: input.exploitScenarios,
    ...(input.reasoningScenarios ? { reasoningScenarios: input.reasoningScenarios } : {}),
    apiKey: input.secrets.apiKey,
    cache,
    redact: input.redact,
    ...(input.spend ? { spend: input.spend } : {}),
    ...(input.pool ? { pool: input.pool } : {}),
    ...(input.attempts ? { attempts: input.attempts } : {}),
    ...(input.limits ? { limits: input.limits } : {}),
    ...(input.batch ? { batch: input.batch } : {}),
  };
  const models: DecisionModelComponent[] = [];
  for (const alias of [...spec.models, ...input.extraModels])
    models.push(await createDecisionModel(alias, decisionRunSettings(spec), context));
  return models;
}

/** The endpoints a run will call (decision models, extraction, embeddings), for the preflight. */
export function preflightTargets(
  spec: RunSpec,
  secrets: RunSecrets,
  extraModels: readonly string[],
): PreflightTarget[] {
  const apiKey = secrets.apiKey ?? '';
  const targets: PreflightTarget[] = [];
  const endpointModels = [...new Set([...spec.models, ...extraModels])].filter(isRemoteModel);
  // With a pool every endpoint is probed, with its own key, for the aliases it serves.
  if (endpointModels.length > 0 && secrets.endpoints)
    for (const endpoint of secrets.endpoints)
      targets.push({
        role: 'decision',
        baseURL: endpoint.baseURL,
        models: endpointModels.filter((m) => endpoint.models?.includes(m) ?? true),
        apiKey: endpoint.apiKey,
      });
  else if (endpointModels.length > 0 && spec.baseURL)
    targets.push({ role: 'decision', baseURL: spec.baseURL, models: endpointModels, apiKey });
  const extraction = EXTRACTION_MODELS.get(spec.extraction.id).endpoint(argsOf(spec.extraction), {
    baseURL: spec.baseURL,
  });
  if (extraction) targets.push({ role: 'extraction', baseURL: extraction.baseURL, models: [extraction.model], apiKey });
  const embeddings = EMBEDDERS.get(spec.embedder.id).endpoint(argsOf(spec.embedder), { baseURL: spec.baseURL });
  if (embeddings) targets.push({ role: 'embeddings', baseURL: embeddings.baseURL, models: [embeddings.model], apiKey });
  return targets;
}
