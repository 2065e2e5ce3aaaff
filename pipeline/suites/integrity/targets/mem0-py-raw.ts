// Raw access to the Python mem0's local Qdrant points (SQLite `points`: key, pickled PointStruct): SQL + a stdlib codec.
import { spawnSync } from 'node:child_process';
import { createHash, randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { changedNumber } from '../harness/seed-plan.js';
import { canonicalJson, parseBody } from '../../../../backends/store-tools/canonical-json.js';
import { HarnessFaultError } from './harness-fault.js';
import type { ContextName, JsonValue, RawAccess, RawRecord } from './integrity-target.js';
import { directorySnapshot } from './raw-files.js';
import { withRawSqlite, type RawSqlite } from '../../../../backends/store-tools/raw-sqlite.js';

const CONTENT_FIELDS = new Set(['data', 'hash', 'text_lemmatized', 'user_id']);
const TOOL = join(
  import.meta.dirname,
  '..',
  '..',
  '..',
  '..',
  'backends',
  'python',
  'raw_tools',
  'qdrant_local_points.py',
);
const TOOL_LABEL = 'python3 -I -S backends/python/raw_tools/qdrant_local_points.py';

/** A point as the codec decodes its pickle: pydantic's state of qdrant-client's PointStruct, plain data. */
interface DecodedPoint {
  fields: { id: string; vector: JsonValue; payload: Record<string, JsonValue> };
  fields_set: string[];
  extra: JsonValue;
  private: JsonValue;
}

interface PointRow {
  rowid: number;
  key: string;
  point: DecodedPoint;
}

/** Runs the standard-library codec (no site-packages: neither qdrant-client nor mem0 is importable) on JSON lines. */
function codec<T>(op: 'decode' | 'encode' | 'key', requests: readonly object[]): T[] {
  if (requests.length === 0) return [];
  const ran = spawnSync('python3', ['-I', '-S', TOOL, op], {
    input: `${requests.map((request) => JSON.stringify(request)).join('\n')}\n`,
    encoding: 'utf8',
    maxBuffer: 256 * 1024 * 1024,
  });
  if (ran.error || ran.status !== 0)
    throw new HarnessFaultError(`${TOOL_LABEL} ${op} failed: ${ran.error?.message ?? ran.stderr.trim()}`);
  return ran.stdout
    .split('\n')
    .filter((line) => line.trim())
    .map((line) => JSON.parse(line) as T);
}

const toRaw = ({ rowid, point }: PointRow): RawRecord => {
  const { user_id: owner, ...moving } = point.fields.payload;
  return {
    slot: point.fields.id,
    owner: String(owner),
    position: rowid,
    text: String(point.fields.payload.data),
    body: canonicalJson({ payload: moving, vector: point.fields.vector }),
    labels: Object.fromEntries(
      Object.entries(point.fields.payload).filter(([key]) => !CONTENT_FIELDS.has(key)),
    ) as Record<string, JsonValue>,
  };
};

/** Where the Python mem0's store files are inside a cell (store_adapters/mem0_py_store.py lays them out). */
export interface Mem0PyFiles {
  /** qdrant-client's points file, `store/qdrant/collection/mem0/storage.sqlite`. */
  points: string;
  /** The whole store directory (points, collection meta, history.db), copied for T9. */
  storeDir: string;
  /** Owner (mem0 user id) of each context. */
  owners: Record<ContextName, string>;
}

/**
 * Raw access over qdrant-client's local `points` table: rows read and written by SQL through better-sqlite3, each
 * pickled PointStruct decoded and re-encoded by backends/python/raw_tools/qdrant_local_points.py, which uses the
 * standard library only. A context is a mem0 user id (`payload.user_id`), the store's order the table's rowid; the
 * body is the payload (minus `user_id`) and the vector. Un-revoking removes `expiration_date`, mem0's only status.
 * mem0's history.db is left as it is (mem0 never reconciles it with the vector store), except by T9's whole copy.
 *
 * @example const raw = mem0PyRawAccess({ points, storeDir, owners }, console.log);
 */
export function mem0PyRawAccess(files: Mem0PyFiles, log: (command: string) => void): RawAccess {
  const sql = <T>(work: (db: RawSqlite) => T): T =>
    withRawSqlite(files.points, 'store/qdrant/collection/mem0/storage.sqlite', log, work);
  const rows = (db: RawSqlite): PointRow[] => {
    const found = db.all<{ rowid: number; id: string; point: Buffer }>(
      'SELECT rowid, id, point FROM points ORDER BY rowid',
    );
    const points = codec<DecodedPoint>(
      'decode',
      found.map((row) => ({ blob: row.point.toString('hex') })),
    );
    return found.map((row, index) => ({ rowid: row.rowid, key: row.id, point: points[index] as DecodedPoint }));
  };
  const rowOf = (db: RawSqlite, slot: string): PointRow => {
    const found = rows(db).find((row) => row.point.fields.id === slot);
    if (!found) throw new HarnessFaultError(`no point ${slot} in the points table`);
    return found;
  };
  const encoded = (point: DecodedPoint): Buffer => {
    log(`${TOOL_LABEL} encode <<< point ${point.fields.id}`);
    const [answer] = codec<{ blob: string }>('encode', [point]);
    return Buffer.from(String(answer?.blob), 'hex');
  };
  const rewrite = (db: RawSqlite, row: PointRow, fields: DecodedPoint['fields']): void =>
    db.run('UPDATE points SET point = ? WHERE rowid = ?', [encoded({ ...row.point, fields }), row.rowid]);
  const setPayload = (
    record: RawRecord,
    change: (payload: Record<string, JsonValue>) => Record<string, JsonValue>,
  ): void =>
    sql((db) => {
      const row = rowOf(db, record.slot);
      rewrite(db, row, { ...row.point.fields, payload: change(row.point.fields.payload) });
    });
  return {
    list: async (context) =>
      sql(rows)
        .map(toRaw)
        .filter((record) => record.owner === files.owners[context]),
    async writeBody(record, body) {
      const moved = parseBody(body);
      sql((db) => {
        const row = rowOf(db, record.slot);
        const payload = { ...(moved.payload as Record<string, JsonValue>), user_id: record.owner };
        rewrite(db, row, { ...row.point.fields, payload, vector: moved.vector as JsonValue });
      });
    },
    async remove(record) {
      sql((db) => db.run('DELETE FROM points WHERE id = ?', [rowOf(db, record.slot).key]));
    },
    changeMeaning: async (record) =>
      setPayload(record, (payload) => ({ ...payload, data: changedNumber(String(payload.data)).text })),
    async forge(tip) {
      sql((db) => {
        const template = rowOf(db, tip.slot);
        const payload = template.point.fields.payload;
        const data = changedNumber(String(payload.data)).text;
        const later = new Date(Date.parse(String(payload.created_at)) + 1000).toISOString();
        const id = randomUUID();
        const forged: DecodedPoint = {
          ...template.point,
          fields: {
            ...template.point.fields,
            id,
            payload: {
              ...payload,
              data,
              text_lemmatized: data,
              hash: createHash('md5').update(data).digest('hex'),
              created_at: later,
              updated_at: later,
            },
          },
        };
        log(`${TOOL_LABEL} key <<< ${id}`);
        const [answer] = codec<{ key: string }>('key', [{ id }]);
        db.run('INSERT INTO points (id, point) VALUES (?, ?)', [String(answer?.key), encoded(forged)]);
      });
    },
    relabel: async (record) => setPayload(record, (payload) => ({ ...payload, source: 'user' })),
    unrevoke: async (record) => setPayload(record, ({ expiration_date: _cleared, ...payload }) => payload),
    snapshot: () => directorySnapshot(files.storeDir, 'store', log),
  };
}
