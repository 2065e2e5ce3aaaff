import { describe, expect, it } from 'vitest';
import { UnsupportedFeatureError } from '#core/errors.js';
import { compileQdrantFilter } from './qdrant-filter.js';

describe('compileQdrantFilter', () => {
  it('compiles two must conditions and a must_not into Qdrant field matches', () => {
    expect(
      compileQdrantFilter({
        must: [
          { key: 'run_id', match: { value: 'r1' } },
          { key: 'namespace', match: { value: 'a' } },
        ],
        must_not: [{ key: 'status', match: { value: 'draft' } }],
      }),
    ).toEqual({
      must: [
        { key: 'run_id', match: { value: 'r1' } },
        { key: 'namespace', match: { value: 'a' } },
      ],
      must_not: [{ key: 'status', match: { value: 'draft' } }],
    });
  });

  it('keeps dotted keys, integers and booleans as Qdrant values, and an empty filter passes everything', () => {
    expect(
      compileQdrantFilter({
        must: [
          { key: 'value.kind', match: { value: 'Memory' } },
          { key: 'count', match: { value: 1 } },
          { key: 'ok', match: { value: false } },
        ],
      }),
    ).toEqual({
      must: [
        { key: 'value.kind', match: { value: 'Memory' } },
        { key: 'count', match: { value: 1 } },
        { key: 'ok', match: { value: false } },
      ],
    });
    expect(compileQdrantFilter()).toEqual({});
    expect(compileQdrantFilter({ must: [], must_not: [] })).toEqual({});
  });

  it('sends a single-typed any list as MatchAny', () => {
    expect(
      compileQdrantFilter({
        must: [{ key: 'tags', match: { any: ['y', 'z'] } }],
        must_not: [{ key: 'n', match: { any: [1, 2] } }],
      }),
    ).toEqual({
      must: [{ key: 'tags', match: { any: ['y', 'z'] } }],
      must_not: [{ key: 'n', match: { any: [1, 2] } }],
    });
  });

  it('splits a mixed any list: ORed under must, one condition each under must_not', () => {
    const mixed = { key: 'v', match: { any: ['a', 1, true, 'b', true] } } as const;
    const parts = [
      { key: 'v', match: { any: ['a', 'b'] } },
      { key: 'v', match: { any: [1] } },
      { key: 'v', match: { value: true } },
    ];
    expect(compileQdrantFilter({ must: [mixed] })).toEqual({ must: [{ should: parts }] });
    expect(compileQdrantFilter({ must_not: [mixed] })).toEqual({ must_not: parts });
  });

  it('compiles an empty any list to "no point" under must and drops it under must_not', () => {
    expect(compileQdrantFilter({ must: [{ key: 'status', match: { any: [] } }] })).toEqual({ must: [{ has_id: [] }] });
    expect(compileQdrantFilter({ must_not: [{ key: 'status', match: { any: [] } }] })).toEqual({});
  });

  it('refuses non-integer numbers, which Qdrant cannot match', () => {
    expect(() => compileQdrantFilter({ must: [{ key: 'score', match: { value: 0.5 } }] })).toThrow(
      UnsupportedFeatureError,
    );
    expect(() => compileQdrantFilter({ must_not: [{ key: 'score', match: { any: ['a', Number.NaN] } }] })).toThrow(
      /score/,
    );
  });
});
