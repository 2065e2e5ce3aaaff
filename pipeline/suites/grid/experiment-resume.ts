// What a (resumed) grid run still has to do, read from records.jsonl keeping only what the experiment phase needs.
import { join } from 'node:path';
import type { ArmId } from '../../run/arms.js';
import type { DefenceId } from '../../defences/defence-v1.js';
import { gridDefences } from '../../defences/grid-context.js';
import { forEachJsonLine } from '../../run-log/json-files.js';
import { unitIdOf, type UnitKey, type UnitRecord } from '../../run-log/run-log.js';
import { inShard, type Shard } from '../../run/shard.js';

/** What a reusing arm reads of the unit whose reply it takes (kept in memory for the run instead of the record). */
export type ReusableReply = Pick<UnitRecord, 'unitId' | 'status' | 'promptSha256' | 'reply'>;

/** The resume state of one experiment phase. */
export interface ExperimentResume {
  /** True when `key` has to run: it has no record yet, or (with `retryErrors`) its last record is an error. */
  isPending(key: UnitKey): boolean;
  /** Whose reply `key`'s defences reuse (`gridDefences(key).reuseReplyOf`; the output filter: `none`), or null. */
  reuseOf(key: Pick<UnitKey, 'arm' | 'guard' | 'poem'>): DefenceId | null;
  /** The last recorded reply of `unitId` when a reusing arm of this run reads it. */
  reusable(unitId: string): ReusableReply | undefined;
  /** Keeps what a reusing arm will read of a record just appended (nothing when no arm of the run reuses it). */
  remember(record: UnitRecord): void;
}

/**
 * Reads records.jsonl once, keeping each unit's last status and, for the units a reusing arm of this run reads, the
 * fields it reads; the records themselves are dropped as they are parsed (issue #18: a resumed 45k grid no longer
 * holds every stored record). A unit is kept for reuse when an arm of the run, in this shard, reuses its arm: a
 * superset of the units actually read, which only costs memory.
 */
export function readExperimentResume(
  runDir: string,
  settings: { arms: readonly ArmId[]; shard?: Shard | null | undefined; retryErrors: boolean },
): ExperimentResume {
  // The defences depend only on (arm, guard, PoEM): composed once per combination, not once per unit.
  const reuses = new Map<string, DefenceId | null>();
  const reuseOf = ({ arm, guard, poem }: Pick<UnitKey, 'arm' | 'guard' | 'poem'>): DefenceId | null => {
    const at = `${arm}\n${guard}\n${poem}`;
    if (!reuses.has(at)) reuses.set(at, gridDefences({ arm, guard, poem }).reuseReplyOf);
    return reuses.get(at)!;
  };
  const isReused = (key: UnitKey): boolean =>
    settings.arms.some((arm) => reuseOf({ ...key, arm }) === key.arm && inShard(settings.shard, { ...key, arm }));
  const finished = new Map<string, ReusableReply>();
  const remember = (record: UnitRecord): void => {
    if (!isReused(record.key)) return;
    const { unitId, status, promptSha256, reply } = record;
    finished.set(unitId, { unitId, status, promptSha256, reply });
  };
  const statuses = new Map<string, UnitRecord['status']>();
  forEachJsonLine<UnitRecord>(join(runDir, 'records.jsonl'), (record) => {
    // The last record of a unit wins, for reuse as for the status (a retried error is superseded).
    statuses.set(record.unitId, record.status);
    remember(record);
  });
  return {
    isPending(key) {
      const status = statuses.get(unitIdOf(key));
      return status === undefined || (settings.retryErrors && status === 'error');
    },
    reuseOf,
    reusable: (unitId) => finished.get(unitId),
    remember,
  };
}
