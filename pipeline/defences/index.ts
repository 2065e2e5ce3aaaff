// The defence registry: adding a defence (or an arm) is one file beside this one plus its line in DEFENCES.
import { UnknownComponentError, UnsupportedFeatureError } from '#core/errors.js';
import type { DefenceStagesV1, DefenceV1, ScreenInput, ScreenVerdict } from './defence-v1.js';
import { AXIS_OWN_DEFENCES } from './axes/index.js';
import { filterHardeningDefence } from './filter-hardening.js';
import { guardV2Defence } from './guard-v2.js';
import { naivePoemDefence } from './naive-poem.js';
import { ledgerFilterDefence } from './ledger-filter.js';
import { ledgerGuardDefence } from './ledger-guard.js';
import { noneDefence } from './none.js';
import { outputFilterDefence } from './output-filter.js';
import { poemDefence } from './poem.js';
import { promptHardeningDefence } from './prompt-hardening.js';
import { sentinelStyleDefence } from './sentinel-style.js';
import { revocationLedgerDefence } from './revocation-ledger.js';
import { staleGuardDefence } from './stale-guard.js';
import { storeFilterDefence } from './store-filter.js';
import { taintDefence } from './taint.js';
import { zepOracleFilterDefence } from './zep-oracle-filter.js';
import { zepOracleFilterHardeningDefence } from './zep-oracle-filter-hardening.js';
import { zepOracleOutputFilterDefence } from './zep-oracle-output-filter.js';

/** Every defence, one line each, in the order `--help`, the default arm list and reports show them. */
export const DEFENCES = [
  noneDefence,
  storeFilterDefence,
  promptHardeningDefence,
  outputFilterDefence,
  filterHardeningDefence,
  staleGuardDefence,
  guardV2Defence,
  poemDefence,
  sentinelStyleDefence,
  naivePoemDefence,
  taintDefence,
  revocationLedgerDefence,
  ledgerFilterDefence,
  ledgerGuardDefence,
  zepOracleFilterDefence,
  zepOracleOutputFilterDefence,
  zepOracleFilterHardeningDefence,
  // The defences an axis defines in its own file (pipeline/defences/axes), after every defence of its own file here.
  ...AXIS_OWN_DEFENCES,
] as const satisfies readonly DefenceV1[];

type RegisteredDefence = (typeof DEFENCES)[number];

/** Ids of the registered defences. */
export type RegisteredDefenceId = RegisteredDefence['id'];

/** Ids of the registered defences that are grid arms (`arm` set), in registry order. */
export type ArmId = Extract<RegisteredDefence, { arm: object }>['id'];

/** Every registered defence id, in registry order. */
export const DEFENCE_IDS: readonly RegisteredDefenceId[] = DEFENCES.map((defence) => defence.id);

/** Every grid arm id (`--arms`), in registry order. */
export const ARM_IDS: readonly ArmId[] = DEFENCES.flatMap((defence) => (defence.arm === null ? [] : [defence.id]));

/** True when `id` names a registered grid arm. */
export function isArmId(id: string): id is ArmId {
  return (ARM_IDS as readonly string[]).includes(id);
}

/**
 * The registered defence `id`. Throws `UnknownComponentError` naming the registered ids.
 *
 * @example defenceOf('store-filter').label // 'store filter'
 */
export function defenceOf(id: string): DefenceV1 {
  const found = DEFENCES.find((defence) => defence.id === id);
  if (!found) throw new UnknownComponentError('defence', id, DEFENCE_IDS);
  return found;
}

const defaultStages = new Map<string, DefenceStagesV1>();

/**
 * The stages of defence `id`: created with `settings` (validated by the defence) when given, else with the run's
 * defaults (created once per process).
 *
 * @example defenceStages('guard', { subjectOverlap: 0.3 }).screen?.({ records, now })
 */
export function defenceStages(id: string, settings?: unknown): DefenceStagesV1 {
  if (settings !== undefined) return defenceOf(id).create(settings);
  const known = defaultStages.get(id);
  if (known) return known;
  const created = defenceOf(id).create();
  defaultStages.set(id, created);
  return created;
}

/** The read screen of defence `id` (Table 9 and `rescore --guard-*` re-apply the guard's); throws when it has none. */
export function screenOf(id: string, settings?: unknown): (input: ScreenInput) => ScreenVerdict {
  const stages = defenceStages(id, settings);
  if (!stages.screen) throw new UnsupportedFeatureError(`defence ${id}`, 'a read screen');
  return stages.screen.bind(stages);
}

export type {
  DefenceId,
  DefenceStagesV1,
  DefenceV1,
  ExecutedAction,
  ExecutionGate,
  Review,
  ReviewInput,
  ReviewOutcome,
  ScreenInput,
  ScreenVerdict,
  WithheldRecordTrace,
} from './defence-v1.js';
