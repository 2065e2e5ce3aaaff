import { describe, expect, it } from 'vitest';
import { runVectorStoreConformance } from './vector-store.conformance.js';
import { compilePayloadFilter, createEmbeddedVectorStore } from './embedded-vector-store.js';

describe('compilePayloadFilter', () => {
  it('ANDs must conditions and excludes must_not matches, on dotted keys and arrays', () => {
    const twoConditions = compilePayloadFilter({
      must: [
        { key: 'run_id', match: { value: 'r1' } },
        { key: 'namespace', match: { value: 'a' } },
      ],
    });
    expect(twoConditions({ run_id: 'r1', namespace: 'a' })).toBe(true);
    expect(twoConditions({ run_id: 'r1', namespace: 'b' })).toBe(false);
    expect(twoConditions({ run_id: 'r2', namespace: 'a' })).toBe(false);
    expect(
      compilePayloadFilter({ must: [{ key: 'value.kind', match: { value: 'Memory' } }] })({
        value: { kind: 'Memory' },
      }),
    ).toBe(true);
    expect(compilePayloadFilter({ must: [{ key: 'tags', match: { any: ['y', 'z'] } }] })({ tags: ['x', 'y'] })).toBe(
      true,
    );
    expect(compilePayloadFilter({ must: [{ key: 'count', match: { value: '1' } }] })({ count: 1 })).toBe(false);
    const notDraft = compilePayloadFilter({ must_not: [{ key: 'status', match: { value: 'draft' } }] });
    expect(notDraft({ status: 'draft' })).toBe(false);
    expect(notDraft({})).toBe(true); // a missing key passes must_not and fails must
    expect(compilePayloadFilter({ must: [{ key: 'status', match: { any: [] } }] })({ status: 'x' })).toBe(false);
    expect(compilePayloadFilter()({ anything: true })).toBe(true);
  });
});

// The same contract checks a Qdrant server must pass (backends/qdrant-vector-store.test.ts).
runVectorStoreConformance({ name: 'embedded', create: () => createEmbeddedVectorStore() });
