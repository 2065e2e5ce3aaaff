import { describe, expect, it } from 'vitest';
import { EvalError } from '../pipeline/errors.js';
import { compilePayloadFilter, createEmbeddedVectorStore } from './embedded-vector-store.js';
import type { VectorStore } from './vector-store.js';

const id = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;

async function seeded(): Promise<VectorStore> {
  const store = createEmbeddedVectorStore();
  await store.open();
  await store.ensureCollection('c', 3);
  await store.upsert('c', [
    { id: id(1), vector: [1, 0, 0], payload: { run_id: 'r1', namespace: 'a', tags: ['x', 'y'] } },
    { id: id(2), vector: [0, 1, 0], payload: { run_id: 'r1', namespace: 'b', tags: [] } },
    { id: id(3), vector: [2, 0, 0], payload: { run_id: 'r2', namespace: 'a', nested: { kind: 'Memory' } } },
    { id: id(4), vector: [3, 4, 0], payload: { run_id: 'r1', namespace: 'a', count: 1 } },
  ]);
  return store;
}

describe('compilePayloadFilter', () => {
  it('ANDs must conditions and excludes must_not matches, on dotted keys and arrays', () => {
    const twoConditions = compilePayloadFilter({ must: [{ key: 'run_id', match: { value: 'r1' } }, { key: 'namespace', match: { value: 'a' } }] });
    expect(twoConditions({ run_id: 'r1', namespace: 'a' })).toBe(true);
    expect(twoConditions({ run_id: 'r1', namespace: 'b' })).toBe(false);
    expect(twoConditions({ run_id: 'r2', namespace: 'a' })).toBe(false);
    expect(compilePayloadFilter({ must: [{ key: 'value.kind', match: { value: 'Memory' } }] })({ value: { kind: 'Memory' } })).toBe(true);
    expect(compilePayloadFilter({ must: [{ key: 'tags', match: { any: ['y', 'z'] } }] })({ tags: ['x', 'y'] })).toBe(true);
    expect(compilePayloadFilter({ must: [{ key: 'count', match: { value: '1' } }] })({ count: 1 })).toBe(false);
    const notDraft = compilePayloadFilter({ must_not: [{ key: 'status', match: { value: 'draft' } }] });
    expect(notDraft({ status: 'draft' })).toBe(false);
    expect(notDraft({})).toBe(true); // a missing key passes must_not and fails must
    expect(compilePayloadFilter({ must: [{ key: 'status', match: { any: [] } }] })({ status: 'x' })).toBe(false);
    expect(compilePayloadFilter()({ anything: true })).toBe(true);
  });
});

describe('embedded vector store', () => {
  it('ranks by exact cosine under a two-condition filter', async () => {
    const store = await seeded();
    const hits = await store.search({
      collection: 'c', vector: [1, 0, 0], limit: 10,
      filter: { must: [{ key: 'run_id', match: { value: 'r1' } }, { key: 'namespace', match: { value: 'a' } }] },
    });
    expect(hits.map((hit) => [hit.id, hit.score])).toEqual([[id(1), 1], [id(4), 0.6]]);
  });

  it('breaks ties by first-upsert order, also after an overwrite, and re-inserted points go last', async () => {
    const store = await seeded();
    const tieOrder = async () => (await store.search({ collection: 'c', vector: [1, 0, 0], limit: 2 })).map((hit) => hit.id);
    expect(await tieOrder()).toEqual([id(1), id(3)]); // both score 1
    await store.upsert('c', [{ id: id(1), vector: [5, 0, 0], payload: { run_id: 'r1' } }]);
    expect(await tieOrder()).toEqual([id(1), id(3)]);
    await store.delete('c', [id(1)]);
    await store.upsert('c', [{ id: id(1), vector: [1, 0, 0], payload: {} }]);
    expect(await tieOrder()).toEqual([id(3), id(1)]);
  });

  it('honours limit, scores a zero vector 0, and returns copies', async () => {
    const store = await seeded();
    expect(await store.search({ collection: 'c', vector: [0, 1, 0], limit: 0 })).toEqual([]);
    expect((await store.search({ collection: 'c', vector: [0, 0, 0], limit: 10 })).map((hit) => hit.score)).toEqual([0, 0, 0, 0]);
    const [first] = await store.get('c', [id(1)]);
    if (first) first.payload.run_id = 'mutated';
    expect((await store.get('c', [id(1)]))[0]?.payload.run_id).toBe('r1');
  });

  it('gets in the order asked, scrolls in upsert order, deletes by ids or filter', async () => {
    const store = await seeded();
    expect((await store.get('c', [id(3), id(9), id(1)])).map((point) => point.id)).toEqual([id(3), id(1)]);
    expect((await store.scroll('c', { must: [{ key: 'run_id', match: { value: 'r1' } }] })).map((point) => point.id)).toEqual([id(1), id(2), id(4)]);
    await store.delete('c', { must: [{ key: 'namespace', match: { value: 'a' } }], must_not: [{ key: 'run_id', match: { value: 'r2' } }] });
    expect((await store.scroll('c')).map((point) => point.id)).toEqual([id(2), id(3)]);
  });

  it('rejects bad ids, wrong dimensions, unknown collections and use before open', async () => {
    const store = await seeded();
    await expect(store.upsert('c', [{ id: 'not-a-uuid', vector: [1, 0, 0], payload: {} }])).rejects.toMatchObject({ code: 'vector-invalid-id' });
    await expect(store.upsert('c', [{ id: id(5), vector: [1, 0], payload: {} }])).rejects.toMatchObject({ code: 'vector-dimension-mismatch' });
    await expect(store.ensureCollection('c', 4)).rejects.toMatchObject({ code: 'vector-dimension-mismatch' });
    await expect(store.scroll('missing')).rejects.toMatchObject({ code: 'vector-collection-missing' });
    await store.close();
    await expect(store.scroll('c')).rejects.toBeInstanceOf(EvalError);
  });
});
