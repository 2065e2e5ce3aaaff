// Compiles a PayloadFilter into a Qdrant `Filter` object: the only place Qdrant filters are built.
import { UnsupportedFeatureError } from '#core/errors.js';
import type { MatchCondition, PayloadFilter, PayloadScalar } from './vector-store.js';

/** A Qdrant `FieldCondition` with `match`: `{value}` (keyword, integer, bool) or `{any}` (keywords or integers). */
export interface QdrantFieldCondition {
  /** Dotted payload path, as in the PayloadFilter. */
  key: string;
  /** Qdrant `MatchValue` or `MatchAny`. */
  match: { value: string | number | boolean } | { any: string[] | number[] };
}

/** A compiled condition: a field match, a nested OR (`{should}`), or `{has_id: []}`, which no point passes. */
export type QdrantCondition = QdrantFieldCondition | { should: QdrantFieldCondition[] } | { has_id: string[] };

/** A Qdrant `Filter`: every `must` condition holds and no `must_not` condition holds; `{}` passes every point. */
export interface QdrantFilter {
  /** Conditions that must all hold. */
  must?: QdrantCondition[];
  /** Conditions none of which may hold. */
  must_not?: QdrantCondition[];
}

// An empty `has_id` set matches no point. Empty `match.any` and empty `should` lists have changed meaning
// across Qdrant versions (qdrant/qdrant#554, #2803), so they are never sent.
const NO_POINT: QdrantCondition = { has_id: [] };

/**
 * Compiles a `PayloadFilter` with the embedded store's semantics (`compilePayloadFilter`). `{value}` becomes
 * Qdrant's `MatchValue`. Qdrant's `MatchAny` takes only all-keyword or all-integer lists, so `{any}` is split by
 * type: in `must` the parts are ORed in a nested `{should}` filter; in `must_not` each part is its own condition
 * (not (a or b) = not a and not b). An empty `{any}` fails a `must` and is dropped from `must_not`.
 * Non-integer numbers cannot be matched by Qdrant and throw `UnsupportedFeatureError`.
 *
 * @example
 * compileQdrantFilter({ must: [{ key: 'run_id', match: { value: 'r1' } }], must_not: [{ key: 'status', match: { any: ['draft'] } }] });
 * // { must: [{ key: 'run_id', match: { value: 'r1' } }], must_not: [{ key: 'status', match: { any: ['draft'] } }] }
 */
export function compileQdrantFilter(filter: PayloadFilter = {}): QdrantFilter {
  const must = (filter.must ?? []).map((condition): QdrantCondition => {
    const parts = alternatives(condition);
    if (parts.length === 0) return NO_POINT;
    return parts.length === 1 && parts[0] ? parts[0] : { should: parts };
  });
  const mustNot = (filter.must_not ?? []).flatMap(alternatives);
  return { ...(must.length > 0 ? { must } : {}), ...(mustNot.length > 0 ? { must_not: mustNot } : {}) };
}

/** The field conditions whose OR is the given condition. */
function alternatives({ key, match }: MatchCondition): QdrantFieldCondition[] {
  if ('value' in match) return [{ key, match: { value: checked(key, match.value) } }];
  const values = match.any.map((value) => checked(key, value));
  const keywords = values.filter((value): value is string => typeof value === 'string');
  const integers = values.filter((value): value is number => typeof value === 'number');
  const booleans = [...new Set(values.filter((value): value is boolean => typeof value === 'boolean'))];
  return [
    ...(keywords.length > 0 ? [{ key, match: { any: keywords } }] : []),
    ...(integers.length > 0 ? [{ key, match: { any: integers } }] : []),
    ...booleans.map((value) => ({ key, match: { value } })),
  ];
}

function checked(key: string, value: PayloadScalar): PayloadScalar {
  if (typeof value === 'number' && !Number.isSafeInteger(value)) {
    throw new UnsupportedFeatureError(
      'qdrant',
      `matching payload key "${key}" on the number ${value}`,
      'Qdrant matches keywords, integers and booleans only',
    );
  }
  return value;
}
