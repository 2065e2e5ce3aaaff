// The Stale-Retrieval Guard (stale-retrieval.md §10), a faithful port of [C] `guard/stale_guard.py` @ a8e0964735e7.
import type { MemoryRecord } from '../backends/memory-backend.js';
import { conflictBetween, type ConflictOutcome } from './conflict.js';
import { conflictFeatures, trimConflictCaches, wordIdBase, type ConflictFeatures } from './conflict-features.js';
import { createConflictIndex } from './conflict-index.js';
import { derivedFromStatus } from './derived-from.js';
import { DEFAULT_GUARD_CONFIG, resolveGuardConfig, type GuardConfig } from './guard-config.js';
import {
  derivedStatusOf,
  emptyFieldSlots,
  fillFieldSlots,
  fillFieldSlotsFromKeys,
  isGuardMap,
  revocationOf,
  textOf,
  timeOf,
  type GuardFieldSlots,
  type GuardInput,
} from './guard-record.js';
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
  const texts = records.map(textOf);
  const verdict = guardCore(texts, records, null, resolvedOnce(config), now, ledgerBound);
  const kept = verdict.kept.map((index) => ({ index, record: records[index]! }));
  return { kept, withheld: verdict.withheld, notes: verdict.notes, texts: verdict.kept.map((index) => texts[index]!) };
}

/** The guard's verdict with the kept records as their indexes (ascending), as a screen reports it. */
export interface GuardIndexVerdict {
  /** Indexes of the kept records, ascending. */
  kept: number[];
  /** Records held back, each with its reason (stage 1 in rank order, then stage 2 newest first). */
  withheld: WithheldRecord[];
  /** Notes (§10.8–10.9). */
  notes: string[];
}

/**
 * `applyStaleRetrievalGuard` on backend records, without building `{fact: text, ...fields}` for each: a record whose
 * text is a non-empty string and whose fields are a map without a `fact` field is read in place (its text is the
 * copy's `textOf`; its fields, one pass over their keys, are what the copy holds); any other record is copied as
 * `memoryRecordToGuardInput` does.
 */
export function applyStaleRetrievalGuardToMemoryRecords(
  records: readonly MemoryRecord[],
  config: Partial<GuardConfig> = DEFAULT_GUARD_CONFIG,
  now: Date = new Date(),
  ledgerBound: readonly boolean[] = [],
): GuardIndexVerdict {
  const count = records.length;
  const texts = new Array<string>(count);
  // A record whose fields cannot be read in place: its copy, read as `applyStaleRetrievalGuard` reads it.
  const copies = new Array<GuardInput | undefined>(count);
  for (let index = 0; index < count; index += 1) {
    const record = records[index]!;
    const { text, fields } = record;
    if (typeof text === 'string' && text !== '' && isGuardMap(fields) && !Object.hasOwn(fields, 'fact')) {
      texts[index] = text;
    } else {
      const copy = memoryRecordToGuardInput(record);
      copies[index] = copy;
      texts[index] = textOf(copy);
    }
  }
  return guardCore(texts, copies, records, resolvedOnce(config), now, ledgerBound);
}

/** Whether survivor `a` comes after survivor `b` in stage 2's order: newest first where τ is known, ⊥ after. */
function after(a: number | null, b: number | null): boolean {
  if (a === null || b === null) return a === null && b !== null;
  return b > a;
}

/**
 * Sorts survivors (indexes and their τ, side by side) newest first where τ is known, ⊥ after, each group in input
 * order: a stable sort. Result order is never recency ([P] §5.1). A few survivors are sorted by insertion.
 */
function newestFirst(order: number[], times: (number | null)[]): void {
  if (order.length > SCAN_ALL_UP_TO) {
    const sorted = order.map((index, at) => ({ index, time: times[at]! }));
    sorted.sort((a, b) => (after(a.time, b.time) ? 1 : after(b.time, a.time) ? -1 : 0));
    sorted.forEach(({ index, time }, at) => {
      order[at] = index;
      times[at] = time;
    });
    return;
  }
  for (let at = 1; at < order.length; at += 1) {
    const index = order[at]!;
    const time = times[at]!;
    let place = at;
    while (place > 0 && after(times[place - 1]!, time)) {
      order[place] = order[place - 1]!;
      times[place] = times[place - 1]!;
      place -= 1;
    }
    order[place] = index;
    times[place] = time;
  }
}

/**
 * Fills record `index`'s field slots: from `copies[index]` when there is one, else from the fields of
 * `records[index]` read in place. A module function, not a closure made per retrieval (the bench and tests run
 * through tsx, whose `keepNames` names every closure bound to a variable with one more call, per retrieval).
 */
function fillSlotsOf(
  index: number,
  copies: readonly (GuardInput | undefined)[],
  records: readonly MemoryRecord[] | null,
  slots: GuardFieldSlots,
): void {
  const copy = copies[index];
  if (copy !== undefined || records === null) fillFieldSlots(copy, slots);
  else fillFieldSlotsFromKeys(records[index]!.fields, slots);
}

/**
 * Both stages on records given as their texts (`textOf`) and their fields: record i's are those of `copies[i]` when
 * defined, else those of `records[i]` read in place (`fillSlotsOf`). Returns the kept indexes ascending.
 */
function guardCore(
  texts: readonly string[],
  copies: readonly (GuardInput | undefined)[],
  records: readonly MemoryRecord[] | null,
  settings: GuardConfig,
  now: Date,
  ledgerBound: readonly boolean[],
): GuardIndexVerdict {
  trimConflictCaches();
  const count = texts.length;
  const withheld: WithheldRecord[] = [];
  const notes: string[] = [];
  const order: number[] = [];
  const times: (number | null)[] = [];
  const slots = SLOTS;
  for (let index = 0; index < count; index += 1) {
    fillSlotsOf(index, copies, records, slots);
    const marked = settings.trustExplicitFields ? revocationOf(slots, now) : null;
    const derived = settings.trustExplicitFields && !marked ? derivedFromStatus(derivedStatusOf(slots)) : null;
    if (marked) withheld.push({ index, text: texts[index]!, reason: `backend marked ${marked}`, stage: 'explicit' });
    else if (derived) withheld.push({ index, text: texts[index]!, reason: derived, stage: 'explicit' });
    else {
      order.push(index);
      times.push(timeOf(slots));
    }
  }
  newestFirst(order, times);
  const maxWithheld = Math.trunc(count * settings.maxWithheldRatio);
  const kept: number[] = [];
  // Kept records in the order they were kept: scanned whole when few, else through the conflict index.
  const keptFeatures: ConflictFeatures[] = [];
  const keptTimes: (number | null)[] = [];
  const index = order.length > SCAN_ALL_UP_TO ? createConflictIndex<number>(settings) : null;
  // The features of the candidates before this one, in stage-2 order (a few survivors: see `featuresOnce`).
  const read: ConflictFeatures[] = [];
  const base = wordIdBase();
  for (let at = 0; at < order.length; at += 1) {
    const candidate = order[at]!;
    const time = times[at]!;
    const text = texts[candidate]!;
    const features = index ? conflictFeatures(text) : featuresOnce(text, read, at);
    // Only the first conflicting kept record counts (§10.11.6); kept records are tested in the order kept.
    let keeper = -1;
    let outcome: ConflictOutcome | null = null;
    if (index) {
      const first = index.firstConflict(features);
      if (first) ({ keeper, outcome } = first);
    } else if (features.ids.length > 0) {
      const ids = features.ids;
      // |W(candidate) ∩ W(kept j)| for every kept j at once, from the words' marks (see `KEPT_MARKS`).
      for (let other = 0; other < keptFeatures.length; other += 1) SHARED[other] = 0;
      for (let word = 0; word < ids.length; word += 1) {
        const slot = ids[word]! - base;
        for (let marks = slot < KEPT_MARKS.length ? KEPT_MARKS[slot]! : 0; marks !== 0; marks &= marks - 1)
          SHARED[31 - Math.clz32(marks & -marks)]! += 1;
      }
      for (let other = 0; other < keptFeatures.length; other += 1) {
        const keptIds = keptFeatures[other]!.ids;
        // conflictBetween's own first tests, on the same arithmetic: where they return no conflict, it is not called
        // (most pairs of a retrieval share too few words). SHARED is never below the true count (a mark is set only
        // for a kept record's word), so a pair is skipped only where conflictBetween would return no conflict.
        if (keptIds.length === 0) continue;
        if (SHARED[other]! / Math.min(ids.length, keptIds.length) < settings.subjectOverlap) continue;
        const tested = conflictBetween(features, keptFeatures[other]!, settings);
        if (tested.hit) {
          keeper = other;
          outcome = tested;
          break;
        }
      }
    }
    let superseded = false;
    if (outcome) {
      const keeperTime = keptTimes[keeper]!;
      if (time !== null && keeperTime !== null && time < keeperTime) superseded = true;
      else notes.push(unresolvedConflictNote(outcome.reason));
    }
    if (outcome && superseded && withheld.length < maxWithheld && ledgerBound[candidate] !== true) {
      withheld.push({
        index: candidate,
        text,
        reason: `superseded: ${outcome.reason}`,
        stage: 'conflict',
        supersededBy: texts[kept[keeper]!]!,
      });
    } else {
      if (index) index.add(kept.length, features);
      else markKept(features.ids, base, keptFeatures.length);
      kept.push(candidate);
      keptFeatures.push(features);
      keptTimes.push(time);
    }
  }
  // Zero again for the next retrieval (for its speed only: a stale mark can make a pair be tested, never skipped).
  if (!index) for (const keptWords of keptFeatures) clearMarks(keptWords.ids, base);
  // Input order again (a few records: an insertion sort, with no comparator calls).
  if (kept.length > SCAN_ALL_UP_TO) kept.sort((a, b) => a - b);
  else
    for (let at = 1; at < kept.length; at += 1) {
      const value = kept[at]!;
      let place = at;
      while (place > 0 && kept[place - 1]! > value) {
        kept[place] = kept[place - 1]!;
        place -= 1;
      }
      kept[place] = value;
    }
  if (settings.annotate && withheld.length > 0) notes.push(withheldSummaryNote(withheld.length, count));
  return { kept, withheld, notes };
}

/**
 * The features of `text`, the `count`-th candidate of a retrieval: those of an earlier candidate with an equal text
 * (`read[i].text`), else its own, scanned once and appended to `read`. Features are a pure function of the text, so an
 * equal text's are the same; a store often returns one fact twice in a read (re-extracted, re-ingested). Only for a
 * few survivors: comparing strings of unequal length costs nothing, and at most `SCAN_ALL_UP_TO` are compared.
 */
function featuresOnce(text: string, read: ConflictFeatures[], count: number): ConflictFeatures {
  for (let at = 0; at < count; at += 1) {
    const earlier = read[at]!;
    if (earlier.text === text) {
      read.push(earlier);
      return earlier;
    }
  }
  const features = conflictFeatures(text);
  read.push(features);
  return features;
}

/**
 * Per word of the current word table (`id - wordIdBase()`), bit j set while kept record j of the retrieval being
 * guarded (scan path: at most `SCAN_ALL_UP_TO` = 32 kept) has that word; all zero between retrievals. Grown as the
 * table learns words. With `SHARED`, the words a candidate shares with each kept record are counted in one pass over
 * its own words rather than one merge per pair.
 */
let KEPT_MARKS = new Int32Array(1 << 12);
/** The count of shared words per kept record for the current candidate. */
const SHARED = new Int32Array(32);

/** Marks `ids` (a kept record's words) as those of kept record `kept`. */
function markKept(ids: readonly number[], base: number, kept: number): void {
  for (let at = 0; at < ids.length; at += 1) {
    const slot = ids[at]! - base;
    if (slot >= KEPT_MARKS.length) {
      const larger = new Int32Array(Math.max(slot + 1, KEPT_MARKS.length * 2));
      larger.set(KEPT_MARKS);
      KEPT_MARKS = larger;
    }
    KEPT_MARKS[slot]! |= 1 << kept;
  }
}

/** Clears the marks of a kept record's words (every kept record's, at the end of a retrieval). */
function clearMarks(ids: readonly number[], base: number): void {
  for (let at = 0; at < ids.length; at += 1) KEPT_MARKS[ids[at]! - base] = 0;
}

/** The field slots guardCore fills record by record (it never runs inside itself: one array, not one per call). */
const SLOTS = emptyFieldSlots();

/** Up to this many survivors, each candidate is tested against every kept record in order (no index to build). */
const SCAN_ALL_UP_TO = 32;

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
      const verdict = applyStaleRetrievalGuardToMemoryRecords(result.records, config, context.now);
      const kept = verdict.kept.map((index) => {
        const record = result.records[index];
        if (!record) throw new RangeError(`guard kept index ${index} outside the result`);
        return { index, record };
      });
      return { kept, withheld: verdict.withheld, notes: verdict.notes, warnings: result.warnings };
    },
  };
}
