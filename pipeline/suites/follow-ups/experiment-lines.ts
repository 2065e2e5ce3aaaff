// The follow-up experiments' lines of the experiment registry (pipeline/run/experiments.ts): stale-retrieval.md
// §12–§14. Their steps are bound in ./index.ts.
import { z } from 'zod';
import { NO_ARGS } from '#core/registry.js';
import type { ExperimentEntry } from '../../run/experiment-entry.js';

/** Write-back (§12). */
export const WRITEBACK_EXPERIMENT = {
  summary: 'hops after an unsafe decision is journalled into memory (§12)',
  args: z
    .object({
      /** Write-back hops after hop 0 (paper: 3). */
      hops: z.number().int().min(1).max(20).default(3),
    })
    .strict(),
  phase: 'follow-up',
  arms: {
    direct:
      'the journal is written as a DECISION record with no expiry (Graphiti: an EntityEdge between the two policy nodes)',
    natural:
      'the journal is an episode the system ingests itself (source "agent decision log"); it may extract, merge or invalidate it',
  },
  defaultArms: ['direct', 'natural'],
  defaultModes: ['direct'],
  scenarioKind: 'policy',
  ingestingArms: ['natural'],
  writesJournals: true,
} satisfies ExperimentEntry;

/** Propagation (§13). */
export const PROPAGATION_EXPERIMENT = {
  summary: 'executor, reviewer and planner share one memory (§13)',
  args: NO_ARGS,
  phase: 'follow-up',
  arms: {
    'shared-default': 'all roles read the default path; the executor journals its decision (reference shared_default)',
    'shared-filtered': "all roles read the system's filtered path; the executor journals (reference shared_filtered)",
    'no-journal': 'default path, no journal (reference no_writeback)',
  },
  defaultArms: ['shared-default', 'shared-filtered', 'no-journal'],
  defaultModes: ['direct'],
  scenarioKind: 'policy',
  ingestingArms: [],
  writesJournals: true,
} satisfies ExperimentEntry;

/** The exploit chain with tools (§14). */
export const TOOLS_EXPERIMENT = {
  summary: 'the exploit chain with inert decoy tools, on the four exploit scenarios (§14)',
  args: z
    .object({
      /** Model calls per tool episode at most (paper: 4). */
      toolSteps: z.number().int().min(1).max(20).default(4),
    })
    .strict(),
  phase: 'follow-up',
  arms: {
    none: 'default read, no defence (reference attack); relapse runs when the attack fired',
    'store-filter': "the system's filtered read (reference retrieval_filter)",
    guard: 'default read through the stale-retrieval guard (reference guard)',
    'tool-guardrail': 'default read, the shell guardrail armed (reference tool_guardrail)',
  },
  defaultArms: ['none', 'store-filter', 'guard', 'tool-guardrail'],
  defaultModes: ['direct'],
  scenarioKind: 'exploit',
  ingestingArms: [],
  // Its relapse priming journal is a fixed text, not derived from a read (§14.5).
  writesJournals: false,
} satisfies ExperimentEntry;
