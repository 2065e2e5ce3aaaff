// Maps stalebench shapes to mem0's and back: user ids, UTC expiry dates, the store filter, flattened records.
import { createHash } from 'node:crypto';
import type { MemoryItem } from 'mem0ai/oss';
import { UnsupportedFeatureError } from '#core/errors.js';
import type { FieldValue, MemoryRecord } from './memory-backend.js';
import type { DateFilter, MemoryFilter } from './memory-filter.js';
import { fieldValueOf as scalar } from './field-value.js';

const DAY_MS = 86_400_000;
const PLAIN_PART = /^[A-Za-z0-9]+(?:[-_.][A-Za-z0-9]+)*$/;
const NOT_EXPIRED_REASON =
  "mem0's only filter on expiry is showExpired: false, which keeps expiration_date IS NULL OR >= today's 00:00 UTC (mem0 compares with the current UTC date)";

/** `YYYY-MM-DD` of a time in UTC, the format mem0's `expirationDate` requires. */
export function utcDate(time: Date): string {
  return time.toISOString().slice(0, 10);
}

/** 00:00 UTC of the day containing `time`. */
export function startOfUtcDay(time: Date): Date {
  return new Date(`${utcDate(time)}T00:00:00.000Z`);
}

/**
 * The expiry written on revoked facts: the UTC day before the earlier of the harness clock and the wall clock.
 * mem0 hides a memory iff its date is strictly before today's UTC date *on the wall clock at read time*
 * (stale-retrieval.md §11: the reference took "yesterday" from the local date and missed that east of UTC).
 */
export function revokedExpirationDate(now: Date, wallClock: Date = new Date()): string {
  return utcDate(new Date(Math.min(now.getTime(), wallClock.getTime()) - DAY_MS));
}

/**
 * The mem0 `userId` of a namespace: `<runId>__<namespace>` when both parts are plain (letters and digits joined
 * by single `-`, `_` or `.`); otherwise the part's other characters become `_` and a hash of it is appended, so
 * the id has no whitespace (mem0 rejects it) and distinct runs or namespaces do not collide.
 */
export function mem0UserId(runId: string, namespace: string): string {
  const part = (value: string): string =>
    PLAIN_PART.test(value)
      ? value
      : `${value.replace(/[^A-Za-z0-9]/g, '_')}_${createHash('sha256').update(value).digest('hex').slice(0, 8)}`;
  return `${part(runId)}__${part(namespace)}`;
}

/**
 * mem0's `showExpired: false` as a MemoryFilter: `expiration_date IS NULL OR expiration_date >= <today 00:00 UTC>`.
 * A date-only `YYYY-MM-DD` read as UTC midnight passes exactly when mem0 keeps it, so `compileFilterPredicate`
 * agrees with mem0 on every record. "Today" moves, so the filter is built at each read.
 */
export function notExpiredFilter(now: Date = new Date()): MemoryFilter {
  return { expiration_date: [[{ operator: 'IS NULL' }], [{ operator: '>=', date: startOfUtcDay(now) }]] };
}

/**
 * The `showExpired` value that applies `filter`: no constraint → `true`; `notExpiredFilter(now)` (groups in any
 * order) → `false`. Any other field, or an expiry test mem0 cannot express, throws `UnsupportedFeatureError`.
 */
export function showExpiredFor(filter: MemoryFilter, now: Date = new Date()): boolean {
  for (const [field, groups] of Object.entries(filter)) {
    if (groups !== undefined && field !== 'expiration_date') {
      throw new UnsupportedFeatureError(
        'mem0',
        `filter field ${field}`,
        'mem0 OSS memories carry no validity fields; expiration_date is the only status',
      );
    }
  }
  const groups = filter.expiration_date;
  if (groups === undefined) return true;
  const midnight = startOfUtcDay(now).getTime();
  const only = (group: DateFilter[] | undefined): DateFilter | undefined =>
    group?.length === 1 ? group[0] : undefined;
  const isNull = groups.filter((group) => only(group)?.operator === 'IS NULL').length;
  const fromToday = groups.filter(
    (group) => only(group)?.operator === '>=' && only(group)?.date?.getTime() === midnight,
  ).length;
  if (groups.length === 2 && isNull === 1 && fromToday === 1) return false;
  throw new UnsupportedFeatureError('mem0', `filter expiration_date ${JSON.stringify(groups)}`, NOT_EXPIRED_REASON);
}

const snakeCase = (key: string): string => key.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`);
const MAPPED = new Set(['id', 'memory', 'metadata', 'createdAt', 'updatedAt', 'score', 'hash']);

/**
 * A mem0 result as a record (§10.11 item 11): `memory` is the text; `createdAt` / `updatedAt` become `created_at` /
 * `updated_at`; `metadata.expiration_date` moves to the top level; `score`, `hash` and whatever else mem0 returns
 * (`user_id`, `attributedTo`, other metadata) follow in snake_case. The three dates are `null` when mem0 has none.
 */
export function toMem0Record(item: MemoryItem): MemoryRecord {
  const fields: Record<string, FieldValue> = {
    created_at: scalar(item.createdAt),
    updated_at: scalar(item.updatedAt),
    expiration_date: scalar(item.metadata?.expiration_date),
    score: scalar(item.score),
    hash: scalar(item.hash),
  };
  for (const [key, value] of Object.entries(item)) if (!MAPPED.has(key)) fields[snakeCase(key)] = scalar(value);
  for (const [key, value] of Object.entries(item.metadata ?? {})) {
    const name = snakeCase(key);
    if (!(name in fields)) fields[name] = scalar(value);
  }
  return { id: item.id, text: item.memory, fields };
}
