// The experiment registry: the main grid, the follow-ups (stale-retrieval.md §2, §12–§14) and forged reasoning, one
// registry line each; each line (arms, defaults, scenario set, arguments with their defaults) is declared in its suite's
// folder (pipeline/suites/<suite>/experiment-line(s).ts). The single source of experiment ids and of their run-spec
// fields for the command line, the run spec, `--help` and the manifest. A follow-up's steps live in
// pipeline/suites/follow-ups/<id>.ts, bound in its index.ts; a standalone experiment (forged-reasoning) brings its own
// in-process world. How each kind runs is its eval phase (pipeline/suites/eval-phases.ts), named by the line's `phase`.
import type { z } from 'zod';
import { defineRegistry, type ComponentArgs, type ComponentRecord, type Registry } from '#core/registry.js';
import { FORGED_REASONING_EXPERIMENT } from '../suites/forged-reasoning/experiment-line.js';
import {
  PROPAGATION_EXPERIMENT,
  TOOLS_EXPERIMENT,
  WRITEBACK_EXPERIMENT,
} from '../suites/follow-ups/experiment-lines.js';
import { GRID_EXPERIMENT } from '../suites/grid/experiment-line.js';
import type { ExperimentEntry } from './experiment-entry.js';

export type { ExperimentEntry } from './experiment-entry.js';

const entries = {
  grid: GRID_EXPERIMENT,
  writeback: WRITEBACK_EXPERIMENT,
  propagation: PROPAGATION_EXPERIMENT,
  tools: TOOLS_EXPERIMENT,
  'forged-reasoning': FORGED_REASONING_EXPERIMENT,
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

/** Every line's argument shapes, merged (a union of shapes, made one). */
type UnionToIntersection<U> = (U extends unknown ? (x: U) => void : never) extends (x: infer I) => void ? I : never;
type ArgShape = UnionToIntersection<(typeof entries)[ExperimentId]['args']['shape']>;

/**
 * The run-spec fields of every experiment (`hops`, `toolSteps`, `forgeries`, ...), each with its schema and default,
 * as its line declares it: the run spec takes them as its own. Two lines declaring one field differently throw here.
 */
export const EXPERIMENT_ARG_SHAPE = mergeArgShapes(entries) as ArgShape;

/** The argument shapes of `lines` as one; throws naming both lines when two declare a field with different schemas. */
export function mergeArgShapes(lines: Readonly<Record<string, ExperimentEntry>>): z.ZodRawShape {
  const merged: Record<string, { owner: string; schema: z.ZodRawShape[string] }> = {};
  for (const [id, entry] of Object.entries(lines))
    for (const [field, schema] of Object.entries(entry.args.shape)) {
      const earlier = merged[field];
      if (earlier && earlier.schema !== schema)
        throw new Error(`experiments ${earlier.owner} and ${id} both declare the run-spec field ${field}`);
      merged[field] = { owner: id, schema };
    }
  return Object.fromEntries(Object.entries(merged).map(([field, { schema }]) => [field, schema]));
}

/** The run-spec fields experiments take as arguments (`hops`, `toolSteps`, `forgeries`, `attackerModel`, `attackerQueries`). */
export type ExperimentSpecField = keyof ArgShape & string;

/** The arguments of an experiment: its fields, picked from the spec in its line's order. */
export function experimentArgs(id: string, spec: Readonly<Record<ExperimentSpecField, unknown>>): ComponentArgs {
  return Object.fromEntries(
    Object.keys(EXPERIMENTS.get(id).args.shape).map((field) => [field, spec[field as ExperimentSpecField]]),
  );
}

/** The manifest record of a spec's experiment. */
export function experimentRecord(
  spec: { experiment: string } & Readonly<Record<ExperimentSpecField, unknown>>,
): ComponentRecord {
  return EXPERIMENTS.record(spec.experiment, experimentArgs(spec.experiment, spec));
}
