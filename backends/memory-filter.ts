// Validity filters as data, in Graphiti's shape: outer list = OR, inner list = AND.

/** Comparison applied to one date-valued field of a stored record. */
export type ComparisonOperator = '=' | '<>' | '>' | '<' | '>=' | '<=' | 'IS NULL' | 'IS NOT NULL';

/** One comparison. `date` is required for every operator except `IS NULL` / `IS NOT NULL`. */
export interface DateFilter {
  /** The comparison to apply. */
  operator: ComparisonOperator;
  /** The right-hand side; ignored by the null tests. */
  date?: Date;
}

/** The date fields a filter can constrain. Names follow the stored property names of Graphiti / mem0 / inspeximus. */
const FILTER_FIELDS = [
  'valid_at',
  'invalid_at',
  'expired_at',
  'created_at',
  'expiration_date',
  'invalidated_at',
] as const;
export type FilterField = (typeof FILTER_FIELDS)[number];

/**
 * A read filter. Each present field is `DateFilter[][]`: the record passes the field when ANY inner group
 * passes, and an inner group passes when ALL its comparisons hold. All present fields must pass.
 * A backend that cannot apply a field throws `UnsupportedFeatureError` instead of ignoring it.
 *
 * @example
 * // Graphiti's "not yet expired" (the paper's store-filter arm): expired_at IS NULL
 * const notExpired: MemoryFilter = { expired_at: [[{ operator: 'IS NULL' }]] };
 * // valid now: invalid_at IS NULL OR invalid_at > now
 * const validNow: MemoryFilter = { invalid_at: [[{ operator: 'IS NULL' }], [{ operator: '>', date: now }]] };
 */
export type MemoryFilter = Partial<Record<FilterField, DateFilter[][]>>;
