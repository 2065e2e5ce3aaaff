// Compiles a MemoryFilter into an in-process predicate with Cypher's null semantics (one compiler for all fields).
import type { ComparisonOperator, DateFilter, MemoryFilter } from './memory-filter.js';

/** A stored record's date fields, by stored property name; strings are parsed as ISO-8601 dates. */
export type FilterFields = Record<string, Date | string | null | undefined>;

/** A compiled filter: true when the record passes every constrained field. */
export type FilterPredicate = (fields: FilterFields) => boolean;

/**
 * Compiles `filter` once. Per field the groups are OR-ed and the comparisons inside a group AND-ed; every
 * present field must pass. As in Cypher, `IS NULL` holds for a missing or null value, and any comparison
 * with a null value (or a filter without `date`) is false. An empty outer list matches nothing (an OR of
 * no groups, where Graphiti would emit invalid Cypher); an empty inner group matches everything.
 *
 * Each comparison closes over its own date, so two OR groups that both bind dates cannot collide, unlike
 * Graphiti's `<field>_<j>` parameter names (memory-systems.md §2.4).
 *
 * @example
 * const validNow = compileFilterPredicate({ invalid_at: [[{ operator: 'IS NULL' }], [{ operator: '>', date: now }]] });
 * validNow({ invalid_at: null }); // true
 */
export function compileFilterPredicate(filter: MemoryFilter): FilterPredicate {
  const fieldTests = Object.entries(filter)
    .filter((entry): entry is [string, DateFilter[][]] => entry[1] !== undefined)
    .map(([field, groups]) => {
      const compiledGroups = groups.map((group) => group.map(compileComparison));
      return (fields: FilterFields): boolean => {
        const value = toTime(fields[field]);
        return compiledGroups.some((group) => group.every((comparison) => comparison(value)));
      };
    });
  return (fields) => fieldTests.every((test) => test(fields));
}

/** `null` stands for a missing value; an unparsable string counts as present but incomparable (NaN). */
function toTime(value: Date | string | null | undefined): number | null {
  if (value === null || value === undefined) return null;
  return value instanceof Date ? value.getTime() : Date.parse(value);
}

function compileComparison(dateFilter: DateFilter): (value: number | null) => boolean {
  const { operator } = dateFilter;
  if (operator === 'IS NULL') return (value) => value === null;
  if (operator === 'IS NOT NULL') return (value) => value !== null;
  const right = dateFilter.date?.getTime();
  if (right === undefined || Number.isNaN(right)) return () => false;
  const compare = COMPARATORS[operator];
  if (compare === undefined) throw new TypeError(`unknown comparison operator "${String(operator)}"`);
  return (value) => value !== null && !Number.isNaN(value) && compare(value, right);
}

const COMPARATORS: Record<Exclude<ComparisonOperator, 'IS NULL' | 'IS NOT NULL'>, (a: number, b: number) => boolean> = {
  '=': (a, b) => a === b,
  '<>': (a, b) => a !== b,
  '>': (a, b) => a > b,
  '<': (a, b) => a < b,
  '>=': (a, b) => a >= b,
  '<=': (a, b) => a <= b,
};
