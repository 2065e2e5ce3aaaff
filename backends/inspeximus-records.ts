// inspeximus results as stalebench records and stalebench reads as recall() switches: the field names, the store
// filter, the metadata filter, and the directory a namespace lives in.
import { createHash } from 'node:crypto';
import { UnsupportedFeatureError } from '#core/errors.js';
import type { FieldValue, MemoryRecord, SearchRequest, StoredRecord } from './memory-backend.js';
import type { MemoryFilter } from './memory-filter.js';
import { fieldValueOf as scalar } from './field-value.js';

/** A recall() result as the library returns it (only the members read here are typed). */
export interface RecallItem {
  /** The library's record id. */
  id: string;
  /** The remembered text, verbatim. */
  text: string;
  /** Write time, `YYYY-MM-DDTHH:MM:SSZ`. */
  iso?: string;
  /** Present (true) only on a retired row returned by `include_superseded=True`. */
  superseded?: boolean;
  [field: string]: unknown;
}

/** A row of the `list` op (the store's `items`). */
export interface ListedItem {
  /** The library's record id. */
  id: string;
  /** The remembered text, verbatim. */
  text: string;
  /** The correction key it was written under, or null. */
  key: string | null;
  /** The library's status (`active`, `superseded`, ...). */
  status: string;
  /** Write time, `YYYY-MM-DDTHH:MM:SSZ`. */
  iso: string | null;
  /** When the fact became true, epoch seconds (the harness sets it). */
  valid_from: number | null;
  /** When a correction retired it, epoch seconds, or null. */
  invalidated_at: number | null;
}

/** The recall() switches a read sets. */
export interface RecallOptions {
  /** Return rows a keyed correction retired (marked `superseded: true`). */
  include_superseded: boolean;
  /** Also withhold active records restating a retired value (the filtered read). */
  suppress_stale_values?: true;
  /** Writer-metadata conditions, matched against each record's `meta`. */
  where?: Record<string, FieldValue>;
}

/**
 * The store filter of every inspeximus configuration: no record the library retired (`invalidated_at IS NULL`).
 * Applied as `include_superseded=False, suppress_stale_values=True`, the library's two read-time switches that hide
 * retired values; the second also withholds an active record restating a retired value, which no field marks.
 */
export const NOT_SUPERSEDED: MemoryFilter = { invalidated_at: [[{ operator: 'IS NULL' }]] };

// A record's own attributes: recall(where=...) matches these before the meta dict, so a writer key named like one
// of them would be compared with the library's attribute instead (its docstring; the store's `items`).
const RECORD_ATTRIBUTES = new Set([
  'id',
  'invalidated_at',
  'iso',
  'key',
  'last_access',
  'links',
  'meta',
  'mtype',
  'mtype_inferred',
  'nonce',
  'source',
  'status',
  'superseded_ts',
  'tags',
  'text',
  'ts',
  'valid_from',
  'value',
]);

/**
 * The recall() switches of a read: the configuration's default (`include_superseded` as given), or the store filter;
 * writer metadata conditions go to `where`. Any other filter throws `UnsupportedFeatureError`.
 */
export function recallOptions(
  system: string,
  request: Pick<SearchRequest, 'filter' | 'metadataFilter'>,
  includeSuperseded: boolean,
): RecallOptions {
  const where = request.metadataFilter === undefined ? {} : { where: metadataWhere(system, request.metadataFilter) };
  const filter = request.filter;
  if (filter === undefined) return { include_superseded: includeSuperseded, ...where };
  const constrained = Object.entries(filter).filter(([, groups]) => groups !== undefined);
  if (constrained.length === 0) return { include_superseded: true, ...where };
  if (JSON.stringify(filter) === JSON.stringify(NOT_SUPERSEDED))
    return { include_superseded: false, suppress_stale_values: true, ...where };
  throw new UnsupportedFeatureError(
    system,
    `filter ${JSON.stringify(filter)}`,
    'inspeximus records carry no validity dates to compare; its only read filter hides retired records (invalidated_at IS NULL)',
  );
}

function metadataWhere(system: string, conditions: Readonly<Record<string, FieldValue>>): Record<string, FieldValue> {
  const clashing = Object.keys(conditions).filter((name) => RECORD_ATTRIBUTES.has(name));
  if (clashing.length > 0)
    throw new UnsupportedFeatureError(
      system,
      `metadata filter on ${clashing.join(', ')}`,
      "recall(where=...) compares a record's own attribute of that name, not the writer metadata",
    );
  return { ...conditions };
}

const isoOfSeconds = (seconds: unknown): string | null =>
  typeof seconds === 'number' && Number.isFinite(seconds) ? new Date(seconds * 1000).toISOString() : null;

/**
 * A recall() result as a record: `iso` (the write time) becomes `created_at`; `superseded`, `key` and `stale_derived`
 * keep their names and appear only when the library sets them; a superseded row also gets `invalidated_at`, the time
 * `history(key)` gives for its retirement (the guard's stage 1 reads that name; `superseded` it does not know).
 * Everything else the library returns follows as is (objects as JSON).
 */
export function toInspeximusRecord(item: RecallItem, invalidatedAt: number | null | undefined): MemoryRecord {
  const fields: Record<string, FieldValue> = {};
  for (const [name, value] of Object.entries(item)) {
    if (name === 'id' || name === 'text') continue;
    fields[name === 'iso' ? 'created_at' : name] = scalar(value);
  }
  if (item.superseded === true) fields.invalidated_at = isoOfSeconds(invalidatedAt) ?? true;
  return { id: item.id, text: item.text, fields };
}

/** A listed row as a stored record: revoked iff the library holds it superseded. */
export function toStoredRecord(item: ListedItem): StoredRecord {
  const fields: Record<string, FieldValue> = {
    created_at: item.iso,
    valid_from: isoOfSeconds(item.valid_from),
    status: item.status,
  };
  if (item.key) fields.key = item.key;
  if (item.status === 'superseded') fields.invalidated_at = isoOfSeconds(item.invalidated_at) ?? true;
  return { record: { id: item.id, text: item.text, fields }, revoked: item.status === 'superseded' };
}

/** A name as one plain directory name: itself when plain, else its other characters as `_` plus a hash (no collisions). */
export function directoryName(name: string): string {
  if (/^[A-Za-z0-9]+(?:[-_.][A-Za-z0-9]+)*$/.test(name) && name.length <= 100) return name;
  return `${name.replace(/[^A-Za-z0-9]/g, '_').slice(0, 80)}_${createHash('sha256').update(name).digest('hex').slice(0, 12)}`;
}
