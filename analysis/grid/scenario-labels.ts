// The labels the tables need for the scenarios of a set of runs: short name, family, and place in Table 8/11.
import { existsSync } from 'node:fs';
import {
  loadScenarioDir,
  loadScenarioIndex,
  loadScenarios,
  POLICY_SCENARIO_DIR,
  type ScenarioIndexEntry,
} from '../../scenarios/index.js';
import type { LoadedRun } from '../load-run.js';
import type { ScenarioLabel } from '../tables/index.js';

/**
 * Labels of the scenarios the runs used, in the order the runs name them: the repository's scenarios, overridden by
 * each run's own `--scenario-dir`. A scenario's Table 8/11 place (`table8`) comes from the index of the folder it was
 * loaded from, else from the repository's index by id (a copy of a paper scenario keeps the paper's row). A scenario
 * whose file is not at hand is labelled by its id, without a family (Table 8/11 leaves it out and says so).
 *
 * @example (await scenarioLabels(runs)).find((s) => s.id === 'mfa_waiver_access') // { short: 'MFA waiver', family: 'scenario', table8: { rank: 4 } }
 */
export async function scenarioLabels(runs: readonly LoadedRun[]): Promise<ScenarioLabel[]> {
  const labels = new Map<string, Omit<ScenarioLabel, 'table8'>>();
  const places = new Map<string, ScenarioIndexEntry['table8']>();
  const addIndex = (entries: readonly ScenarioIndexEntry[] | undefined) => {
    for (const entry of entries ?? []) if (entry.table8) places.set(entry.id, entry.table8);
  };
  for (const s of await loadScenarios()) labels.set(s.id, { id: s.id, short: s.short, family: s.family });
  addIndex((await loadScenarioIndex(POLICY_SCENARIO_DIR))?.scenarios);
  for (const run of runs) {
    const dir = run.manifest.spec.scenarioDir;
    if (!dir || !existsSync(dir)) continue;
    for (const s of await loadScenarioDir(dir)) labels.set(s.id, { id: s.id, short: s.short, family: s.family });
    addIndex((await loadScenarioIndex(dir))?.scenarios);
  }
  const ids = new Set(runs.flatMap((r) => r.manifest.spec.scenarios));
  return [...ids].map((id) => {
    const table8 = places.get(id);
    return { ...(labels.get(id) ?? { id, short: id, family: null }), ...(table8 ? { table8 } : {}) };
  });
}
