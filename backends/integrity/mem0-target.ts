// Target `mem0`: the real mem0ai OSS Memory on its own SQLite files; edits are SQL on vector_store.db.
import { createHash, randomUUID } from 'node:crypto';
import { changedNumber } from '../../pipeline/integrity/seed-plan.js';
import { createLexicalEmbedder } from '../lexical-embedder.js';
import { mem0Paths, mem0Version, openMem0Client } from '../mem0-client.js';
import { createMem0ChatModel } from '../mem0-extraction-llm.js';
import { revokedExpirationDate } from '../mem0-records.js';
import { createSimExtractionModel } from '../sim-extraction-model.js';
import { canonicalJson, parseBody } from './canonical-json.js';
import type { ContextName, IntegrityTarget, JsonValue, RawAccess, RawRecord, TargetDescription } from './integrity-target.js';
import { installedVersion } from './package-version.js';
import { directorySnapshot } from './raw-files.js';
import { sqliteVersion, withRawSqlite, type RawSqlite } from './raw-sqlite.js';

const USER: Record<ContextName, string> = { A: 'ctx-a', B: 'ctx-b' };
const CONTENT_FIELDS = new Set(['data', 'hash', 'textLemmatized', 'user_id']);
const READ_LIMIT = 1000;

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
 * Creates the `mem0` target: mem0ai's `Memory` with the SQLite `memory` vector store and the SQLite history store
 * in the cell's directory, the offline lexical embedder and `infer: false` (no model: memories are stored verbatim).
 * A context is a mem0 user id; the read path is `getAll({filters: {user_id}})` with mem0's default `showExpired: false`.
 *
 * @example const target = createMem0Target();
 */
export function createMem0Target(): IntegrityTarget {
  const embedder = createLexicalEmbedder();
  return {
    id: 'mem0',
    async describe(): Promise<TargetDescription> {
      return {
        label: `mem0 OSS Memory (mem0ai ${mem0Version()}), SQLite memory vector store`,
        model: false,
        versions: { mem0ai: mem0Version(), 'better-sqlite3': installedVersion('better-sqlite3') },
        store: `SQLite ${sqliteVersion()}: vector_store.db (vectors) and history.db`,
        config: {
          'integrity features': 'none offered by mem0 OSS',
          ingestion: 'add(text, {infer: false, metadata: {source}}) — verbatim, no LLM',
          'read path': "getAll({filters: {user_id}}) with mem0's default showExpired: false",
          embedder: `${embedder.id} (offline, ${embedder.dimensions} dimensions)`,
        },
        detection: 'read',
        contexts: 2,
        revocationFields: ['expiration_date'],
        tooling: 'SQL through better-sqlite3 on mem0/vector_store.db; cp of the mem0 directory (T9)',
      };
    },
    async createStore({ dir, log }) {
      const paths = mem0Paths(dir);
      const sql = <T>(work: (db: RawSqlite) => T): T => withRawSqlite(paths.vectorStore, 'mem0/vector_store.db', log, work);
      const row = (db: RawSqlite, id: string): VectorRow => {
        const [found] = db.all<VectorRow>('SELECT rowid, id, vector, payload FROM vectors WHERE id = ?', [id]);
        if (!found) throw new Error(`no vectors row ${id}`);
        return found;
      };
      const setPayload = (record: RawRecord, change: (payload: Record<string, JsonValue>) => Record<string, JsonValue>) =>
        sql((db) => {
          const payload = JSON.parse(row(db, record.slot).payload) as Record<string, JsonValue>;
          db.run('UPDATE vectors SET payload = ? WHERE id = ?', [JSON.stringify(change(payload)), record.slot]);
        });
      const raw: RawAccess = {
        list: async (context) => sql((db) => db.all<VectorRow>('SELECT rowid, id, vector, payload FROM vectors ORDER BY rowid')).map(toRaw).filter((record) => record.owner === USER[context]),
        async writeBody(record, body) {
          const moved = parseBody(body);
          const payload = { ...(moved.payload as Record<string, JsonValue>), user_id: record.owner };
          sql((db) => db.run('UPDATE vectors SET vector = ?, payload = ? WHERE id = ?', [Buffer.from(String(moved.vector), 'hex'), JSON.stringify(payload), record.slot]));
        },
        async remove(record) {
          sql((db) => db.run('DELETE FROM vectors WHERE id = ?', [record.slot]));
        },
        changeMeaning: async (record) => setPayload(record, (payload) => ({ ...payload, data: changedNumber(String(payload.data)).text })),
        async forge(tip) {
          sql((db) => {
            const template = row(db, tip.slot);
            const payload = JSON.parse(template.payload) as Record<string, JsonValue>;
            const data = changedNumber(String(payload.data)).text;
            const forged = { ...payload, data, hash: createHash('md5').update(data).digest('hex'), createdAt: new Date(Date.parse(String(payload.createdAt)) + 1000).toISOString() };
            db.run('INSERT INTO vectors (id, vector, payload) VALUES (?, ?, ?)', [randomUUID(), template.vector, JSON.stringify(forged)]);
          });
        },
        relabel: async (record) => setPayload(record, (payload) => ({ ...payload, source: 'user' })),
        unrevoke: async (record) => setPayload(record, ({ expiration_date: _cleared, ...payload }) => payload),
        snapshot: () => directorySnapshot(paths.root, 'mem0', log),
      };
      return {
        raw,
        async start() {
          const client = await openMem0Client({ paths, embedder, llm: { provider: 'langchain', model: createMem0ChatModel(createSimExtractionModel()) } });
          const { memory } = client;
          return {
            async seed(context, records) {
              for (const record of records) {
                const expiry = record.revoked ? { expirationDate: revokedExpirationDate(new Date()) } : {};
                await memory.add(record.text, { userId: USER[context], infer: false, metadata: { ...record.labels }, ...expiry });
              }
            },
            async read(context) {
              const { results } = await memory.getAll({ filters: { user_id: USER[context] }, topK: READ_LIMIT });
              return { status: 'served', texts: results.map((item) => item.memory) };
            },
            async stop() {
              client.close();
            },
          };
        },
        async dispose() {},
      };
    },
  };
}
