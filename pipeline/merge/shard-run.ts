// One shard of a grid as `pnpm merge` reads it from its run directory (types only).
import type { ProbeRecord, RunManifest, UnitRecord } from '../run-log/run-log.js';
import type { Shard } from '../run/shard.js';

/** One shard as read from its run directory. */
export interface ShardRun {
  /** The directory as given on the command line (problems name it so). */
  dir: string;
  runDir: string;
  manifest: RunManifest & { shard: Shard };
  /** `setup.jsonl` rows in file order (the chain field dropped). */
  probes: ProbeRecord[];
  /** `records.jsonl` rows in file order (the chain field dropped); a unit's last row is its result. */
  records: UnitRecord[];
}
