// How a run's data is named on every engine: `sb<nonce>_<run slug>`, so one process's data is one prefix.

/** A per-process nonce: 8 lowercase hex digits (`randomBytes(4)`). */
const NONCE_PATTERN = /^[0-9a-f]{8}$/;
const ROOT = /^sb([0-9a-f]{8})_/;

/**
 * The namespace root an eval process hands its systems instead of the bare run id: `sb<nonce>_<slug>`, where the
 * slug is the run id with every other character run replaced by `_` (for people reading the engine; a long one
 * keeps its first 19 and last 20 characters, so a shard's `_shard2of3` suffix is always in it). The root is
 * a plain Graphiti group-id part and a valid Qdrant collection name part, so every group id, user id and
 * collection the systems derive from it starts with `sb<nonce>_`: two processes never share a name (not even two
 * runs of one spec), and `rootPrefix(nonce)` selects exactly what one process wrote. Without a nonce (tests that
 * build a backend directly) the run id is the root, as before.
 *
 * @example
 * namespaceRoot('gpt-5-nano_1a2b3c4d', '0badcafe'); // 'sb0badcafe_gpt_5_nano_1a2b3c4d'
 */
export function namespaceRoot(runId: string, nonce: string | undefined): string {
  if (nonce === undefined) return runId;
  if (!NONCE_PATTERN.test(nonce)) throw new RangeError(`nonce "${nonce}" is not 8 lowercase hex digits`);
  const full = runId.replace(/[^A-Za-z0-9]+/g, '_');
  // A long id keeps its head and its tail (the spec hash and a `_shard2of3` suffix), so shards read apart on the engine.
  const slug = (full.length > 40 ? `${full.slice(0, 19)}_${full.slice(-20)}` : full).replace(/^_+|_+$/g, '');
  return `sb${nonce}_${slug || 'run'}`;
}

/** What every engine name of one process starts with (a group id, a Qdrant collection after `stalebench_`). */
export function rootPrefix(nonce: string): string {
  if (!NONCE_PATTERN.test(nonce)) throw new RangeError(`nonce "${nonce}" is not 8 lowercase hex digits`);
  return `sb${nonce}_`;
}

/** The nonce of a name derived from a namespace root, or null for a name stalebench did not derive from one. */
export function nonceOfName(name: string): string | null {
  return ROOT.exec(name)?.[1] ?? null;
}
