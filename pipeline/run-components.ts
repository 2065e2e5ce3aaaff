// The components of a run, resolved from its spec before anything is written: scenarios, engines, decision models, endpoints to probe.
import { resolve } from 'node:path';
import { BACKEND_IDS } from '../backends/index.js';
import type { EngineSpec } from '../backends/memory-backend.js';
import { loadScenarioDir, loadScenarios } from '../scenarios/index.js';
import type { Scenario } from '../scenarios/scenario.js';
import { loadExploitScenarios, type ExploitScenario } from '../scenarios/exploit-scenario.js';
import { ARM_IDS, ARMS, RUNNABLE_ARM_IDS, type ArmId } from './arms.js';
import type { SpendGate } from './budget.js';
import type { DecisionModel } from './decision-model.js';
import { InvalidInputError, UnknownComponentError } from '../core/errors.js';
import { FOLLOW_UP_EXPERIMENTS } from './follow-up/index.js';
import { createOpenAIDecisionModel } from './openai-decision-model.js';
import type { PreflightTarget } from './preflight.js';
import type { Redactor } from './redact.js';
import { createResponseCache } from './response-cache.js';
import type { RunSpec } from './run-spec.js';
import { createSimDecisionModel } from './sim-decision-model.js';

/** Secrets and process-level inputs that are not part of the spec (never written to the run directory). */
export interface RunSecrets {
  apiKey: string | undefined;
  neo4jPassword?: string | undefined;
  qdrantApiKey?: string | undefined;
  /** HMAC key of the PoEM execution ledger; null = generate one per process. */
  ledgerKey?: Uint8Array | null;
}

/** Every secret of a run, for redaction. */
export function secretsOf(secrets: RunSecrets): (string | undefined)[] {
  return [secrets.apiKey, secrets.neo4jPassword, secrets.qdrantApiKey];
}

/** The engines of the spec plus their credentials (kept out of the spec, the manifest and the logs). */
export function engineOf(spec: RunSpec, secrets: RunSecrets): EngineSpec {
  const { graph, vector } = spec.engine;
  return {
    graph: graph.id === 'neo4j' ? { ...graph, password: secrets.neo4jPassword ?? '' } : graph,
    vector: vector.id === 'qdrant' ? { ...vector, ...(secrets.qdrantApiKey ? { apiKey: secrets.qdrantApiKey } : {}) } : vector,
  };
}

/** Every system and arm of the spec is registered (an unknown one names the available ids). */
export function validateComponents(spec: RunSpec): void {
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
  // A budget bounds the decision calls it can reserve; a real extraction model or embedder spends outside it.
  const unbounded = [spec.extraction.id === 'openai' ? `--extraction-model ${spec.extraction.model}` : null, spec.embedder.id === 'openai' ? `--embedder openai (${spec.embedder.model})` : null].filter(Boolean);
  if (spec.control.budgetUsd !== null && unbounded.length > 0 && !spec.control.allowUnpriced) {
    throw new InvalidInputError('command line', [{ path: '--budget-usd', message: `bounds decision calls only; ${unbounded.join(' and ')} would spend outside it. Use --extraction-model sim / --embedder lexical, or pass --allow-unpriced to accept that their spend is only counted` }]);
  }
}

/** The run's scenarios: policy scenarios (grid, write-back, propagation; PoEM's safety steps) and, for tools, the exploit ones. */
export async function loadRunScenarios(spec: RunSpec): Promise<{ scenarios: Scenario[]; exploitScenarios: ExploitScenario[]; exploit: boolean }> {
  const exploit = spec.experiment !== 'grid' && FOLLOW_UP_EXPERIMENTS[spec.experiment].scenarioKind === 'exploit';
  if (exploit) {
    const exploitScenarios = await loadExploitScenarios({ ids: spec.scenarios, ...(spec.scenarioDir ? { dir: spec.scenarioDir } : {}) });
    return { scenarios: await loadScenarios(), exploitScenarios, exploit };
  }
  if (spec.scenarioDir === null) return { scenarios: await loadScenarios({ ids: spec.scenarios }), exploitScenarios: [], exploit };
  const all = await loadScenarioDir(spec.scenarioDir);
  const byId = new Map(all.map((s) => [s.id, s]));
  const scenarios = spec.scenarios.map((id) => byId.get(id) ?? (() => { throw new UnknownComponentError(`scenario (in --scenario-dir ${spec.scenarioDir})`, id, [...byId.keys()]); })());
  return { scenarios, exploitScenarios: [], exploit };
}

/** The decision models of the spec: the simulator, or endpoint models with the run's cache, timeout, budget and redaction. */
export function createModels(spec: RunSpec, input: { scenarios: Scenario[]; exploitScenarios: ExploitScenario[]; secrets: RunSecrets; spend?: SpendGate; redact: Redactor }): DecisionModel[] {
  const cache = createResponseCache({ dir: resolve(spec.cache.dir), enabled: spec.cache.enabled });
  return spec.models.map((model) => {
    if (model === 'sim') return createSimDecisionModel({ scenarios: input.scenarios, exploitScenarios: input.exploitScenarios, seed: spec.seed });
    if (!input.secrets.apiKey) throw new InvalidInputError('environment', [{ path: 'OPENAI_API_KEY', message: `model "${model}" needs an endpoint key; set OPENAI_API_KEY (any placeholder works for a local proxy without auth), or use --model sim` }]);
    return createOpenAIDecisionModel({ model, baseURL: spec.baseURL!, apiKey: input.secrets.apiKey, cache, timeoutMs: spec.control.requestTimeoutMs, redact: input.redact, ...(input.spend ? { spend: input.spend } : {}) });
  });
}

/** The endpoints a run will call (decision models, extraction, embeddings), for the preflight. */
export function preflightTargets(spec: RunSpec, secrets: RunSecrets): PreflightTarget[] {
  const apiKey = secrets.apiKey ?? '';
  const targets: PreflightTarget[] = [];
  const endpointModels = spec.models.filter((model) => model !== 'sim');
  if (endpointModels.length > 0 && spec.baseURL) targets.push({ role: 'decision', baseURL: spec.baseURL, models: endpointModels, apiKey });
  if (spec.extraction.id === 'openai' && spec.baseURL) targets.push({ role: 'extraction', baseURL: spec.baseURL, models: [spec.extraction.model], apiKey });
  const embeddingsURL = spec.embedder.id === 'openai' ? (spec.embedder.baseURL ?? spec.baseURL) : null;
  if (spec.embedder.id === 'openai' && embeddingsURL) targets.push({ role: 'embeddings', baseURL: embeddingsURL, models: [spec.embedder.model], apiKey });
  return targets;
}
