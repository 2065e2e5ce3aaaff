// Reading one guard input record: its text (§10.2), field presence (§10.3), revocation (§10.4) and τ (§10.5).
import {
  fromJsonLike,
  instantOfDate,
  parseIsoInstant,
  pythonStr,
  pythonTimestamp,
} from '../pipeline/python-compat/index.js';

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

/**
 * §10.4: the first present revocation field, or `null`. `expiration_date` is a scheduled expiry: a value that
 * parses (its Python `str`, CPython's ISO rules, no timezone = UTC, so the number `20990101` is a date) and lies
 * strictly after `now` is skipped; one at or before `now`, or one that does not parse (`false`, `'soon'`, a
 * 10-digit epoch number), revokes.
 */
export function explicitRevocation(record: unknown, now: Date): string | null {
  if (!isGuardMap(record)) return null;
  for (const name of REVOCATION_FIELDS) {
    const value = Object.hasOwn(record, name) ? record[name] : undefined;
    if (!isPresent(value)) continue;
    if (name === 'expiration_date' && isAfter(value, now)) continue;
    return name;
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
  let value: unknown;
  for (const name of TIME_FIELDS) {
    const field = Object.hasOwn(record, name) ? record[name] : undefined;
    if (isPresent(field)) {
      value = field;
      break;
    }
  }
  if (value === undefined) return null;
  if (value instanceof Date) return Number.isNaN(value.getTime()) ? null : pythonTimestamp(instantOfDate(value));
  if (typeof value !== 'string') return parsedTimestamp(value);
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
