// Raw access to mem0's SQLite `memory` vector store (vector_store.db: id, vector BLOB, payload JSON), by SQL only.
import { createHash, randomUUID } from 'node:crypto';
import { changedNumber } from '../harness/seed-plan.js';
import type { Mem0Paths } from '../../../../backends/mem0-client.js';
import { canonicalJson, parseBody } from '../../../../backends/store-tools/canonical-json.js';
import type { ContextName, JsonValue, RawAccess, RawRecord } from './integrity-target.js';
import { directorySnapshot } from './raw-files.js';
import { withRawSqlite, type RawSqlite } from '../../../../backends/store-tools/raw-sqlite.js';

const CONTENT_FIELDS = new Set(['data', 'hash', 'textLemmatized', 'user_id']);

interface VectorRow {
  rowid: number;
  id: string;
  vector: Buffer;
  payload: string;
}

const toRaw = (row: VectorRow): RawRecord => {
  const payload = JSON.parse(row.payload) as Record<string, JsonValue>;
  const { user_id: owner, ...moving } = payload;
  return {
    slot: row.id,
    owner: String(owner),
    position: row.rowid,
    text: String(payload.data),
    body: canonicalJson({ payload: moving, vector: row.vector.toString('hex') }),
    labels: Object.fromEntries(Object.entries(payload).filter(([key]) => !CONTENT_FIELDS.has(key))),
  };
};

/**
 * Raw access over the `vectors` table of a mem0 store laid out by `mem0Paths`. A context is a mem0 user id
 * (`users`), the store's order its rowid; the body is the payload (minus `user_id`) and the vector. Un-revoking
 * removes `expiration_date` from the payload, the only status mem0 OSS keeps (memory-systems.md §4.2). The eval
 * pipeline's mem0 backend uses the same layout under its workDir, so `unrevoke` applies there unchanged.
 *
 * @example const raw = mem0RawAccess(mem0Paths(workDir), { A: userA, B: userB }, console.log);
 */
export function mem0RawAccess(
  paths: Mem0Paths,
  users: Record<ContextName, string>,
  log: (command: string) => void,
): RawAccess {
  const sql = <T>(work: (db: RawSqlite) => T): T => withRawSqlite(paths.vectorStore, 'mem0/vector_store.db', log, work);
  const row = (db: RawSqlite, id: string): VectorRow => {
    const [found] = db.all<VectorRow>('SELECT rowid, id, vector, payload FROM vectors WHERE id = ?', [id]);
    if (!found) throw new Error(`no vectors row ${id}`);
    return found;
  };
  const setPayload = (
    record: RawRecord,
    change: (payload: Record<string, JsonValue>) => Record<string, JsonValue>,
  ): void =>
    sql((db) => {
      const payload = JSON.parse(row(db, record.slot).payload) as Record<string, JsonValue>;
      db.run('UPDATE vectors SET payload = ? WHERE id = ?', [JSON.stringify(change(payload)), record.slot]);
    });
  return {
    list: async (context) =>
      sql((db) => db.all<VectorRow>('SELECT rowid, id, vector, payload FROM vectors ORDER BY rowid'))
        .map(toRaw)
        .filter((record) => record.owner === users[context]),
    async writeBody(record, body) {
      const moved = parseBody(body);
      const payload = { ...(moved.payload as Record<string, JsonValue>), user_id: record.owner };
      sql((db) =>
        db.run('UPDATE vectors SET vector = ?, payload = ? WHERE id = ?', [
          Buffer.from(String(moved.vector), 'hex'),
          JSON.stringify(payload),
          record.slot,
        ]),
      );
    },
    async remove(record) {
      sql((db) => db.run('DELETE FROM vectors WHERE id = ?', [record.slot]));
    },
    changeMeaning: async (record) =>
      setPayload(record, (payload) => ({ ...payload, data: changedNumber(String(payload.data)).text })),
    async forge(tip) {
      sql((db) => {
        const template = row(db, tip.slot);
        const payload = JSON.parse(template.payload) as Record<string, JsonValue>;
        const data = changedNumber(String(payload.data)).text;
        const forged = {
          ...payload,
          data,
          hash: createHash('md5').update(data).digest('hex'),
          createdAt: new Date(Date.parse(String(payload.createdAt)) + 1000).toISOString(),
        };
        db.run('INSERT INTO vectors (id, vector, payload) VALUES (?, ?, ?)', [
          randomUUID(),
          template.vector,
          JSON.stringify(forged),
        ]);
      });
    },
    relabel: async (record) => setPayload(record, (payload) => ({ ...payload, source: 'user' })),
    unrevoke: async (record) => setPayload(record, ({ expiration_date: _cleared, ...payload }) => payload),
    snapshot: () => directorySnapshot(paths.root, 'mem0', log),
  };
}
