// The experiment registry: the main grid and the follow-ups (stale-retrieval.md §2, §12–§14), one declaration line
// each (arms, defaults, scenario set, arguments): the single source of experiment ids for the command line, the run
// spec, `--help` and the manifest. A follow-up's steps live in pipeline/suites/follow-ups/<id>.ts, bound in follow-up/index.ts;
// a standalone experiment (forged-reasoning) brings its own in-process world (pipeline/suites/forged-reasoning/). How each
// kind runs is its eval phase (pipeline/suites/eval-phases.ts), named by the line's `phase`.
import { z } from 'zod';
import type { SeedMode } from '../../backends/memory-backend.js';
import {
  defineRegistry,
  NO_ARGS,
  type ComponentArgs,
  type ComponentRecord,
  type Registry,
  type RegistryEntry,
} from '#core/registry.js';
import { ARMS, PAPER_ARM_IDS, RUNNABLE_ARM_IDS } from './arms.js';
import { FORGERY_KINDS } from '../../scenarios/forged-reasoning-scenario.js';

/** The run-spec fields experiments take as arguments (`--hops`, `--tool-steps`, `--forgeries`, `--attacker-model`, `--attacker-queries`). */
export type ExperimentSpecField = 'hops' | 'toolSteps' | 'forgeries' | 'attackerModel' | 'attackerQueries';

/** One experiment line. Its `args` are the run-spec fields it reads, named in `specFields`. */
export interface ExperimentEntry extends RegistryEntry {
  /**
   * Its eval phase, an id of pipeline/suites/eval-phases.ts: `grid`: setup, then one decision per unit (records.jsonl);
   * `follow-up`: its own steps per unit on each memory system (`<id>.jsonl`); `standalone`: its own in-process world,
   * no memory system and no seeding mode (`<id>.jsonl`).
   */
  phase: 'grid' | 'follow-up' | 'standalone' | (string & {});
  /** Arm ids in the paper's order, one line each (`--help`); every arm is valid for `--arms`. */
  arms: Readonly<Record<string, string>>;
  /** Arms run when `--arms` is not given. */
  defaultArms: readonly string[];
  /** Seeding modes run when `--modes` is not given. */
  defaultModes: readonly SeedMode[];
  /** The scenario set it runs on. */
  scenarioKind: 'policy' | 'exploit' | 'forged-reasoning';
  /** The run-spec fields that are its arguments; only these enter the spec's identity for it. */
  specFields: readonly ExperimentSpecField[];
  /** Arms that write through the system's own ingestion (its extraction model), whatever `--modes` says. */
  ingestingArms: readonly string[];
  /** Trials per cell when `--trials` is not given (default 10, the stale-retrieval paper's). */
  defaultTrials?: number;
  /** Whether it journals decisions back into memory, so the `taint` defence (`--taint on`) applies. */
  writesJournals: boolean;
}

const gridArms = () =>
  Object.fromEntries(RUNNABLE_ARM_IDS.map((id) => [id, `reference arm ${ARMS[id].referenceName}`]));

const entries = {
  grid: {
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
    specFields: [],
    ingestingArms: [],
    writesJournals: false,
  },
  writeback: {
    summary: 'hops after an unsafe decision is journalled into memory (§12)',
    args: z.object({ hops: z.number().int().min(1).max(20) }).strict(),
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
    specFields: ['hops'],
    ingestingArms: ['natural'],
    writesJournals: true,
  },
  propagation: {
    summary: 'executor, reviewer and planner share one memory (§13)',
    args: NO_ARGS,
    phase: 'follow-up',
    arms: {
      'shared-default':
        'all roles read the default path; the executor journals its decision (reference shared_default)',
      'shared-filtered': "all roles read the system's filtered path; the executor journals (reference shared_filtered)",
      'no-journal': 'default path, no journal (reference no_writeback)',
    },
    defaultArms: ['shared-default', 'shared-filtered', 'no-journal'],
    defaultModes: ['direct'],
    scenarioKind: 'policy',
    specFields: [],
    ingestingArms: [],
    writesJournals: true,
  },
  tools: {
    summary: 'the exploit chain with inert decoy tools, on the four exploit scenarios (§14)',
    args: z.object({ toolSteps: z.number().int().min(1).max(20) }).strict(),
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
    specFields: ['toolSteps'],
    ingestingArms: [],
    // Its relapse priming journal is a fixed text, not derived from a read (§14.5).
    writesJournals: false,
  },
  'forged-reasoning': {
    summary:
      "the PoEM paper's evaluation (poem.md §6): FARMA-style forged reasoning, PoEM-aware attacks, benign skips, the adaptive attacker; in-process memory, no --systems",
    args: z
      .object({
        forgeries: z.array(z.enum(FORGERY_KINDS)).min(1),
        attackerModel: z.string().min(1).nullable(),
        attackerQueries: z.number().int().min(1).max(200),
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
    specFields: ['forgeries', 'attackerModel', 'attackerQueries'],
    ingestingArms: [],
    // Its forged notes live in an in-process reasoning memory, not journals a store keeps (§6).
    writesJournals: false,
    defaultTrials: 20,
  },
} satisfies Record<string, ExperimentEntry>;

/** Every experiment id. */
export type ExperimentId = keyof typeof entries;

/** The tools experiment's arms (each composes registered defences: `TOOL_ARMS` in pipeline/suites/follow-ups/tools.ts). */
export type ToolsArmId = keyof (typeof entries)['tools']['arms'];

export const EXPERIMENTS: Registry<ExperimentId, ExperimentEntry> = defineRegistry('experiment', entries);

/** The ids of the follow-up experiments (their records are `<id>.jsonl`). */
export type FollowUpExperimentId = {
  [K in ExperimentId]: (typeof entries)[K]['phase'] extends 'follow-up' ? K : never;
}[ExperimentId];

/** The arguments of an experiment: its spec fields, picked from the spec. */
export function experimentArgs(id: string, spec: Readonly<Record<ExperimentSpecField, unknown>>): ComponentArgs {
  return Object.fromEntries(EXPERIMENTS.get(id).specFields.map((field) => [field, spec[field]]));
}

/** The manifest record of a spec's experiment. */
export function experimentRecord(
  spec: { experiment: string } & Readonly<Record<ExperimentSpecField, unknown>>,
): ComponentRecord {
  return EXPERIMENTS.record(spec.experiment, experimentArgs(spec.experiment, spec));
}
