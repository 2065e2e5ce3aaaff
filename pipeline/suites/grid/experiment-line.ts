// The grid's line of the experiment registry (pipeline/run/experiments.ts): stale-retrieval.md §2.
import { NO_ARGS } from '#core/registry.js';
import type { ExperimentEntry } from '../../run/experiment-entry.js';
import { ARMS, PAPER_ARM_IDS, RUNNABLE_ARM_IDS } from '../../run/arms.js';

const gridArms = () =>
  Object.fromEntries(RUNNABLE_ARM_IDS.map((id) => [id, `reference arm ${ARMS[id].referenceName}`]));

/** The main grid (the default experiment). */
export const GRID_EXPERIMENT = {
  summary: 'the main grid (default): seed, read, decide, per system, mode, arm and trial',
  args: NO_ARGS,
  phase: 'grid',
  get arms() {
    return gridArms();
  },
  // The paper's six (Table 6); the output filter reuses the `none` reply, so it adds no call.
  defaultArms: PAPER_ARM_IDS,
  defaultModes: ['direct', 'natural'],
  scenarioKind: 'policy',
  ingestingArms: [],
  writesJournals: false,
} satisfies ExperimentEntry;
