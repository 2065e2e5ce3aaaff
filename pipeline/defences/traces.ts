// The traces the paper's defences write into the run log (RUN_LOG_VERSION 2's `guard` and `outputFilter` fields),
// types only; pipeline/run-log/run-log.ts re-exports them. Here, the registered defences need not import the run log (run-log.ts
// imports arms.ts, which imports the registry: that would be a cycle).
import type { MemoryRecord } from '../../backends/memory-backend.js';

/** What the stale-retrieval guard did to a unit's context. */
export interface GuardTrace {
  /** The clock stage 1 compared `expiration_date` against. */
  now: string;
  /** Records before the guard. */
  input: MemoryRecord[];
  withheld: { index: number; text: string; reason: string; stage: string; supersededBy?: string }[];
  notes: string[];
}

/** What the output filter decided on the reused attack reply. */
export interface OutputFilterTrace {
  /** The `none`-arm unit whose reply was reused, or null when this unit made the attack call itself. */
  reusedUnit: string | null;
  /** Revoked facts handed to the filter (default read minus filtered read, §7.3). */
  revokedFacts: string[];
  blocked: boolean;
  matchedFact: string | null;
}
