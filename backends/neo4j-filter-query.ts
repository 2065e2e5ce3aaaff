// Compiles a MemoryFilter into one Cypher WHERE fragment plus parameters (the only filter compiler for Neo4j).
import { InvalidInputError } from '#core/errors.js';
import type { DateFilter, MemoryFilter } from './memory-filter.js';

/** A compiled filter: `where` is `true` for an empty filter, so it can always be AND-ed into a query. */
export interface CypherFilter {
  /** Boolean Cypher expression over the variable, e.g. `((e.expired_at IS NULL))`. */
  where: string;
  /** Parameter values by name (without `$`); every name is unique within one compiled filter. */
  parameters: Record<string, unknown>;
}

/** Options of `compileCypherFilter`. */
export interface CypherFilterOptions {
  /** Cypher variable the filtered properties belong to; Graphiti's edge queries use `e`. */
  variable?: string;
  /** Converts a comparison date into the driver value to bind (Neo4j `DateTime`); identity by default. */
  toParameter?: (date: Date) => unknown;
}

const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]*$/;
const OPERATORS = new Set(['=', '<>', '>', '<', '>=', '<=']);

/**
 * Compiles `filter` with the semantics of `compileFilterPredicate`: per field the groups are OR-ed and the
 * comparisons inside a group AND-ed; present fields are AND-ed. A comparison binds `$<field>_<group>_<index>`,
 * so two OR groups never share a parameter (Graphiti names them `<field>_<index>` and the second group
 * overwrites the first, memory-systems.md §2.4); the last two `_`-separated parts are digits, which makes
 * the names unique across fields too. An empty outer list compiles to `false`, an empty group to `true`,
 * and a comparison without a valid `date` to `false` (Cypher would compare with null).
 *
 * @example
 * compileCypherFilter({ invalid_at: [[{ operator: 'IS NULL' }], [{ operator: '>', date: now }]] });
 * // { where: '((e.invalid_at IS NULL) OR (e.invalid_at > $invalid_at_1_0))', parameters: { invalid_at_1_0: now } }
 */
export function compileCypherFilter(filter: MemoryFilter | undefined, options: CypherFilterOptions = {}): CypherFilter {
  const variable = options.variable ?? 'e';
  const toParameter = options.toParameter ?? ((date: Date) => date);
  const entries = Object.entries(filter ?? {}).filter(
    (entry): entry is [string, DateFilter[][]] => entry[1] !== undefined,
  );
  const invalid = [variable, ...entries.map(([field]) => field)].filter((name) => !IDENTIFIER.test(name));
  if (invalid.length > 0) {
    throw new InvalidInputError(
      'Cypher filter',
      invalid.map((name) => ({ path: name, message: 'is not a Cypher identifier' })),
    );
  }
  const parameters: Record<string, unknown> = {};
  const fieldClauses = entries.map(([field, groups]) => {
    const property = `${variable}.${field}`;
    const alternatives = groups.map((group, groupIndex) => {
      const comparisons = group.map((dateFilter, index) => {
        const name = `${field}_${groupIndex}_${index}`;
        const clause = compileComparison(property, name, dateFilter);
        if (clause.includes(`$${name}`) && dateFilter.date) parameters[name] = toParameter(dateFilter.date);
        return clause;
      });
      return comparisons.length === 0 ? 'true' : comparisons.join(' AND ');
    });
    return alternatives.length === 0 ? '(false)' : `(${alternatives.map((clause) => `(${clause})`).join(' OR ')})`;
  });
  return { where: fieldClauses.length === 0 ? 'true' : fieldClauses.join(' AND '), parameters };
}

function compileComparison(property: string, name: string, dateFilter: DateFilter): string {
  const { operator } = dateFilter;
  if (operator === 'IS NULL' || operator === 'IS NOT NULL') return `${property} ${operator}`;
  if (!OPERATORS.has(operator)) throw new TypeError(`unknown comparison operator "${String(operator)}"`);
  const time = dateFilter.date?.getTime();
  if (time === undefined || Number.isNaN(time)) return 'false';
  return `${property} ${operator} $${name}`;
}
