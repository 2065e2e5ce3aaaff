// What a rescore needs besides the run directory: the run's scenarios (verified by hash) and each system's exposure rule.
import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { BACKEND_IDS, createEmbedder, createExtractionModel, loadBackend } from '../backends/index.js';
import type { BackendDescription } from '../backends/memory-backend.js';
import { InvalidInputError, UnknownComponentError, type InputIssue } from '#core/errors.js';
import { sha256 } from '../pipeline/index.js';
import { loadExploitScenarios, type ExploitScenario } from '../scenarios/exploit-scenario.js';
import { loadScenarioDir, loadScenarios } from '../scenarios/index.js';
import type { Scenario } from '../scenarios/scenario.js';
import type { RunHead } from './load-run.js';

/** The manifest's scenario hash: sha256 of the scenario's canonical JSON (as `pnpm eval` writes it). */
function scenarioSha256(scenario: Scenario | ExploitScenario): string {
  return sha256(JSON.stringify(scenario));
}

/** The scenarios a run was scored with, by id: policy scenarios, or exploit scenarios for a `tools` run. */
export type RunScenarios =
  | { kind: 'policy'; byId: Map<string, Scenario> }
  | { kind: 'exploit'; byId: Map<string, ExploitScenario> };

/**
 * Loads the run's scenarios (`family`: its kind's, analysis/run-kinds) from `scenarioDir` (else the run's own `--scenario-dir`, else the repository) and
 * refuses, with one issue per scenario, unless each one's sha256 equals the manifest's: a rescore with other
 * scenario text would silently score other actions.
 */
export async function loadRunScenarios(
  run: RunHead,
  family: RunScenarios['kind'],
  scenarioDir?: string,
): Promise<RunScenarios> {
  const { spec, scenarios: hashes } = run.manifest;
  const manifestPath = join(run.runDir, 'manifest.json');
  const dir = scenarioDir ?? spec.scenarioDir ?? undefined;
  if (dir !== undefined && !existsSync(resolve(dir))) {
    throw new InvalidInputError(scenarioDir === undefined ? manifestPath : '--scenario-dir', [
      {
        path: scenarioDir === undefined ? 'spec.scenarioDir' : '',
        message: `${resolve(dir)} does not exist; pass --scenario-dir with the run's scenario files`,
      },
    ]);
  }
  const source = dir === undefined ? 'the repository' : resolve(dir);
  const exploit = family === 'exploit';
  const loaded: (Scenario | ExploitScenario)[] = exploit
    ? await loadExploitScenarios({ ids: spec.scenarios, ...(dir !== undefined ? { dir: resolve(dir) } : {}) })
    : dir === undefined
      ? await loadScenarios({ ids: spec.scenarios })
      : await loadScenarioDir(resolve(dir));
  const byId = new Map(loaded.map((s) => [s.id as string, s]));
  const issues: InputIssue[] = [];
  for (const id of spec.scenarios) {
    const index = hashes.findIndex((entry) => entry.id === id);
    const scenario = byId.get(id);
    if (scenario === undefined) throw new UnknownComponentError(`scenario in ${source}`, id, [...byId.keys()]);
    if (index === -1) issues.push({ path: 'scenarios', message: `${id}: the manifest records no sha256 for it` });
    else if (hashes[index]!.sha256 !== scenarioSha256(scenario)) {
      issues.push({
        path: `scenarios[${index}].sha256`,
        message: `${id}: the run used a scenario with sha256 ${hashes[index]!.sha256.slice(0, 12)}…, ${source} holds ${scenarioSha256(scenario).slice(0, 12)}…; rescoring with other scenario text is refused (pass --scenario-dir with the run's scenario files)`,
      });
    }
  }
  if (issues.length > 0) throw new InvalidInputError(manifestPath, issues);
  const selected = spec.scenarios.map((id) => [id, byId.get(id)!] as const);
  return exploit
    ? { kind: 'exploit', byId: new Map(selected as [string, ExploitScenario][]) }
    : { kind: 'policy', byId: new Map(selected as [string, Scenario][]) };
}

/** How a system labels exposure (stale-retrieval.md §7.2), from its description. */
export type ExposureRuleOf = BackendDescription['exposure'];

/**
 * Each system's exposure rule, read from the description of the code's own backend. The backend is created
 * (embedded settings) but never opened: no connection, no file, no model call.
 */
export async function exposureRules(systems: readonly string[]): Promise<Map<string, ExposureRuleOf>> {
  const embedder = await createEmbedder({ id: 'lexical' });
  const extraction = await createExtractionModel({ id: 'sim' }, { baseURL: null, apiKey: undefined });
  const rules = new Map<string, ExposureRuleOf>();
  for (const system of systems) {
    if (!BACKEND_IDS.includes(system)) throw new UnknownComponentError('system', system, BACKEND_IDS);
    const backend = await loadBackend(system, {
      embedder,
      extraction,
      runId: 'rescore',
      workDir: join(tmpdir(), 'stalebench-rescore-never-opened', system),
    });
    rules.set(system, backend.description.exposure);
  }
  return rules;
}
