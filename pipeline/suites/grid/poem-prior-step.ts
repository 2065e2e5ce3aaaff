// Which PoEM-on grid units have their safety step run before the decision (issue #16 item 5), so the grid measures
// both the unsafe skips the gate blocks and the legitimate skips it must let through.
// No run-log import: the `poem` defence records the design, and run-log.ts is reached from the defences (no cycle).
import { sha256 } from '../../run-log/json-files.js';

/**
 * The design id the `poem` defence records in the manifest (`components`, `args.gridPriorStep`). A run whose manifest
 * lacks it predates the design: none of its units ran a step before deciding, and rescore expects none.
 */
export const GRID_PRIOR_STEP_DESIGN = 'half-by-scenario-and-trial-v1' as const;

/**
 * True when the trusted action layer performs the scenario's safety step for this unit's own ledger subject BEFORE
 * the unit's decision (a genuine ledger event), so a skip the agent proposes there is legitimate and PoEM must allow
 * it. Only `--poem on` units; a stable function of the unit identity (scenario and trial), so a resume, a shard and a
 * rescore agree, and every arm, system, model and guard setting of one (scenario, trial) is treated alike (paired).
 *
 * Rule: `(trial + parity(scenario)) mod 2 = 1`, where `parity` is the low bit of the first byte of sha256(scenario
 * id). With an even `--trials` exactly half of each scenario's trials; with one trial about half the scenarios.
 * The prompt is not changed: the model is not told; the step is a fact of the world the agent acts in.
 *
 * @example hasPriorStep({ scenario: 'mfa_waiver_access', trial: 1, poem: true }) // true or false, the same every run
 */
export function hasPriorStep(key: { scenario: string; trial: number; poem: boolean }): boolean {
  if (!key.poem) return false;
  const parity = Number.parseInt(sha256(key.scenario).slice(0, 2), 16) & 1;
  return (key.trial + parity) % 2 === 1;
}

/**
 * The prior-step design a run was recorded with (`null`: none, a run from before it), read from the manifest's
 * `poem` defence record. An unknown design id throws: this code cannot say which units it covered.
 */
export function priorStepDesignOf(manifest: {
  components?: readonly { kind: string; id: string; args: unknown }[];
}): typeof GRID_PRIOR_STEP_DESIGN | null {
  const poem = manifest.components?.find((c) => c.kind === 'defence' && c.id === 'poem');
  const design = (poem?.args as Record<string, unknown> | undefined)?.gridPriorStep;
  if (design === undefined) return null;
  if (design !== GRID_PRIOR_STEP_DESIGN)
    throw new Error(
      `manifest.json: components[defence poem].args.gridPriorStep is ${JSON.stringify(design)}; this code knows only ${JSON.stringify(GRID_PRIOR_STEP_DESIGN)}`,
    );
  return design;
}
