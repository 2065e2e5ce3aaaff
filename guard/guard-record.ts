// Reading one guard input record: its text (§10.2), field presence (§10.3), revocation (§10.4) and τ (§10.5).
import { fromJsonLike, instantOfDate, parseIsoInstant, pythonStr, pythonTimestamp } from '#python-compat/index.js';
import { isoTimestamp } from './iso-timestamp.js';

/** A record as a map: a text field (`fact`, `text`, `content`, `memory` or `body`) plus any metadata. */
export type GuardRecordMap = { readonly [field: string]: unknown };

/**
 * One retrieved record as the guard sees it: a string, or a map with a text field and metadata under the
 * spec's snake_case names. Other JSON values (numbers, arrays, null) are accepted at run time and treated as
 * Python treats them: no fields, text = `str(value)`.
 */
export type GuardInput = string | GuardRecordMap;

/** Text fields, in priority order (§10.2). */
const TEXT_FIELDS = ['fact', 'text', 'content', 'memory', 'body'] as const;
/** Revocation fields, in the order stage 1 checks them (§10.4). */
const REVOCATION_FIELDS = [
  'expired_at',
  'invalid_at',
  'valid_to',
  'deleted_at',
  'revoked_at',
  'expiration_date',
  'invalidated_at',
] as const;
/** Recency fields, most authoritative first (§10.5). */
const TIME_FIELDS = ['valid_at', 'updated_at', 'created_at', 'timestamp', 'ts'] as const;

/** Whether a value is read as a map of fields (an object, not an array or a Date). */
export function isGuardMap(record: unknown): record is GuardRecordMap {
  return typeof record === 'object' && record !== null && !Array.isArray(record) && !(record instanceof Date);
}

/** A field's value, or `undefined` when the record is not a map or lacks the field (own properties only). */
function fieldOf(record: unknown, name: string): unknown {
  return isGuardMap(record) && Object.hasOwn(record, name) ? record[name] : undefined;
}

/** §10.3: present unless null, undefined or `''`. `false` and `0` are present. */
function isPresent(value: unknown): boolean {
  return value !== null && value !== undefined && value !== '';
}

/** §10.2: the string itself; else the first non-empty string text field; else Python's `str(record)`. */
export function textOf(record: unknown): string {
  if (typeof record === 'string') return record;
  if (isGuardMap(record)) {
    for (const name of TEXT_FIELDS) {
      const value = fieldOf(record, name);
      if (typeof value === 'string' && value !== '') return value;
    }
  }
  return pythonStr(fromJsonLike(record));
}

/** Slots of `GuardFieldSlots`: the revocation fields (§10.4 order), the time fields (§10.5 order), then this one. */
const DERIVED_SLOT = REVOCATION_FIELDS.length + TIME_FIELDS.length;
const EXPIRATION_SLOT = REVOCATION_FIELDS.indexOf('expiration_date');
/** Each field stage 1 and τ read, by slot, and by name → its slot. */
const SLOT_NAMES: readonly string[] = [...REVOCATION_FIELDS, ...TIME_FIELDS, 'derived_from_status'];
const SLOT_OF: ReadonlyMap<string, number> = new Map(SLOT_NAMES.map((name, slot) => [name, slot]));

/**
 * The values of the fields stage 1 and τ read, by slot (`undefined` where absent): the seven revocation fields in
 * §10.4 order, the five time fields in §10.5 order, then `derived_from_status`.
 */
export type GuardFieldSlots = unknown[];

/** A fresh `GuardFieldSlots`, every field absent. */
export function emptyFieldSlots(): GuardFieldSlots {
  return new Array<unknown>(DERIVED_SLOT + 1).fill(undefined);
}

/**
 * Fills `slots` from a record's own properties, as `explicitRevocation`, `timestampOf` and `derivedFromRevocation`
 * read them: the revocation and time fields of a map, `derived_from_status` of any object.
 */
export function fillFieldSlots(record: unknown, slots: GuardFieldSlots): void {
  slots.fill(undefined);
  if (typeof record !== 'object' || record === null) return;
  const fields = record as GuardRecordMap;
  if (Object.hasOwn(fields, 'derived_from_status')) slots[DERIVED_SLOT] = fields.derived_from_status;
  if (!isGuardMap(record)) return;
  for (let slot = 0; slot < DERIVED_SLOT; slot += 1) {
    const name = SLOT_NAMES[slot]!;
    if (Object.hasOwn(fields, name)) slots[slot] = fields[name];
  }
}

/**
 * Fills `slots` from a map's own enumerable fields in one pass over its keys: what `fillFieldSlots` reads of the copy
 * `{fact, ...fields}` (a spread copies exactly the own enumerable fields).
 */
export function fillFieldSlotsFromKeys(fields: GuardRecordMap, slots: GuardFieldSlots): void {
  for (let slot = 0; slot <= DERIVED_SLOT; slot += 1) slots[slot] = undefined;
  // for-in rather than Object.keys (no array per record); inherited keys are skipped, so the same own enumerable keys.
  for (const name in fields) {
    if (!Object.hasOwn(fields, name)) continue;
    const slot = SLOT_OF.get(name);
    if (slot !== undefined) slots[slot] = fields[name];
  }
}

/** `derived_from_status` of filled slots. */
export function derivedStatusOf(slots: GuardFieldSlots): unknown {
  return slots[DERIVED_SLOT];
}

/**
 * §10.4: the first present revocation field, or `null`. `expiration_date` is a scheduled expiry: a value that
 * parses (its Python `str`, CPython's ISO rules, no timezone = UTC, so the number `20990101` is a date) and lies
 * strictly after `now` is skipped; one at or before `now`, or one that does not parse (`false`, `'soon'`, a
 * 10-digit epoch number), revokes.
 */
export function explicitRevocation(record: unknown, now: Date): string | null {
  if (!isGuardMap(record)) return null;
  const slots = emptyFieldSlots();
  fillFieldSlots(record, slots);
  return revocationOf(slots, now);
}

/** `explicitRevocation` of a record's filled slots. */
export function revocationOf(slots: GuardFieldSlots, now: Date): string | null {
  for (let slot = 0; slot < REVOCATION_FIELDS.length; slot += 1) {
    const value = slots[slot];
    if (!isPresent(value)) continue;
    if (slot === EXPIRATION_SLOT && isAfter(value, now)) continue;
    return REVOCATION_FIELDS[slot]!;
  }
  return null;
}

/**
 * §10.5 τ(r) in epoch seconds, or `null` (⊥). Only the **first present** time field counts: if it does not
 * parse, τ is ⊥ even when a later field would. Any value is read as the reference reads it, as its Python `str`
 * after every `Z` becomes `+00:00`: so the number `20240722` is 2024-07-22 (a compact ISO date) while a 10-digit
 * epoch number, `True` or `0` parse as nothing. A value without a timezone is UTC (deviation §10.11.7): CPython's
 * naive `timestamp()` on a UTC host, which raises for any time on 0001-01-01 (it probes the offset a day
 * earlier, in year 0), so such a value is ⊥ too.
 */
export function timestampOf(record: unknown): number | null {
  if (!isGuardMap(record)) return null;
  const slots = emptyFieldSlots();
  fillFieldSlots(record, slots);
  return timeOf(slots);
}

/** `timestampOf` of a record's filled slots. */
export function timeOf(slots: GuardFieldSlots): number | null {
  let value: unknown;
  for (let slot = REVOCATION_FIELDS.length; slot < DERIVED_SLOT; slot += 1) {
    const field = slots[slot];
    if (isPresent(field)) {
      value = field;
      break;
    }
  }
  if (value === undefined) return null;
  if (value instanceof Date) return Number.isNaN(value.getTime()) ? null : pythonTimestamp(instantOfDate(value));
  if (typeof value !== 'string') return parsedTimestamp(value);
  // The usual shapes read from their characters: a lookup of a string new to the process hashes it, costing more.
  const read = isoTimestamp(value);
  if (read !== undefined) return read;
  const known = PARSED_TIMESTAMPS.get(value);
  if (known !== undefined) return known;
  const parsed = parsedTimestamp(value);
  if (PARSED_TIMESTAMPS.size >= PARSED_TIMESTAMPS_MAX) PARSED_TIMESTAMPS.clear();
  PARSED_TIMESTAMPS.set(value, parsed);
  return parsed;
}

/** τ of a non-Date value, parsed (no cache). */
function parsedTimestamp(value: unknown): number | null {
  const instant = parseIsoInstant(pythonStr(fromJsonLike(value)).replaceAll('Z', '+00:00'));
  return instant === null ? null : pythonTimestamp(instant);
}

/** Each distinct time string is parsed once (a pure function of the string); emptied when it reaches the bound. */
const PARSED_TIMESTAMPS = new Map<string, number | null>();
const PARSED_TIMESTAMPS_MAX = 50_000;

/** Whether a scheduled expiry lies strictly after `now`, compared exactly (microseconds against milliseconds). */
function isAfter(value: unknown, now: Date): boolean {
  if (value instanceof Date) return value.getTime() > now.getTime();
  const instant = typeof value === 'string' ? scheduledInstant(value) : parseIsoInstant(pythonStr(fromJsonLike(value)));
  if (instant === null) return false;
  const nowSeconds = Math.floor(now.getTime() / 1000);
  const nowMicroseconds = (now.getTime() - nowSeconds * 1000) * 1000;
  return instant.seconds > nowSeconds || (instant.seconds === nowSeconds && instant.microseconds > nowMicroseconds);
}

/** A scheduled expiry string, parsed once per distinct string (a pure function of it); emptied at the bound. */
function scheduledInstant(value: string): ReturnType<typeof parseIsoInstant> {
  const known = PARSED_EXPIRIES.get(value);
  if (known !== undefined) return known;
  const parsed = parseIsoInstant(value);
  if (PARSED_EXPIRIES.size >= PARSED_TIMESTAMPS_MAX) PARSED_EXPIRIES.clear();
  PARSED_EXPIRIES.set(value, parsed);
  return parsed;
}
const PARSED_EXPIRIES = new Map<string, ReturnType<typeof parseIsoInstant>>();
