// The stale-retrieval guard (stale-retrieval.md §10) as a defence: the `guard` arm and the `--guard on` axis.
import { resolveGuardConfig, type GuardConfig } from '../../guard/guard-config.js';
import { applyStaleRetrievalGuardToMemoryRecords } from '../../guard/stale-retrieval-guard.js';
import type { GuardVerdict, WithheldRecord } from '../../guard/read-guard.js';
import type { DefenceV1, ScreenInput, ScreenVerdict, WithheldRecordTrace } from './defence-v1.js';

/**
 * Creates the guard's screen with `settings` (any subset of `GuardConfig`; validated, unknown keys rejected). Runs
 * use the defaults; `pnpm rescore --guard-*` re-applies it with others. The records are never modified.
 */
function create(settings: unknown = {}) {
  // Frozen: the guard validates a frozen configuration once, not on every read.
  const config = Object.freeze(resolveGuardConfig(settings as Partial<GuardConfig>, 'stale-retrieval guard settings'));
  return {
    screen({ records, now, ledger }: ScreenInput): ScreenVerdict {
      // With the revocation ledger consulted, a record it binds as current is not withheld by a conflict.
      const bound = ledger?.map((judged) => judged.status === 'current');
      const { kept, withheld, notes } = applyStaleRetrievalGuardToMemoryRecords(records, config, now, bound);
      return screenVerdictOf(kept, withheld, notes);
    },
  };
}

/** A guard's verdict as a screen's: kept indexes, withheld records (no empty `supersededBy`), notes. */
export function guardScreenVerdict(verdict: Pick<GuardVerdict<unknown>, 'kept' | 'withheld' | 'notes'>): ScreenVerdict {
  return screenVerdictOf(
    verdict.kept.map((kept) => kept.index),
    verdict.withheld,
    verdict.notes,
  );
}

/** A screen's verdict from kept indexes, withheld records (no empty `supersededBy` kept) and notes. */
function screenVerdictOf(kept: number[], withheld: readonly WithheldRecord[], notes: string[]): ScreenVerdict {
  // Built field by field (an object spread costs a runtime helper call per record, on every retrieval).
  const screened = new Array<WithheldRecordTrace>(withheld.length);
  for (let at = 0; at < withheld.length; at += 1) {
    const { index, text, reason, stage, supersededBy } = withheld[at]!;
    const record: WithheldRecordTrace = { index, text, reason, stage };
    if (supersededBy) record.supersededBy = supersededBy;
    screened[at] = record;
  }
  return { kept, withheld: screened, notes };
}

/** Withholds records the system marked revoked, and survivors superseded by a newer kept record (§10.4–10.9). */
export const staleGuardDefence = {
  specificationVersion: 'v1',
  id: 'guard',
  label: 'stale guard',
  arm: { referenceName: 'guard' },
  uses: [],
  create,
  settingsOf: (settings: unknown = {}) => ({
    ...resolveGuardConfig(settings as Partial<GuardConfig>, 'stale-retrieval guard settings'),
  }),
} as const satisfies DefenceV1;
