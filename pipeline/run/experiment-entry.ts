// One line of the experiment registry (pipeline/run/experiments.ts), types only: each suite folder declares its own
// lines against it (pipeline/suites/<suite>/experiment-line.ts), so the registry imports them without a cycle.
import type { z } from 'zod';
import type { SeedMode } from '../../backends/memory-backend.js';
import type { RegistryEntry } from '#core/registry.js';

/**
 * One experiment line. Its `args` (a strict zod object with defaults) are the run-spec fields it reads: the run spec
 * takes every line's fields as its own (pipeline/run/run-spec.ts), and only these enter the spec's identity for it.
 */
export interface ExperimentEntry extends RegistryEntry {
  /** Its arguments: run-spec fields, each with its default (`--hops` is `hops`, default 3). */
  args: z.ZodObject<z.ZodRawShape>;
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
  /** Arms that write through the system's own ingestion (its extraction model), whatever `--modes` says. */
  ingestingArms: readonly string[];
  /** Trials per cell when `--trials` is not given (default 10, the stale-retrieval paper's). */
  defaultTrials?: number;
  /** Whether it journals decisions back into memory, so the `taint` defence (`--taint on`) applies. */
  writesJournals: boolean;
}
