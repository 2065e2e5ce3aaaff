// forged-reasoning's line of the experiment registry (pipeline/run/experiments.ts): the PoEM paper's evaluation
// (poem.md §6), a standalone experiment with its own in-process world.
import { z } from 'zod';
import { distinct } from '#core/distinct-list.js';
import { FORGERY_KINDS } from '../../../scenarios/forged-reasoning-scenario.js';
import type { ExperimentEntry } from '../../run/experiment-entry.js';

/** The forged-reasoning experiment. */
export const FORGED_REASONING_EXPERIMENT = {
  summary:
    "the PoEM paper's evaluation (poem.md §6): FARMA-style forged reasoning, PoEM-aware attacks, benign skips, the adaptive attacker; in-process memory, no --systems",
  args: z
    .object({
      /** The forgery kinds (poem.md §4); attacks A and B ride on `basic`. */
      forgeries: distinct(z.array(z.enum(FORGERY_KINDS)).min(1)).default([...FORGERY_KINDS]),
      /** The adaptive attacker, `mutation-engine` (offline), a model alias, or null (no attacker loop). */
      attackerModel: z.string().min(1).nullable().default('mutation-engine'),
      /** Attacker queries per (scenario, model) loop at most. */
      attackerQueries: z.number().int().min(1).max(200).default(30),
    })
    .strict(),
  phase: 'standalone',
  arms: {
    none: 'no defence: every note reaches the agent, its decision runs as made',
    'sentinel-style':
      'the sentinel-style write-time wording guard (signals sentinel-style/v1, τ = 0.5; our reproduction, not SENTINEL)',
    'naive-poem':
      'NaivePoEM, the ablation: a skip runs when any ledger line names the step (no chain check, no subject)',
    poem: 'PoEM: a skip runs only when a verified ledger event records the step for this subject',
  },
  defaultArms: ['none', 'sentinel-style', 'naive-poem', 'poem'],
  defaultModes: [],
  scenarioKind: 'forged-reasoning',
  ingestingArms: [],
  // Its forged notes live in an in-process reasoning memory, not journals a store keeps (§6).
  writesJournals: false,
  defaultTrials: 20,
} satisfies ExperimentEntry;
