// What the arguments of every memory-system experiment of `pnpm eval` share (the grid's and the follow-ups' SuiteV1):
// the scenario set, systems, seeding modes, arms, models, trials, defence axes and limit of the run, resolved.
import { z } from 'zod';

const ids = z.array(z.string()).min(1);

/**
 * The zod shape of those arguments, spread into a suite's own schema beside its further fields.
 *
 * @example const schema = z.object({ ...memorySystemArgsShape, k: z.number().int().min(1) }).strict();
 */
export const memorySystemArgsShape = {
  /** The scenario set loaded for the run, in grid order. */
  scenarioIds: ids,
  systems: ids,
  modes: z.array(z.enum(['direct', 'natural'])).min(1),
  arms: ids,
  /** The decision models' aliases. */
  models: ids,
  trials: z.number().int().min(1),
  /** The defence axes' values (`--guard`, `--poem`, `--taint`); an absent axis is off. */
  axes: z.record(z.string(), z.array(z.enum(['off', 'on']))),
  /** `--limit N`; null: every unit. */
  limit: z.number().int().min(1).nullable(),
};
