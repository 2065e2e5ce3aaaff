// The Batch API's limits per job and the defaults of `--batch-size` and `--batch-poll` (issue #31).

/** The Batch API's limits per job (OpenAI: 50,000 requests and 200 MB of input file). */
export const BATCH_LIMITS = { requests: 50_000, bytes: 200 * 1024 * 1024 } as const;

/**
 * The defaults of `--batch-size` and `--batch-poll`; how long the collector waits for more calls before it sends
 * (`quietMs`); and how long a follow-up round may wait at its barrier with no new call before its queued calls are
 * sent anyway (`stallMs`: a unit that waits on something other than a call would otherwise hold the round forever).
 */
export const BATCH_DEFAULTS = { size: BATCH_LIMITS.requests, pollMs: 30_000, quietMs: 500, stallMs: 60_000 } as const;
