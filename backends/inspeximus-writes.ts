// How stalebench's writes become inspeximus calls: remember() with or without a key, retire(), and valid_from taken
// from the harness clock. The calls run in the Python process (store_adapters/inspeximus_memory.py); nothing here
// decides what the library does with them.
import type { FieldValue, InsertRequest } from './memory-backend.js';

/** Whether a configuration writes the policy's versions under one key (the library's correction path) or as ordinary memories. */
export type InspeximusWrites = 'keyed' | 'unkeyed';

/** One library call, as the driver's `insert` op runs it (valid_from in epoch seconds). */
export type InspeximusStep =
  | { remember: { text: string; key?: string; valid_from: number; meta?: Record<string, FieldValue> } }
  | { retire: { key: string; reason: string } };

/** The calls of one insert, and what the harness checks afterwards. */
export interface InspeximusInsertPlan {
  /** The calls, in order. */
  steps: InspeximusStep[];
  /** The library's own free-text keyer for this insert (natural mode, keyed configurations), or null. */
  extractor: 'regex_extractor' | null;
  /** The key the revoked facts were written under, or null when nothing was revoked through a key. */
  correctedKey: string | null;
  /** How many leading `remember` steps wrote revoked facts (their records must end superseded). */
  revokedCount: number;
}

const DAY_S = 86_400;
/** The revoked version is dated 90 days before the harness clock, as the paper dated v1 (stale-retrieval.md §3.1). */
const REVOKED_AGE_S = 90 * DAY_S;
/** retire() requires a reason; this is the one recorded when a revoked fact has no current fact to replace it. */
export const RETIRE_REASON = 'revoked by stalebench direct seeding (no current fact to write under the key)';

/** The key of a namespace's policy chain: `<namespace>::<relation, lower case>` (the library's subject::relation shape). */
export function policyKey(namespace: string, relation = 'POLICY'): string {
  return `${namespace}::${relation.toLowerCase()}`;
}

/**
 * The library calls of an insert.
 * - direct, keyed: each revoked fact `remember(text, key, valid_from = now − 90 d)`, then the first current fact (v2)
 *   under the same key at `now` (the correction), or `retire(key)` when there is none; other current facts unkeyed.
 *   Without revoked facts (a journal, a limit probe) nothing is keyed.
 * - direct, unkeyed: the same texts and times with no key, as an agent writes without one.
 * - natural: each episode `remember(text, valid_from = its reference time)`; keyed configurations set the library's
 *   shipped `regex_extractor` for the insert, so the library derives keys from the text itself.
 *
 * @example
 * insertPlan({ namespace: 'ns', now, writes: { mode: 'direct', revoked: [v1], current: [v2] } }, 'keyed').steps;
 * // [{ remember: { text: v1, key: 'ns::policy', valid_from: … } }, { remember: { text: v2, key: 'ns::policy', valid_from: … } }]
 */
export function insertPlan(request: InsertRequest, writes: InspeximusWrites): InspeximusInsertPlan {
  const meta = request.metadata === undefined ? {} : { meta: { ...request.metadata } };
  const at = (time: Date) => time.getTime() / 1000;
  if (request.writes.mode === 'natural') {
    const steps = request.writes.episodes.map(
      (episode): InspeximusStep => ({
        remember: { text: episode.text, valid_from: at(episode.referenceTime), ...meta },
      }),
    );
    return { steps, extractor: writes === 'keyed' ? 'regex_extractor' : null, correctedKey: null, revokedCount: 0 };
  }
  const { revoked, current, relation } = request.writes;
  const now = at(request.now);
  const key = writes === 'keyed' && revoked.length > 0 ? policyKey(request.namespace, relation) : undefined;
  const keyed = key === undefined ? {} : { key };
  // Revoked facts one second apart, oldest first, so each is strictly older than the next under the key.
  const steps: InspeximusStep[] = revoked.map((text, index) => ({
    remember: { text, ...keyed, valid_from: now - REVOKED_AGE_S + index, ...meta },
  }));
  for (const [index, text] of current.entries()) {
    steps.push({ remember: { text, ...(index === 0 ? keyed : {}), valid_from: now, ...meta } });
  }
  if (key !== undefined && current.length === 0) steps.push({ retire: { key, reason: RETIRE_REASON } });
  return { steps, extractor: null, correctedKey: key ?? null, revokedCount: key === undefined ? 0 : revoked.length };
}
