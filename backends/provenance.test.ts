// The provenance resolver: revoked wins, unknown fails closed, loops and missing records are unknown.
import { describe, expect, it } from 'vitest';
import { UnsupportedFeatureError } from '#core/errors.js';
import { createProvenanceResolver, refuseProvenance, taintFiltersOut } from './provenance.js';

const graph = (revoked: Record<string, boolean>, lists: Record<string, readonly string[] | null>) =>
  createProvenanceResolver({
    revoked: (id) => revoked[id],
    derivedFrom: (id) => (Object.hasOwn(lists, id) ? lists[id] : undefined),
  });

describe('createProvenanceResolver', () => {
  it('resolves direct, transitive, unknown and looping provenance', () => {
    const status = graph(
      { v1: true, v2: false, j1: false, j2: false, j3: false, j4: false, j5: false, j6: false, a: false, b: false },
      {
        j1: ['v1', 'v2'],
        j2: ['j1'],
        j3: ['v2'],
        j4: null,
        j5: ['v2', 'gone'],
        j6: ['gone', 'v1'],
        a: ['b'],
        b: ['a'],
      },
    );
    expect(status('v2')).toBeNull();
    expect(status('j1')).toBe('revoked');
    expect(status('j2')).toBe('revoked');
    expect(status('j3')).toBe('clean');
    expect(status('j4')).toBe('unknown');
    expect(status('j5')).toBe('unknown');
    expect(status('j6')).toBe('revoked'); // a revoked source decides, whatever else is unknown
    expect(status('a')).toBe('unknown');
    expect([null, 'clean', 'revoked', 'unknown'].map((s) => taintFiltersOut(s as never))).toEqual([
      false,
      false,
      true,
      true,
    ]);
  });

  it('an empty context is clean; refusal names the feature', () => {
    expect(graph({}, { j: [] })('j')).toBe('clean');
    const request = { namespace: 'n', query: 'q', limit: 1, taint: true };
    expect(() => refuseProvenance('langmem', request, 'no place for it')).toThrow(UnsupportedFeatureError);
    expect(() => refuseProvenance('langmem', { namespace: 'n', query: 'q', limit: 1 }, 'x')).not.toThrow();
  });
});
