// Raw access to LangGraph RedisSaver's keys of one cell: RESP commands (JSON.GET/SET, SET, DEL, DUMP/RESTORE) only.
import { changedNumber } from '../harness/seed-plan.js';
import { canonicalJson, parseBody } from '../../../../backends/store-tools/canonical-json.js';
import type { ContextName, JsonValue, RawAccess, RawRecord, RawSnapshot } from './integrity-target.js';
import { nextId } from './langgraph-checkpoints-raw.js';
import { replyText, withRawRedis, type RawRedis } from './raw-redis.js';

/** Where one cell's checkpoints are. */
export interface RedisCheckpoints {
  /** The server, `redis://127.0.0.1:<port>/0`. */
  url: string;
  /** The saver's `checkpoint_prefix` for this cell (the adapter's `<key_prefix>_checkpoint`). */
  checkpointPrefix: string;
  /** thread_id per context. */
  threads: Record<ContextName, string>;
}

type Document = Record<string, JsonValue>;

/** The saver's storage form of the empty checkpoint namespace (`to_storage_safe_str('')`). */
const EMPTY_NS = '__empty__';
/** What stays with the key when a body moves: the document's identity and its parent link. */
const IDENTITY = new Set(['thread_id', 'checkpoint_ns', 'checkpoint_id', 'parent_checkpoint_id']);

const bodyOf = (doc: Document): Document =>
  Object.fromEntries(Object.entries(doc).filter(([key]) => !IDENTITY.has(key)));
const checkpointOf = (doc: Document): Document => (doc.checkpoint ?? {}) as Document;
const memoryOf = (doc: Document): string => String(((checkpointOf(doc).channel_values ?? {}) as Document).memory ?? '');
const metadataOf = (doc: Document): Document => JSON.parse(String(doc.metadata ?? '{}')) as Document;

/** Every key the saver writes for a cell (documents, latest pointers, writes) starts with its checkpoint prefix. */
const cellKeyPattern = (checkpointPrefix: string): string => `${checkpointPrefix}*`;

/**
 * Raw access over one cell's keys. Records are the JSON checkpoint documents at
 * `<prefix>:<thread>:__empty__:<checkpoint_id>`, in `checkpoint_id` order (uuid6, time-sortable, the order list()
 * sorts by); the head is the separate string `<prefix>_latest:<thread>:__empty__` holding the newest document's key.
 */
export function redisCheckpointRawAccess(cell: RedisCheckpoints, log: (command: string) => void): RawAccess {
  const redis = <T>(work: (session: RawRedis) => Promise<T>): Promise<T> => withRawRedis(cell.url, log, work);
  const keyOf = (thread: string, id: string) => `${cell.checkpointPrefix}:${thread}:${EMPTY_NS}:${id}`;
  const latestKey = (thread: string) => `${cell.checkpointPrefix}_latest:${thread}:${EMPTY_NS}`;
  const get = async (session: RawRedis, key: string): Promise<Document> => {
    const text = replyText(await session.read(['JSON.GET', key, '$']));
    const [doc] = text === null ? [] : (JSON.parse(text) as Document[]);
    if (!doc) throw new Error(`no checkpoint document at ${key}`);
    return doc;
  };
  const set = (session: RawRedis, key: string, path: string, value: JsonValue) =>
    session.write(['JSON.SET', key, path, JSON.stringify(value)]);
  const toRaw = (key: string, doc: Document): RawRecord => {
    const thread = String(doc.thread_id);
    const parent = String(doc.parent_checkpoint_id ?? '');
    return {
      slot: key,
      owner: thread,
      position: String(doc.checkpoint_id),
      parent: parent ? keyOf(thread, parent) : null,
      text: memoryOf(doc),
      body: canonicalJson(bodyOf(doc)),
      labels: metadataOf(doc),
    };
  };
  return {
    list: (context) =>
      redis(async (session) => {
        const keys = await session.keys(`${cell.checkpointPrefix}:${cell.threads[context]}:${EMPTY_NS}:*`);
        const records: RawRecord[] = [];
        for (const key of keys) records.push(toRaw(key, await get(session, key)));
        return records.sort((a, b) => String(a.position).localeCompare(String(b.position)));
      }),
    writeBody: (record, body) =>
      redis(async (session) => {
        const doc = await get(session, record.slot);
        const identity = Object.fromEntries(Object.entries(doc).filter(([key]) => IDENTITY.has(key)));
        await set(session, record.slot, '$', { ...parseBody(body), ...identity });
      }),
    remove: (record) => redis(async (session) => void (await session.write(['DEL', record.slot]))),
    changeMeaning: (record) =>
      redis(async (session) => {
        const changed = changedNumber(memoryOf(await get(session, record.slot))).text;
        await set(session, record.slot, '$.checkpoint.channel_values.memory', changed);
      }),
    forge: (tip) =>
      redis(async (session) => {
        const doc = await get(session, tip.slot);
        const id = nextId(String(doc.checkpoint_id));
        const metadata = metadataOf(doc);
        const step = Number(metadata.step ?? 0) + 1;
        const checkpoint = checkpointOf(doc);
        const forged: Document = {
          ...doc,
          checkpoint_id: id,
          parent_checkpoint_id: String(doc.checkpoint_id),
          checkpoint: {
            ...checkpoint,
            id,
            channel_values: {
              ...((checkpoint.channel_values ?? {}) as Document),
              memory: changedNumber(tip.text).text,
            },
          },
          metadata: JSON.stringify({ ...metadata, step }),
          step,
        };
        const key = keyOf(String(doc.thread_id), id);
        await set(session, key, '$', forged);
        // The attacker makes the forged document the head, as the saver's own put() would.
        await session.write(['SET', latestKey(String(doc.thread_id)), key]);
      }),
    moveHead: (context, newTip) =>
      redis(async (session) => {
        const pointer = latestKey(cell.threads[context]);
        await session.write(newTip ? ['SET', pointer, newTip.slot] : ['DEL', pointer]);
      }),
    relink: (record, parent) =>
      redis(
        async (session) => void (await set(session, record.slot, '$.parent_checkpoint_id', String(parent.position))),
      ),
    relabel: (record) =>
      redis(async (session) => {
        const doc = await get(session, record.slot);
        const metadata = metadataOf(doc);
        const source = metadata.source === 'update' ? 'loop' : 'update';
        // Both copies of the label: the metadata string get() returns and the indexed top-level field list() filters on.
        await set(session, record.slot, '$.metadata', JSON.stringify({ ...metadata, source }));
        if ('source' in doc) await set(session, record.slot, '$.source', source);
      }),
    snapshot: () => redis((session) => snapshotKeys(session, cell, log)),
  };
}

/** T9: DUMP and PTTL of every key of the cell; restoring deletes the keys created since and RESTOREs the rest. */
async function snapshotKeys(
  session: RawRedis,
  cell: RedisCheckpoints,
  log: (command: string) => void,
): Promise<RawSnapshot> {
  const pattern = cellKeyPattern(cell.checkpointPrefix);
  const copies: { key: string; ttl: number; payload: Buffer }[] = [];
  for (const key of await session.keys(pattern)) {
    const payload = await session.read(['DUMP', key]);
    if (!Buffer.isBuffer(payload)) throw new Error(`DUMP ${key} returned no payload`);
    copies.push({ key, ttl: Math.max(Number(await session.read(['PTTL', key])), 0), payload });
  }
  log(`# snapshot: DUMP of ${copies.length} keys matching ${pattern}: ${copies.map((copy) => copy.key).join(' ')}`);
  return {
    restore: () =>
      withRawRedis(cell.url, log, async (restoring) => {
        const kept = new Set(copies.map((copy) => copy.key));
        for (const key of await restoring.keys(pattern)) if (!kept.has(key)) await restoring.write(['DEL', key]);
        for (const copy of copies)
          await restoring.write(['RESTORE', copy.key, String(copy.ttl), copy.payload, 'REPLACE']);
      }),
  };
}

/**
 * Removes a cell from the server: its keys and the saver's two search indexes (named after the prefixes).
 *
 * @example await dropCell(url, 'sb_cell_checkpoint', log);
 */
export async function dropCell(url: string, checkpointPrefix: string, log: (command: string) => void): Promise<void> {
  await withRawRedis(url, log, async (session) => {
    for (const key of await session.keys(cellKeyPattern(checkpointPrefix))) await session.write(['DEL', key]);
    for (const index of [checkpointPrefix, `${checkpointPrefix}_write`])
      await session.write(['FT.DROPINDEX', index]).catch(() => undefined);
  });
}
