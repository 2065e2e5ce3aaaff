// The Stale-Retrieval Guard (stale-retrieval.md §10), a faithful port of [C] `guard/stale_guard.py` @ a8e0964735e7.
import type { MemoryRecord } from '../backends/memory-backend.js';
import { conflictFeatures, trimConflictCaches } from './conflict-features.js';
import { createConflictIndex } from './conflict-index.js';
import { derivedFromRevocation } from './derived-from.js';
import { DEFAULT_GUARD_CONFIG, resolveGuardConfig, type GuardConfig } from './guard-config.js';
import { explicitRevocation, textOf, timestampOf, type GuardInput } from './guard-record.js';
import type { GuardVerdict, ReadGuard, WithheldRecord } from './read-guard.js';

/** The guard's verdict on plain inputs, plus `texts` (the kept records' texts, in the backend's order). */
export interface GuardResult extends GuardVerdict<GuardInput> {
  /** `textOf` of each kept record, in the same order as `kept`. */
  texts: string[];
}

/** Settings of `createStaleRetrievalGuard`: any subset of `GuardConfig` (validated; unknown keys rejected). */
export type StaleRetrievalGuardSettings = Partial<GuardConfig>;

/** A stale-retrieval guard instance; `config` is the resolved configuration, for the run log. */
export interface StaleRetrievalGuard extends ReadGuard {
  /** Registry id. */
  readonly id: 'stale-retrieval';
  /** The configuration in effect (defaults filled in). */
  readonly config: Readonly<GuardConfig>;
}

/** The exact note for a conflict the guard found but could not order (§10.8). */
export function unresolvedConflictNote(reason: string): string {
  return `unresolved conflict (${reason}); both facts kept because the backend supplied no usable timestamp to order them`;
}

/** The exact summary note (§10.9); the last word is wrapped in backticks. */
function withheldSummaryNote(withheld: number, total: number): string {
  return `${withheld} of ${total} retrieved facts withheld as superseded or revoked; they remain in the store and are listed in \`withheld\`.`;
}

/** Frozen configurations already validated: a guard instance's config is checked once, not on every retrieval. */
const RESOLVED = new WeakMap<object, GuardConfig>();
function resolvedOnce(config: Partial<GuardConfig>): GuardConfig {
  if (!Object.isFrozen(config)) return resolveGuardConfig(config);
  const known = RESOLVED.get(config);
  if (known) return known;
  const resolved = resolveGuardConfig(config);
  RESOLVED.set(config, resolved);
  return resolved;
}

/**
 * Runs the guard on one retrieval result (§10.4–10.9): stage 1 withholds records the backend marked revoked;
 * stage 2 withholds a survivor that conflicts with a kept, strictly newer record, newest first, capped at
 * floor(N·β) withholdings in total. Records are never modified; `kept` is in the input order. `ledgerBound[i]`: the
 * application's revocation ledger binds record i as written and never revoked, so stage 2 keeps it (issue #19 item 2).
 *
 * @example
 * const old = new Date(Date.now() - 365 * 86_400_000).toISOString();
 * applyStaleRetrievalGuard([{ fact: 'All TOR logins must be blocked.', expired_at: old }, { fact: 'TOR logins are monitored.' }]);
 * // → kept: [{ index: 1, ... }], withheld: [{ index: 0, reason: 'backend marked expired_at', stage: 'explicit', ... }]
 */
export function applyStaleRetrievalGuard(
  records: readonly GuardInput[],
  config: Partial<GuardConfig> = DEFAULT_GUARD_CONFIG,
  now: Date = new Date(),
  ledgerBound: readonly boolean[] = [],
): GuardResult {
  const settings = resolvedOnce(config);
  trimConflictCaches();
  const withheld: WithheldRecord[] = [];
  const notes: string[] = [];
  const survivors: { index: number; record: GuardInput; time: number | null }[] = [];
  records.forEach((record, index) => {
    const marked = settings.trustExplicitFields ? explicitRevocation(record, now) : null;
    const derived = settings.trustExplicitFields && !marked ? derivedFromRevocation(record) : null;
    if (marked) withheld.push({ index, text: textOf(record), reason: `backend marked ${marked}`, stage: 'explicit' });
    else if (derived) withheld.push({ index, text: textOf(record), reason: derived, stage: 'explicit' });
    else survivors.push({ index, record, time: timestampOf(record) });
  });
  // Newest first where τ is known; ⊥ after, in input order. Result order is never recency ([P] §5.1).
  const order = [...survivors].sort((a, b) => {
    if (a.time === null || b.time === null) return (a.time === null ? 1 : 0) - (b.time === null ? 1 : 0);
    return b.time - a.time;
  });
  const maxWithheld = Math.trunc(records.length * settings.maxWithheldRatio);
  const kept: typeof survivors = [];
  const index = createConflictIndex<{ time: number | null; text: string }>(settings);
  for (const candidate of order) {
    const text = textOf(candidate.record);
    const features = conflictFeatures(text);
    // Only the first conflicting kept record counts (§10.11.6); kept records are tested in the order they were kept.
    const first = index.firstConflict(features);
    let superseding: { reason: string; text: string } | null = null;
    if (first) {
      const { keeper, outcome } = first;
      if (candidate.time !== null && keeper.time !== null && candidate.time < keeper.time) {
        superseding = { reason: outcome.reason, text: keeper.text };
      } else {
        notes.push(unresolvedConflictNote(outcome.reason));
      }
    }
    if (superseding && withheld.length < maxWithheld && ledgerBound[candidate.index] !== true) {
      withheld.push({
        index: candidate.index,
        text,
        reason: `superseded: ${superseding.reason}`,
        stage: 'conflict',
        supersededBy: superseding.text,
      });
    } else {
      kept.push(candidate);
      index.add({ time: candidate.time, text }, features);
    }
  }
  const keptInOrder = kept.sort((a, b) => a.index - b.index).map(({ index, record }) => ({ index, record }));
  if (settings.annotate && withheld.length > 0) notes.push(withheldSummaryNote(withheld.length, records.length));
  return { kept: keptInOrder, withheld, notes, texts: keptInOrder.map(({ record }) => textOf(record)) };
}

/** A backend record as guard input: `{fact: text, ...fields}` (a field named `fact` would override the text). */
export function memoryRecordToGuardInput(record: MemoryRecord): GuardInput {
  return { fact: record.text, ...record.fields };
}

/**
 * Creates the `stale-retrieval` read guard. It calls the wrapped search once, unmodified, runs
 * `applyStaleRetrievalGuard` on the records (clock: `context.now`) and returns the kept records unchanged.
 * Throws `InvalidInputError` for invalid settings.
 *
 * @example
 * const guard = createStaleRetrievalGuard({ maxWithheldRatio: 0.5 });
 * const result = await guard.wrapSearch({ request, search: (r) => backend.search(r), context: { now: new Date() } });
 */
export function createStaleRetrievalGuard(settings: StaleRetrievalGuardSettings = {}): StaleRetrievalGuard {
  const config = Object.freeze(resolveGuardConfig(settings, 'stale-retrieval guard settings'));
  return {
    id: 'stale-retrieval',
    config,
    async wrapSearch({ request, search, context }) {
      const result = await search(request);
      const verdict = applyStaleRetrievalGuard(result.records.map(memoryRecordToGuardInput), config, context.now);
      const kept = verdict.kept.map(({ index }) => {
        const record = result.records[index];
        if (!record) throw new RangeError(`guard kept index ${index} outside the result`);
        return { index, record };
      });
      return { kept, withheld: verdict.withheld, notes: verdict.notes, warnings: result.warnings };
    },
  };
}
