// The VectorStore contract checks every store calls from its own test file (embedded, Qdrant).
import { afterEach, describe, expect, it } from 'vitest';
import { EvalError } from '#core/errors.js';
import type { VectorStore } from './vector-store.js';

/** Options of `runVectorStoreConformance`. */
export interface VectorStoreConformanceOptions {
  /** Suite title, usually the store id. */
  name: string;
  /** A new, unopened store over an EMPTY engine (a server store uses a collection prefix of its own). */
  create: () => VectorStore;
}

const id = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;
const near = (value: number) => expect.closeTo(value, 6); // Qdrant scores are 32-bit floats

/**
 * Registers the contract checks: exact cosine under filters, ties in first-upsert order (also at the limit
 * boundary and after overwrites), limit and zero vectors, copies, get/scroll order, deletes and errors.
 *
 * @example
 * runVectorStoreConformance({ name: 'embedded', create: () => createEmbeddedVectorStore() });
 */
export function runVectorStoreConformance(options: VectorStoreConformanceOptions): void {
  const opened: VectorStore[] = [];
  afterEach(async () => {
    await Promise.all(opened.splice(0).map((store) => store.close()));
  });
  const empty = async (dimensions = 3): Promise<VectorStore> => {
    const store = options.create();
    opened.push(store);
    await store.open();
    await store.ensureCollection('c', dimensions);
    return store;
  };
  const seeded = async (): Promise<VectorStore> => {
    const store = await empty();
    await store.upsert('c', [
      { id: id(1), vector: [1, 0, 0], payload: { run_id: 'r1', namespace: 'a', tags: ['x', 'y'] } },
      { id: id(2), vector: [0, 1, 0], payload: { run_id: 'r1', namespace: 'b', tags: [] } },
      { id: id(3), vector: [2, 0, 0], payload: { run_id: 'r2', namespace: 'a', nested: { kind: 'Memory' } } },
      { id: id(4), vector: [3, 4, 0], payload: { run_id: 'r1', namespace: 'a', count: 1 } },
    ]);
    return store;
  };
  const ids = (points: readonly { id: string }[]) => points.map((point) => point.id);

  describe(`${options.name} vector store: contract`, () => {
    it('ranks by exact cosine under a two-condition filter', async () => {
      const store = await seeded();
      const hits = await store.search({
        collection: 'c',
        vector: [1, 0, 0],
        limit: 10,
        filter: {
          must: [
            { key: 'run_id', match: { value: 'r1' } },
            { key: 'namespace', match: { value: 'a' } },
          ],
        },
      });
      expect(hits.map((hit) => [hit.id, hit.score])).toEqual([
        [id(1), near(1)],
        [id(4), near(0.6)],
      ]);
      expect(hits[0]?.payload).toEqual({ run_id: 'r1', namespace: 'a', tags: ['x', 'y'] });
    });

    it('breaks ties by first-upsert order, also after an overwrite, and re-inserted points go last', async () => {
      const store = await seeded();
      const tieOrder = async () => ids(await store.search({ collection: 'c', vector: [1, 0, 0], limit: 2 }));
      expect(await tieOrder()).toEqual([id(1), id(3)]); // both score 1
      await store.upsert('c', [{ id: id(1), vector: [5, 0, 0], payload: { run_id: 'r1' } }]);
      expect(await tieOrder()).toEqual([id(1), id(3)]);
      await store.delete('c', [id(1)]);
      await store.upsert('c', [{ id: id(1), vector: [1, 0, 0], payload: {} }]);
      expect(await tieOrder()).toEqual([id(3), id(1)]);
    });

    it('breaks ties across the limit boundary by first-upsert order, not by id', async () => {
      const store = await empty();
      const order = [9, 5, 7, 6, 8, 10, 11].map(id);
      await store.upsert(
        'c',
        order.map((pointId) => ({ id: pointId, vector: [0, 0, 1], payload: {} })),
      );
      await store.upsert('c', [{ id: id(1), vector: [0, 1, 1], payload: {} }]);
      expect(ids(await store.search({ collection: 'c', vector: [0, 0, 1], limit: 3 }))).toEqual(order.slice(0, 3));
      expect(ids(await store.search({ collection: 'c', vector: [0, 0, 1], limit: 8 }))).toEqual([...order, id(1)]);
    });

    it('honours limit, scores a zero vector 0, and returns copies', async () => {
      const store = await seeded();
      expect(await store.search({ collection: 'c', vector: [0, 1, 0], limit: 0 })).toEqual([]);
      expect((await store.search({ collection: 'c', vector: [0, 0, 0], limit: 10 })).map((hit) => hit.score)).toEqual([
        0, 0, 0, 0,
      ]);
      const [first] = await store.get('c', [id(1)]);
      if (first) first.payload.run_id = 'mutated';
      expect((await store.get('c', [id(1)]))[0]?.payload.run_id).toBe('r1');
    });

    it('gets in the order asked, scrolls in upsert order, deletes by ids or filter', async () => {
      const store = await seeded();
      expect(ids(await store.get('c', [id(3), id(9), id(1)]))).toEqual([id(3), id(1)]);
      expect(ids(await store.scroll('c', { must: [{ key: 'run_id', match: { value: 'r1' } }] }))).toEqual([
        id(1),
        id(2),
        id(4),
      ]);
      await store.delete('c', {
        must: [{ key: 'namespace', match: { value: 'a' } }],
        must_not: [{ key: 'run_id', match: { value: 'r2' } }],
      });
      expect(ids(await store.scroll('c'))).toEqual([id(2), id(3)]);
    });

    it('scrolls every point past one page, in upsert order', async () => {
      const store = await empty();
      const order = Array.from({ length: 600 }, (_, index) => id(600 - index));
      await store.upsert(
        'c',
        order.map((pointId, index) => ({ id: pointId, vector: [1, index, 0], payload: { index } })),
      );
      expect(ids(await store.scroll('c'))).toEqual(order);
      await store.delete('c', { must: [{ key: 'index', match: { any: [0, 599] } }] });
      expect((await store.scroll('c')).length).toBe(598);
    });

    it('lists collections by prefix and drops one with its points (a missing one is no error)', async () => {
      const store = await seeded();
      await store.ensureCollection('sb0000000a_run_langmem', 3);
      await store.ensureCollection('sb0000000a_run_cognee', 3);
      await store.ensureCollection('sb0000000b_run_langmem', 3);
      expect(await store.listCollections('sb0000000a_')).toEqual(['sb0000000a_run_cognee', 'sb0000000a_run_langmem']);
      expect(await store.listCollections('')).toEqual([
        'c',
        'sb0000000a_run_cognee',
        'sb0000000a_run_langmem',
        'sb0000000b_run_langmem',
      ]);
      await store.dropCollection('sb0000000a_run_langmem');
      await store.dropCollection('sb0000000a_run_langmem');
      expect(await store.listCollections('sb')).toEqual(['sb0000000a_run_cognee', 'sb0000000b_run_langmem']);
      await expect(store.scroll('sb0000000a_run_langmem')).rejects.toMatchObject({ code: 'vector-collection-missing' });
      expect(ids(await store.scroll('c'))).toEqual([id(1), id(2), id(3), id(4)]);
      await store.ensureCollection('sb0000000a_run_langmem', 5); // dropped means gone: other dimensions are fine now
    });

    it('rejects bad ids, wrong dimensions, unknown collections and use before open', async () => {
      const store = await seeded();
      await expect(store.upsert('c', [{ id: 'not-a-uuid', vector: [1, 0, 0], payload: {} }])).rejects.toMatchObject({
        code: 'vector-invalid-id',
      });
      await expect(store.upsert('c', [{ id: id(5), vector: [1, 0], payload: {} }])).rejects.toMatchObject({
        code: 'vector-dimension-mismatch',
      });
      await expect(store.ensureCollection('c', 4)).rejects.toMatchObject({ code: 'vector-dimension-mismatch' });
      await expect(store.scroll('missing')).rejects.toMatchObject({ code: 'vector-collection-missing' });
      await store.close();
      await expect(store.scroll('c')).rejects.toBeInstanceOf(EvalError);
    });
  });
}
