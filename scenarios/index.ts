// Scenario registry and loader: the policy scenarios of scenarios/policy/index.json in grid order, validated before anything runs.
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { InvalidInputError, UnknownComponentError } from '#core/errors.js';
import policyIndex from './policy/index.json' with { type: 'json' };
import { scenarioSchema, type Scenario } from './scenario.js';
import { allOrNothing, idIsFileName, readJsonFile } from './scenario-file.js';
import { INDEX_FILE, loadScenarioIndex, readScenarioIndex } from './scenario-index.js';

export { INDEX_FILE, loadScenarioIndex, type ScenarioIndexEntry } from './scenario-index.js';

/**
 * Policy scenario ids in grid order, as scenarios/policy/index.json lists them (the paper's nine: the four payload
 * scenarios, then the five scenario-family ones, §4). Adding a scenario is its file plus one entry in that index.
 */
export const POLICY_SCENARIO_IDS: readonly string[] = Object.freeze(policyIndex.scenarios.map((entry) => entry.id));

/** Options of `loadScenarios`. */
export interface LoadScenariosOptions {
  /** Folder holding `<id>.json`; defaults to `scenarios/policy/` beside this module. */
  dir?: string;
  /** Subset to load (returned in grid order); defaults to every registered scenario. */
  ids?: readonly string[];
}

/** The repository's policy scenario folder. */
export const POLICY_SCENARIO_DIR = fileURLToPath(new URL('./policy/', import.meta.url));

/**
 * Loads and validates the registered policy scenarios, in grid order. Every file (and, from the repository's folder,
 * its index) is read and checked before anything is returned. Throws `UnknownComponentError` for an id that is not
 * registered, and `InvalidInputError` (source = the file, one issue per problem with its field path) for a bad file.
 *
 * @example const [deployApproval] = await loadScenarios({ ids: ['privilege_escalation_deploy_approval'] });
 */
export async function loadScenarios(options: LoadScenariosOptions = {}): Promise<Scenario[]> {
  const dir = options.dir ?? POLICY_SCENARIO_DIR;
  const registered = POLICY_SCENARIO_IDS;
  for (const id of options.ids ?? []) {
    if (!registered.includes(id)) throw new UnknownComponentError('scenario', id, registered);
  }
  if (options.dir === undefined) await loadScenarioIndex(dir);
  const selected = options.ids ? registered.filter((id) => options.ids?.includes(id)) : registered;
  return loadAll(selected.map((id) => join(dir, `${id}.json`)));
}

/** Loads and validates one user-supplied scenario file; its `id` must equal its file name. */
export async function loadScenarioFile(path: string): Promise<Scenario> {
  const outcome = await readScenario(path);
  if (outcome instanceof InvalidInputError) throw outcome;
  return outcome;
}

/**
 * Loads and validates a folder of scenario files, all or nothing: in the order of its `index.json` when it has one
 * (which must list every file), else every `*.json` file sorted by name.
 */
export async function loadScenarioDir(dir: string): Promise<Scenario[]> {
  return loadAll(scenarioDirIds(dir).map((id) => join(dir, `${id}.json`)));
}

/**
 * The scenario ids of a `--scenario-dir`, in its order: its `index.json`'s (checked against the folder's files) when
 * it has one, else every `*.json` file's name, sorted. Without `--scenarios` these are the run's scenarios. Throws
 * `InvalidInputError` naming the folder (missing, not a directory, no scenario file) or the index (and its field).
 *
 * @example scenarioDirIds('my-scenarios') // ['zz_first', 'zz_second']
 */
export function scenarioDirIds(dir: string): string[] {
  let entries: string[];
  try {
    entries = readdirSync(dir);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const message =
      code === 'ENOENT'
        ? 'directory does not exist'
        : code === 'ENOTDIR'
          ? 'not a directory'
          : `cannot read directory: ${(error as Error).message}`;
    throw new InvalidInputError(dir, [{ path: '--scenario-dir', message }]);
  }
  const index = readScenarioIndex(dir);
  const ids = index
    ? index.scenarios.map((entry) => entry.id)
    : entries
        .filter((name) => name.endsWith('.json') && name !== INDEX_FILE)
        .sort()
        .map((name) => name.slice(0, -'.json'.length));
  if (ids.length === 0)
    throw new InvalidInputError(dir, [
      { path: '--scenario-dir', message: 'no scenario files (*.json) in this directory' },
    ]);
  return ids;
}

/** Reads every file, then throws if any failed: one file's error as is, several merged (paths prefixed). */
async function loadAll(paths: readonly string[]): Promise<Scenario[]> {
  return allOrNothing(await Promise.all(paths.map(readScenario)), 'scenario files');
}

/** One file: read, parse, validate, check the id; problems are returned (not thrown) so all files are seen. */
function readScenario(path: string): Promise<Scenario | InvalidInputError> {
  return readJsonFile(path, scenarioSchema, { raw: idIsFileName(path) });
}
