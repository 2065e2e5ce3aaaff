import { describe, expect, it } from 'vitest';
import { InvalidInputError } from '#core/errors.js';
import { compileCypherFilter } from './neo4j-filter-query.js';
import type { MemoryFilter } from './memory-filter.js';

const JAN = new Date('2026-01-01T00:00:00.000Z');
const FEB = new Date('2026-02-01T00:00:00.000Z');
const MAR = new Date('2026-03-01T00:00:00.000Z');

describe('compileCypherFilter', () => {
  it("compiles the paper's store filter and an absent filter", () => {
    expect(compileCypherFilter({ expired_at: [[{ operator: 'IS NULL' }]] })).toEqual({
      where: '((e.expired_at IS NULL))',
      parameters: {},
    });
    expect(compileCypherFilter(undefined)).toEqual({ where: 'true', parameters: {} });
    expect(compileCypherFilter({ valid_at: undefined })).toEqual({ where: 'true', parameters: {} });
  });

  it('gives two OR groups on one field their own parameters (Graphiti would bind valid_at_0 twice)', () => {
    const filter: MemoryFilter = {
      valid_at: [
        [
          { operator: '>=', date: JAN },
          { operator: '<', date: FEB },
        ],
        [{ operator: '>', date: MAR }],
      ],
    };
    expect(compileCypherFilter(filter)).toEqual({
      where: '((e.valid_at >= $valid_at_0_0 AND e.valid_at < $valid_at_0_1) OR (e.valid_at > $valid_at_1_0))',
      parameters: { valid_at_0_0: JAN, valid_at_0_1: FEB, valid_at_1_0: MAR },
    });
  });

  it('ANDs two fields, each with OR groups, and converts dates with toParameter', () => {
    const filter: MemoryFilter = {
      invalid_at: [[{ operator: 'IS NULL' }], [{ operator: '>', date: FEB }]],
      created_at: [[{ operator: '<=', date: JAN }], [{ operator: '=', date: MAR }, { operator: 'IS NOT NULL' }]],
    };
    const compiled = compileCypherFilter(filter, { variable: 'rel', toParameter: (date) => date.toISOString() });
    expect(compiled.where).toBe(
      '((rel.invalid_at IS NULL) OR (rel.invalid_at > $invalid_at_1_0))' +
        ' AND ((rel.created_at <= $created_at_0_0) OR (rel.created_at = $created_at_1_0 AND rel.created_at IS NOT NULL))',
    );
    expect(compiled.parameters).toEqual({
      invalid_at_1_0: '2026-02-01T00:00:00.000Z',
      created_at_0_0: '2026-01-01T00:00:00.000Z',
      created_at_1_0: '2026-03-01T00:00:00.000Z',
    });
    // Every placeholder in the query has exactly one value, and no value is unused.
    const placeholders = [...compiled.where.matchAll(/\$(\w+)/g)].map((match) => match[1]);
    expect(new Set(placeholders).size).toBe(placeholders.length);
    expect(placeholders.sort()).toEqual(Object.keys(compiled.parameters).sort());
  });

  it('keeps the predicate semantics of empty lists and comparisons without a date', () => {
    expect(compileCypherFilter({ expired_at: [] }).where).toBe('(false)');
    expect(compileCypherFilter({ expired_at: [[]] }).where).toBe('((true))');
    expect(
      compileCypherFilter({ valid_at: [[{ operator: '>' }], [{ operator: '<', date: new Date(Number.NaN) }]] }),
    ).toEqual({
      where: '((false) OR (false))',
      parameters: {},
    });
  });

  it('refuses names that are not Cypher identifiers and unknown operators', () => {
    const injected = { 'valid_at) OR (true': [[{ operator: 'IS NULL' }]] } as unknown as MemoryFilter;
    expect(() => compileCypherFilter(injected)).toThrow(InvalidInputError);
    expect(() => compileCypherFilter({}, { variable: 'e.x' })).toThrow(InvalidInputError);
    const unknown = { valid_at: [[{ operator: 'LIKE', date: JAN }]] } as unknown as MemoryFilter;
    expect(() => compileCypherFilter(unknown)).toThrow(/unknown comparison operator "LIKE"/);
  });
});
