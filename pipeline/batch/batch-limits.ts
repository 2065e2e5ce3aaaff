// The Batch API's limits per job and the defaults of `--batch-size` and `--batch-poll` (issue #31).

/** The Batch API's limits per job (OpenAI: 50,000 requests and 200 MB of input file). */
export const BATCH_LIMITS = { requests: 50_000, bytes: 200 * 1024 * 1024 } as const;

/** The defaults of `--batch-size` and `--batch-poll`, and how long the collector waits for more calls before it sends. */
export const BATCH_DEFAULTS = { size: BATCH_LIMITS.requests, pollMs: 30_000, quietMs: 500 } as const;
