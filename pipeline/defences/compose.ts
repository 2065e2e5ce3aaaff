// What one unit runs: its arm's defences (composites flattened), then the axes' (`--guard on`, `--poem on`), each once.
import { InvalidInputError } from '#core/errors.js';
import { AXES, type AxisDefenceIds, type AxisId, axisDefenceId, axisOn } from './axes/index.js';
import type { DefenceId, DefenceV1, Review, ReviewInput, ScreenInput, ScreenVerdict } from './defence-v1.js';
import { defenceOf, defenceStages } from './index.js';

/** The defence each on/off axis of a unit key adds on top of its arm (from the axis registry, pipeline/defences/axes). */
export const AXIS_DEFENCES = Object.fromEntries(AXES.map((axis) => [axis.id, axisDefenceId(axis)])) as AxisDefenceIds;

/** A unit's defences, resolved into stages in the order they run. */
export interface UnitDefences {
  /** The defences with stages of their own, in order, each once (a composite appears as what it uses). */
  ids: readonly DefenceId[];
  /** `filtered` when any defence asks for the system's filtered read; `oracle-filtered` for the oracle's (hypothetical). */
  read: 'default' | 'filtered' | 'oracle-filtered';
  /** Why the unit is n/a on a system without oracle exposure labels; null when no defence needs them. */
  requiresOracle: string | null;
  /** True when a defence consults the revocation ledger (its verdicts are then recorded with each probe). */
  ledger: boolean;
  /** Read screens, in order; each sees what the one before kept. */
  screens: readonly { id: DefenceId; screen: (input: ScreenInput) => ScreenVerdict }[];
  /** The system-message prefixes, concatenated in order ('' for none). */
  systemPrefix: string;
  /** The arm whose reply of the same trial is reused instead of a call, or null. */
  reuseReplyOf: DefenceId | null;
  /** Post-decision steps, in order. */
  reviews: readonly { id: DefenceId; review: (input: ReviewInput) => Promise<Review | null> }[];
  /** Journals carry provenance and reads resolve it (the `taint` defence). */
  taint: boolean;
}

/**
 * What a unit asks for: defences by id (its arm) and the axes on (`guard: true` for `--guard on`: each axis adds its
 * registered defence once, even when the arm has it; an absent axis is off).
 */
export type UnitDefenceChoice = {
  /** Defence ids, usually `[key.arm]`; a follow-up experiment passes what its arm composes. */
  uses: readonly string[];
  /** Settings by defence id (`rescore --guard-*`); absent: the run's defaults. */
  settings?: Readonly<Record<string, unknown>>;
} & { readonly [K in AxisId]?: boolean };

/** Defence ids in the order their stages run: a defence's `uses` first, each id once. Throws on a cycle. */
export function flattenDefences(
  roots: readonly string[],
  lookup: (id: string) => Pick<DefenceV1, 'uses'> = defenceOf,
): DefenceId[] {
  const order: DefenceId[] = [];
  const visit = (id: string, path: readonly string[]) => {
    if (order.includes(id)) return;
    if (path.includes(id))
      throw new InvalidInputError('defence registry', [
        { path: id, message: `uses itself: ${[...path, id].join(' → ')}` },
      ]);
    for (const used of lookup(id).uses) visit(used, [...path, id]);
    order.push(id);
  };
  for (const root of roots) visit(root, []);
  return order;
}

/**
 * Resolves a unit's defences. Throws `UnknownComponentError` for an unregistered id.
 *
 * @example unitDefences({ uses: ['filter-hardening'], guard: true, poem: false }).ids // ['store-filter', 'prompt-hardening', 'guard']
 */
export function unitDefences(choice: UnitDefenceChoice): UnitDefences {
  const roots = [...choice.uses, ...AXES.filter((axis) => axisOn(choice, axis.id)).map(axisDefenceId)];
  const resolved: {
    ids: DefenceId[];
    read: UnitDefences['read'];
    requiresOracle: string | null;
    ledger: boolean;
    screens: UnitDefences['screens'][number][];
    systemPrefix: string;
    reuseReplyOf: DefenceId | null;
    reviews: UnitDefences['reviews'][number][];
    taint: boolean;
  } = {
    ids: [],
    read: 'default',
    requiresOracle: null,
    ledger: false,
    screens: [],
    systemPrefix: '',
    reuseReplyOf: null,
    reviews: [],
    taint: false,
  };
  for (const id of flattenDefences(roots)) {
    const stages = defenceStages(id, choice.settings?.[id]);
    if (Object.values(stages).every((stage) => stage === undefined)) continue;
    resolved.ids.push(id);
    if (stages.read !== undefined && resolved.read === 'default') resolved.read = stages.read;
    if (stages.requiresOracle !== undefined) resolved.requiresOracle ??= stages.requiresOracle;
    if (stages.ledger === 'consult') resolved.ledger = true;
    if (stages.screen) resolved.screens.push({ id, screen: stages.screen.bind(stages) });
    if (stages.systemPrefix) resolved.systemPrefix += stages.systemPrefix;
    if (stages.reuseReplyOf && resolved.reuseReplyOf === null) resolved.reuseReplyOf = stages.reuseReplyOf;
    if (stages.review) resolved.reviews.push({ id, review: stages.review.bind(stages) });
    if (stages.taint) resolved.taint = true;
  }
  return resolved;
}
