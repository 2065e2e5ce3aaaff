// The defence-axis registry: adding an axis is one file beside this one plus its line in AXES.
import { z } from 'zod';
import { distinct } from '#core/distinct-list.js';
import type { DefenceId } from '../defence-v1.js';
import type { AxisPhase, AxisV1 } from './axis-v1.js';
import { guardAxis } from './guard.js';
import { poemAxis } from './poem.js';
import { taintAxis } from './taint.js';

/** Every defence axis, one line each, in the order units nest them and unit ids and labels name them. */
export const AXES = [
  guardAxis, // --guard: the stale-retrieval guard on every arm's context
  poemAxis, // --poem: the proof-of-execution gate on every decision
  taintAxis, // --taint: journals carry provenance (journal experiments)
] as const satisfies readonly AxisV1[];

type RegisteredAxis = (typeof AXES)[number];

/** Ids of the registered axes. */
export type AxisId = RegisteredAxis['id'];

/** Ids of the axes every spec and unit key holds (`stored: 'always'`). */
export type AlwaysAxisId = Extract<RegisteredAxis, { stored: 'always' }>['id'];

/** Ids of the axes a spec or unit key holds only when given or on (`stored: 'when-on'`). */
export type WhenOnAxisId = Extract<RegisteredAxis, { stored: 'when-on' }>['id'];

/** The values an axis takes on the command line and in a spec. */
export type AxisValue = 'off' | 'on';

/** An axis's field of a unit key: the always-stored ones as booleans, the others only when on. */
export type UnitKeyAxes = { [K in AlwaysAxisId]: boolean } & { [K in WhenOnAxisId]?: boolean };

/** A spec's values of one axis (`--guard off,on` → `['off', 'on']`); each axis gets its own schema instance. */
const axisValuesSchema = () => distinct(z.array(z.enum(['off', 'on'])).min(1));

/**
 * The run spec's axis fields, in registry order: `--<id> off,on` as `['off', 'on']`, required for the always-stored
 * axes, optional for the others (absent in specs written before the axis existed = off).
 */
export const AXIS_SPEC_SHAPE = Object.fromEntries(
  AXES.map((axis) => [axis.id, axis.stored === 'always' ? axisValuesSchema() : axisValuesSchema().optional()]),
) as {
  readonly [A in RegisteredAxis as A['id']]: A['stored'] extends 'always'
    ? ReturnType<typeof axisValuesSchema>
    : z.ZodOptional<ReturnType<typeof axisValuesSchema>>;
};

/** The command-line options of the axes (`--guard`, `--poem`, …), each a string of comma-separated values. */
export const AXIS_FLAGS = Object.fromEntries(AXES.map((axis) => [axis.id, { type: 'string' }])) as {
  readonly [K in AxisId]: { type: 'string' };
};

/**
 * The spec fields of the axes from their flags' values (`list` splits a comma list, with a fallback): the
 * always-stored axes default to `['off']`, the others are left out unless given.
 */
export function axisSpecFields(
  values: { readonly [K in AxisId]?: string },
  list: (value: string | undefined, fallback: readonly string[]) => string[],
): Record<string, string[]> {
  return Object.fromEntries(
    AXES.flatMap((axis) =>
      values[axis.id] === undefined && axis.stored === 'when-on' ? [] : [[axis.id, list(values[axis.id], ['off'])]],
    ),
  );
}

/** The axes' fields of a spec's identity (its hash): each axis given with a value other than `off` alone, in order. */
export function axisIdentity(spec: { readonly [K in AxisId]?: readonly string[] }): Record<string, string[]> {
  return Object.fromEntries(
    AXES.flatMap((axis) => {
      const values = spec[axis.id];
      return values === undefined || values.join() === 'off' ? [] : [[axis.id, [...values]]];
    }),
  );
}

/** The `pnpm eval --help` lines of the axes: `--<id> <off,on>` and its usage, in a column `width` characters in. */
export function axisHelpLines(width: number): string {
  return AXES.flatMap((axis) =>
    axis.usage.map((line, index) => (index === 0 ? `  --${axis.id} <off,on>` : '').padEnd(width) + line),
  ).join('\n');
}

/** The registered axes whose units `phase` varies. */
type AxesOfPhase<P extends AxisPhase> = RegisteredAxis extends infer A
  ? A extends RegisteredAxis
    ? P extends A['phases'][number]
      ? A
      : never
    : never
  : never;

/**
 * A summary cell's (or follow-up row's) axis fields for `phase`: the always-stored axes `'off' | 'on'`, the others
 * only as `'on'` when on, so summaries of runs recorded before an axis existed serialise as they did.
 */
export type CellAxes<P extends AxisPhase> = {
  [A in AxesOfPhase<P> as A['stored'] extends 'always' ? A['id'] : never]: AxisValue;
} & { [A in AxesOfPhase<P> as A['stored'] extends 'always' ? never : A['id']]?: 'on' };

/** A cell's value of an always-stored axis, and of the others (present only when on). */
const cellValueSchema = () => z.enum(['off', 'on']);
const cellOnSchema = () => z.literal('on').optional();

/** The zod shape of {@link CellAxes} (summary-schema.ts), in registry order. */
export function cellAxesShape<P extends AxisPhase>(
  phase: P,
): {
  [A in AxesOfPhase<P> as A['id']]: A['stored'] extends 'always'
    ? ReturnType<typeof cellValueSchema>
    : ReturnType<typeof cellOnSchema>;
} {
  return Object.fromEntries(
    axesOf(phase).map((axis) => [axis.id, axis.stored === 'always' ? cellValueSchema() : cellOnSchema()]),
  ) as never;
}

/** A cell's axis fields for the values `on` (registry order): see {@link CellAxes}. */
export function cellAxes<P extends AxisPhase>(phase: P, on: object): CellAxes<P> {
  return Object.fromEntries(
    axesOf(phase).flatMap((axis) => {
      if (axis.stored === 'always') return [[axis.id, axisOn(on, axis.id) ? 'on' : 'off']];
      return axisOn(on, axis.id) ? [[axis.id, 'on']] : [];
    }),
  ) as CellAxes<P>;
}

/** The axis fields of a cell (or anything holding them), in registry order; absent ones stay absent. */
export function cellAxesOf<P extends AxisPhase>(phase: P, cell: object): CellAxes<P> {
  const fields = cell as Readonly<Record<string, unknown>>;
  return Object.fromEntries(
    axesOf(phase).flatMap((axis) => (fields[axis.id] === undefined ? [] : [[axis.id, fields[axis.id]]])),
  ) as CellAxes<P>;
}

/** A cell's identity part for its axes (`['on', 'off']`), for grouping cells across runs. */
export function cellAxesId(phase: AxisPhase, cell: object): string[] {
  return axesOf(phase).map((axis) => (axisOn(cell, axis.id) ? 'on' : 'off'));
}

/** The values a run gives its axes, as the spec holds them (`{ guard: ['off', 'on'] }`); an absent axis is off. */
export type AxisChoice = { readonly [K in AxisId]?: readonly AxisValue[] };

/** The registered axes' fields of a spec (or anything holding them), and nothing else. */
export function axisChoiceOf(spec: AxisChoice): AxisChoice {
  return Object.fromEntries(AXES.flatMap((axis) => (spec[axis.id] === undefined ? [] : [[axis.id, spec[axis.id]]])));
}

/** The id of the defence an axis adds (its own defence's, or the registered one it names). */
export function axisDefenceId(axis: AxisV1): DefenceId {
  return typeof axis.defence === 'string' ? axis.defence : axis.defence.id;
}

/** The defence id of each axis, by axis id (`{ guard: 'guard', poem: 'poem', taint: 'taint' }`). */
export type AxisDefenceIds = {
  readonly [A in RegisteredAxis as A['id']]: A['defence'] extends { id: infer I } ? I : A['defence'];
};

/** The defences the axes define in their own files, in registry order: pipeline/defences/index.ts registers them. */
export const AXIS_OWN_DEFENCES = (AXES as readonly AxisV1[]).flatMap((axis) =>
  typeof axis.defence === 'string' ? [] : [axis.defence],
) as Extract<RegisteredAxis['defence'], object>[];

/** The axes whose units `phase` varies, in registry order. */
export function axesOf(phase: AxisPhase): readonly AxisV1[] {
  return AXES.filter((axis) => (axis.phases as readonly AxisPhase[]).includes(phase));
}

/** An axis's value in a unit key (or anything with its fields); absent is off. */
export function axisOn(key: object, id: string): boolean {
  const value = (key as Readonly<Record<string, unknown>>)[id];
  return value === true || value === 'on';
}

/** An axis's values in a spec as booleans (`--guard off,on` → `[false, true]`); absent is `[false]`. */
function axisValues(spec: AxisChoice, id: string): boolean[] {
  return (spec[id as AxisId] ?? ['off']).map((value) => value === 'on');
}

/** Which axes a spec turns on for some of its units (`--guard off,on` → `guard: true`). */
export function axesTurnedOn(spec: AxisChoice): Record<AxisId, boolean> {
  return Object.fromEntries(AXES.map((axis) => [axis.id, axisValues(spec, axis.id).includes(true)])) as Record<
    AxisId,
    boolean
  >;
}

/**
 * A unit key's axis fields for the values `on` of `axes` (registry order): always-stored axes as booleans, the
 * others only when on, so keys recorded before an axis existed serialise byte for byte as they did.
 *
 * @example unitKeyAxes(axesOf('grid'), { guard: true }) // { guard: true, poem: false }
 */
export function unitKeyAxes(axes: readonly AxisV1[], on: Readonly<Partial<Record<string, boolean>>>): UnitKeyAxes {
  const fields: Record<string, boolean> = {};
  for (const axis of axes) {
    const value = on[axis.id] === true;
    if (value || axis.stored === 'always') fields[axis.id] = value;
  }
  return fields as UnitKeyAxes;
}

/** The unit id's segments of the axes on in `key`, in registry order (`['guard', 'poem']`). */
export function axisSegments(key: Readonly<Partial<Record<string, unknown>>>): string[] {
  return AXES.filter((axis) => axisOn(key, axis.id)).map((axis) => axis.id);
}

/**
 * Every combination of the axes' values in nesting order (the first axis outermost), as `{ [id]: boolean }`.
 *
 * @example axisCombinations([guardAxis, poemAxis], { guard: ['off', 'on'] }) // [{guard: false, poem: false}, {guard: true, poem: false}]
 */
export function axisCombinations(axes: readonly AxisV1[], spec: AxisChoice): Record<string, boolean>[] {
  let combinations: Record<string, boolean>[] = [{}];
  for (const axis of axes)
    combinations = combinations.flatMap((combination) =>
      axisValues(spec, axis.id).map((value) => ({ ...combination, [axis.id]: value })),
    );
  return combinations;
}

export type { AxisPhase, AxisV1 } from './axis-v1.js';
