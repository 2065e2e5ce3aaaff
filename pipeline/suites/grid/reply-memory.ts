// What a reusing arm of a (resumed) grid run reads of other units' records: the replies it takes, kept as the unit
// runner (pipeline/suites/suite-units.ts) hands over each stored and each written record. Which units still run is the
// runner's (by the grid suite's `rerun` rule, suite.ts).
import type { ArmId } from '../../run/arms.js';
import type { DefenceId } from '../../defences/defence-v1.js';
import { gridDefences } from '../../defences/grid-context.js';
import type { UnitKey, UnitRecord } from '../../run-log/run-log.js';
import { inShard, type Shard } from '../../run/shard.js';

/** What a reusing arm reads of the unit whose reply it takes (kept in memory for the run instead of the record). */
export type ReusableReply = Pick<UnitRecord, 'unitId' | 'status' | 'promptSha256' | 'reply'>;

/** The replies a grid run's reusing arms read. */
export interface ReplyMemory {
  /** Whose reply `key`'s defences reuse (`gridDefences(key).reuseReplyOf`; the output filter: `none`), or null. */
  reuseOf(key: Pick<UnitKey, 'arm' | 'guard' | 'poem'>): DefenceId | null;
  /** The last recorded reply of `unitId` when a reusing arm of this run reads it. */
  reusable(unitId: string): ReusableReply | undefined;
  /** Keeps what a reusing arm will read of a record (nothing when no arm of the run reuses it); the last one wins. */
  remember(record: UnitRecord): void;
}

/**
 * Whose reply a unit's defences reuse (`gridDefences(key).reuseReplyOf`), or null. The defences depend only on (arm,
 * guard, PoEM): each combination is composed once, not once per unit.
 */
export function replyReuse(): (key: Pick<UnitKey, 'arm' | 'guard' | 'poem'>) => DefenceId | null {
  const reuses = new Map<string, DefenceId | null>();
  return ({ arm, guard, poem }) => {
    const at = `${arm}\n${guard}\n${poem}`;
    if (!reuses.has(at)) reuses.set(at, gridDefences({ arm, guard, poem }).reuseReplyOf);
    return reuses.get(at)!;
  };
}

/**
 * The reply memory of one grid invocation, keeping only the fields a reusing arm reads of the units it reuses; the
 * records themselves are dropped as they are handed over (issue #18: a resumed 45k grid no longer holds every stored
 * record). A unit is kept for reuse when an arm of the run, in this shard, reuses its arm: a superset of the units
 * actually read, which only costs memory.
 */
export function createReplyMemory(settings: { arms: readonly ArmId[]; shard?: Shard | null | undefined }): ReplyMemory {
  const reuseOf = replyReuse();
  const isReused = (key: UnitKey): boolean =>
    settings.arms.some((arm) => reuseOf({ ...key, arm }) === key.arm && inShard(settings.shard, { ...key, arm }));
  const kept = new Map<string, ReusableReply>();
  return {
    reuseOf,
    reusable: (unitId) => kept.get(unitId),
    remember(record) {
      if (!isReused(record.key)) return;
      const { unitId, status, promptSha256, reply } = record;
      kept.set(unitId, { unitId, status, promptSha256, reply });
    },
  };
}
