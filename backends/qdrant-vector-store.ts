// VectorStore on a Qdrant server (REST, Qdrant 1.10+ for the query API); @qdrant/js-client-rest is imported on open().
import type { QdrantClient, Schemas } from '@qdrant/js-client-rest';
import { EvalError } from '#core/errors.js';
import { createQdrantClient, probeQdrant, qdrantRequest, type QdrantEndpoint } from './qdrant-connection.js';
import { compileQdrantFilter } from './qdrant-filter.js';
import { byRank, checkId, checkVector, isIdList, QDRANT_RANK_KEY, rankOf, toHit, toPoint } from './qdrant-points.js';
import type { PayloadFilter, VectorStore } from './vector-store.js';

/** Settings of the Qdrant vector store (the run reads `url` / `apiKey` from QDRANT_URL / QDRANT_API_KEY). */
export interface QdrantVectorStoreSettings extends QdrantEndpoint {
  /** Collection `name` lives on the server as `<collectionPrefix>_<name>`: one prefix per run isolates runs. */
  collectionPrefix: string;
  /** `close()` deletes every collection this store ensured or used. Default false (a later phase may reuse them). */
  dropOnClose?: boolean;
  /** How long the first request may take before the server counts as unreachable; default 5 s. */
  connectTimeoutMs?: number;
  /** Timeout of every later request; default 60 s. */
  requestTimeoutMs?: number;
}

/** A VectorStore on Qdrant, which also reports the server it talks to. */
export interface QdrantVectorStore extends VectorStore {
  /** `Qdrant <version>` once opened, e.g. `Qdrant 1.15.4`; null before. */
  readonly serverVersion: string | null;
}

const NAME = /^[A-Za-z0-9._-]+$/;
const PAGE = 256;

/**
 * Creates a Qdrant store. Collections use cosine distance and exact (full-scan) search. Each point's payload
 * carries its first-upsert rank under `QDRANT_RANK_KEY`, so ties come back in first-upsert order as the contract
 * says: search widens its window until the last hit scores below the `limit`-th, then sorts by score and rank.
 * A zero query vector scores every point 0 without a server search. Reads return the vector Qdrant stores:
 * the unit vector in 32-bit floats (cosine collections normalise on upload); scores are 32-bit too.
 *
 * @example
 * const store = createQdrantVectorStore({ url: 'http://127.0.0.1:6333', collectionPrefix: `stalebench_${runId}`, dropOnClose: true });
 * await store.open();
 * await store.ensureCollection('langmem_store', 384);
 */
export function createQdrantVectorStore(settings: QdrantVectorStoreSettings): QdrantVectorStore {
  const checkName = (kind: string, name: string): string => {
    if (!NAME.test(name))
      throw new EvalError(
        'vector-invalid-collection',
        `qdrant: collection ${kind} "${name}" may hold only letters, digits, ".", "_" and "-"`,
      );
    return name;
  };
  const prefix = checkName('prefix', settings.collectionPrefix);
  const fullName = (name: string): string => `${prefix}_${checkName('name', name)}`;
  const dimensions = new Map<string, number>(); // collections this store has checked, by short name
  const nextRank = new Map<string, number>();
  let connection: QdrantClient | null = null;
  let opening: Promise<void> | null = null;
  let serverVersion: string | null = null;
  let writes: Promise<unknown> = Promise.resolve(); // upserts and deletes run one at a time: ranks are read, then written

  const opened = (): QdrantClient => {
    if (!connection) throw new EvalError('vector-store-not-open', 'qdrant vector store: call open() first');
    return connection;
  };
  const request = <T>(action: string, run: (qdrant: QdrantClient) => Promise<T>): Promise<T> => {
    const qdrant = opened();
    return qdrantRequest(settings.url, action, () => run(qdrant));
  };
  const serially = <T>(work: () => Promise<T>): Promise<T> => {
    const run = writes.then(work);
    writes = run.catch(() => undefined);
    return run;
  };
  const sizeOf = async (full: string): Promise<number | undefined> => {
    if (!(await request(`collectionExists ${full}`, (qdrant) => qdrant.collectionExists(full))).exists)
      return undefined;
    const vectors = (await request(`getCollection ${full}`, (qdrant) => qdrant.getCollection(full))).config.params
      .vectors;
    if (!vectors || !('size' in vectors) || typeof vectors.size !== 'number' || vectors.distance !== 'Cosine') {
      throw new EvalError(
        'vector-collection-incompatible',
        `qdrant: collection "${full}" is not a single unnamed cosine vector collection`,
      );
    }
    return vectors.size;
  };
  /** The server name of a collection that exists, after checking `vector` against its dimensions. */
  const collection = async (name: string, vector?: readonly number[]): Promise<string> => {
    opened();
    const full = fullName(name);
    let size = dimensions.get(name);
    if (size === undefined) {
      size = await sizeOf(full);
      if (size === undefined)
        throw new EvalError('vector-collection-missing', `qdrant vector store: no collection "${full}"`);
      dimensions.set(name, size);
    }
    if (vector) checkVector(name, size, vector);
    return full;
  };
  const scrollAll = async (
    full: string,
    filter: PayloadFilter | undefined,
    withVector: boolean,
  ): Promise<Schemas['Record'][]> => {
    const records: Schemas['Record'][] = [];
    const compiled = compileQdrantFilter(filter);
    let offset: Schemas['ExtendedPointId'] | undefined;
    do {
      const page = await request(`scroll ${full}`, (qdrant) =>
        qdrant.scroll(full, { filter: compiled, limit: PAGE, offset, with_payload: true, with_vector: withVector }),
      );
      records.push(...page.points);
      const next = page.next_page_offset;
      offset = typeof next === 'string' || typeof next === 'number' ? next : undefined;
    } while (offset !== undefined);
    return records.sort(byRank);
  };
  const rankAfterLast = async (name: string, full: string): Promise<number> => {
    const known = nextRank.get(name);
    if (known !== undefined) return known;
    // First write of this store into the collection: continue after whatever an earlier store left there.
    return (await scrollAll(full, undefined, false))
      .map(rankOf)
      .filter(Number.isFinite)
      .reduce((max, rank) => Math.max(max, rank + 1), 0);
  };

  return {
    id: 'qdrant',
    get serverVersion() {
      return serverVersion;
    },
    async open() {
      opening ??= (async () => {
        const version = await probeQdrant(settings, settings.connectTimeoutMs);
        connection = await createQdrantClient(settings, settings.requestTimeoutMs ?? 60_000);
        serverVersion = `Qdrant ${version}`;
      })().catch((error: unknown) => {
        opening = null;
        throw error;
      });
      await opening;
    },
    async ensureCollection(name, size) {
      opened();
      const full = fullName(name);
      if (!Number.isInteger(size) || size < 1)
        throw new RangeError(`collection "${name}": dimensions must be a positive integer`);
      let existing = await sizeOf(full);
      if (existing === undefined) {
        const failure = await request(`createCollection ${full}`, (qdrant) =>
          qdrant.createCollection(full, { vectors: { size, distance: 'Cosine' } }),
        ).then(
          () => undefined,
          (error: unknown) => error,
        );
        existing = await sizeOf(full); // a concurrent creator makes the create fail (409); the re-read settles it
        if (existing === undefined)
          throw failure ?? new EvalError('qdrant-request-failed', `qdrant: collection "${full}" was not created`);
      }
      if (existing !== size)
        throw new EvalError(
          'vector-dimension-mismatch',
          `collection "${name}" has ${existing} dimensions, not ${size}`,
        );
      dimensions.set(name, size);
    },
    upsert: (name, points) =>
      serially(async () => {
        const full = await collection(name);
        for (const point of points) {
          checkId(point.id);
          await collection(name, point.vector);
          if (Object.hasOwn(point.payload, QDRANT_RANK_KEY))
            throw new EvalError('vector-reserved-key', `qdrant: payload key "${QDRANT_RANK_KEY}" is reserved`);
        }
        if (points.length === 0) return;
        const latest = new Map(points.map((point) => [point.id, point])); // first position, last value, as the embedded Map
        const stored = await request(`retrieve ${full}`, (qdrant) =>
          qdrant.retrieve(full, { ids: [...latest.keys()], with_payload: [QDRANT_RANK_KEY], with_vector: false }),
        );
        const ranks = new Map(stored.map((record) => [String(record.id), rankOf(record)]));
        let next = await rankAfterLast(name, full);
        const rows = [...latest.values()].map((point) => {
          const kept = ranks.get(point.id);
          const rank = kept !== undefined && Number.isFinite(kept) ? kept : next++;
          return { id: point.id, vector: [...point.vector], payload: { ...point.payload, [QDRANT_RANK_KEY]: rank } };
        });
        nextRank.set(name, next);
        await request(`upsert ${full}`, (qdrant) => qdrant.upsert(full, { wait: true, points: rows }));
      }),
    async search({ collection: name, vector, limit, filter }) {
      const full = await collection(name, vector);
      if (!Number.isInteger(limit) || limit < 0)
        throw new RangeError(`search limit must be a non-negative integer, got ${limit}`);
      if (limit === 0) return [];
      // Cosine with a zero vector is 0 for every point by contract; no server round trip depends on how Qdrant treats it.
      if (vector.every((value) => value === 0))
        return (await scrollAll(full, filter, false)).slice(0, limit).map((record) => toHit(record, 0));
      const compiled = compileQdrantFilter(filter);
      for (let window = limit + 1; ; window *= 2) {
        const { points } = await request(`query ${full}`, (qdrant) =>
          qdrant.query(full, {
            query: [...vector],
            filter: compiled,
            limit: window,
            with_payload: true,
            params: { exact: true },
          }),
        );
        const boundary = points[limit - 1];
        const last = points[points.length - 1];
        // Done once every point scoring like the limit-th hit is in hand: the server ran out, or the last hit scores lower.
        if (points.length < window || !boundary || !last || last.score < boundary.score) {
          return [...points]
            .sort((a, b) => b.score - a.score || byRank(a, b))
            .slice(0, limit)
            .map((hit) => toHit(hit, hit.score));
        }
      }
    },
    async get(name, ids) {
      const full = await collection(name);
      ids.forEach(checkId);
      if (ids.length === 0) return [];
      const records = await request(`retrieve ${full}`, (qdrant) =>
        qdrant.retrieve(full, { ids: [...new Set(ids)], with_payload: true, with_vector: true }),
      );
      const byId = new Map(records.map((record) => [String(record.id), record]));
      return ids.flatMap((id) => {
        const record = byId.get(id);
        return record ? [toPoint(record)] : [];
      });
    },
    async scroll(name, filter) {
      return (await scrollAll(await collection(name), filter, true)).map(toPoint);
    },
    delete: (name, selector) =>
      serially(async () => {
        const full = await collection(name);
        if (isIdList(selector)) {
          selector.forEach(checkId);
          if (selector.length > 0)
            await request(`delete ${full}`, (qdrant) => qdrant.delete(full, { wait: true, points: [...selector] }));
          return;
        }
        const filter = compileQdrantFilter(selector);
        await request(`delete ${full}`, (qdrant) => qdrant.delete(full, { wait: true, filter }));
      }),
    async listCollections(namePrefix) {
      const { collections } = await request('getCollections', (qdrant) => qdrant.getCollections());
      const own = `${prefix}_`;
      return collections
        .map((entry) => entry.name)
        .filter((name) => name.startsWith(own + namePrefix))
        .map((name) => name.slice(own.length))
        .sort();
    },
    dropCollection: (name) =>
      serially(async () => {
        const full = fullName(name);
        if ((await request(`collectionExists ${full}`, (qdrant) => qdrant.collectionExists(full))).exists) {
          await request(`deleteCollection ${full}`, (qdrant) => qdrant.deleteCollection(full));
        }
        dimensions.delete(name);
        nextRank.delete(name);
      }),
    async close() {
      if (!connection) return;
      await writes;
      try {
        if (settings.dropOnClose) {
          for (const name of dimensions.keys())
            await request(`deleteCollection ${fullName(name)}`, (qdrant) => qdrant.deleteCollection(fullName(name)));
        }
      } finally {
        connection = null;
        opening = null;
        dimensions.clear();
        nextRank.clear();
      }
    },
  };
}
